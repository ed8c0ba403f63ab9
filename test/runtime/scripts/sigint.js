// Stopped by SIGINT: teardown and the summary still run; exit code 105.
import { sleep } from 'k6';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '60s' } } };
export function setup() {
  console.log('setup done');
}
export default async function () {
  await sleep(0.05);
}
export function teardown() {
  console.log('teardown ran');
}
