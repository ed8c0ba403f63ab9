// setup() never yields: k6 stops it at setupTimeout, exit 100, teardown skipped, summary written.
export const options = { vus: 1, iterations: 1, setupTimeout: '1s' };
export function setup() {
  while (true) {}
}
export default function () {}
