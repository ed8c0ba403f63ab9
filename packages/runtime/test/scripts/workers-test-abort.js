// test.abort() in VU 2 (the second worker's under --workers 2): the whole run stops, exit 108.
import { sleep } from 'k6';
import exec from 'k6/execution';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '30s' } } };
export default function () {
  if (exec.vu.idInTest === 2 && exec.vu.iterationInScenario === 2) exec.test.abort('enough');
  sleep(0.05);
}
export function teardown() {
  console.log('teardown ran');
}
