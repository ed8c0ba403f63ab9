// An exception in setup(): exit 107.
export const options = { iterations: 1 };
export function setup() {
  throw new Error('setup failed');
}
export default function () {}
