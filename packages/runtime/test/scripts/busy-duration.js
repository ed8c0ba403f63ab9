// A CPU-bound iteration that never yields: interrupted when gracefulStop runs out, as in k6.
export const options = {
  // VUS: 2 puts one VU on each of two workers (test/e2e/runtime/workers.test.ts).
  scenarios: {
    busy: { executor: 'constant-vus', vus: Number(__ENV.VUS ?? 1), duration: '1s', gracefulStop: '0s' },
  },
};
export function setup() {
  return { from: 'setup' };
}
export default function () {
  while (true) {}
}
export function teardown(data) {
  console.log(`teardown ran ${JSON.stringify(data)}`);
}
