// Stopped by SIGINT: teardown and the summary still run; exit code 105.
import { sleep } from 'k6';
import exec from 'k6/execution';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '60s' } } };
export function setup() {
  console.log('setup done');
}
export default async function () {
  // The test signals on this line: by then an iteration has completed, so the summary counts it.
  if (exec.vu.idInTest === 1 && exec.vu.iterationInScenario === 1) console.log('iterated');
  await sleep(0.05);
}
export function teardown() {
  console.log('teardown ran');
}
