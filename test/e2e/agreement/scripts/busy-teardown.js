// teardown() never yields: k6 stops it at teardownTimeout, exit 101, summary written.
export const options = { vus: 1, iterations: 1, teardownTimeout: '1s' };
export default function () {}
export function teardown() {
  while (true) {}
}
