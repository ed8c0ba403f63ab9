// Nothing but iterations: for execution flags such as -s/--stage.
export default function () {}
