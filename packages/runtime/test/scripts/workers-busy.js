// Two VUs in iterations that never yield (one per worker under --workers 2): both interrupted when
// gracefulStop runs out, teardown once.
export const options = {
  scenarios: { busy: { executor: 'constant-vus', vus: 2, duration: '1s', gracefulStop: '0s' } },
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
