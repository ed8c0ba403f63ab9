// test.abort() from an iteration: exit code 108; teardown still runs.
import exec from 'k6/execution';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '10s' } } };
export default function () {
  if (__ITER === 2) exec.test.abort('enough');
}
export function teardown() {
  console.log('teardown ran');
}
