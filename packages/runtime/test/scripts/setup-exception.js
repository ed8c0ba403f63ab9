// An exception in setup(): exit code 107.
export function setup() {
  throw new Error('setup went wrong');
}
export default function () {}
