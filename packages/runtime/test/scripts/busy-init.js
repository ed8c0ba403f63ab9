// The init context never yields: k6 handles no signal before init ends, so SIGINT ends the process.
while (true) {}
export default function () {}
