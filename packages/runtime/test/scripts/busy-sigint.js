// A CPU-bound iteration in a long test: SIGINT interrupts it; teardown and the summary still run.
export const options = { vus: 1, duration: '60s' };
export function setup() {
  console.log('setup done');
}
export default function () {
  while (true) {}
}
export function teardown() {
  console.log('teardown ran');
}
