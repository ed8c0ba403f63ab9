// exec.test.fail() marks the test failed and the run goes on (k6-testing's soft assertions use it):
// every iteration and teardown run, the exit code is 110, which wins over a crossed threshold.
import { check } from 'k6';
import exec from 'k6/execution';

export const options = { vus: 1, iterations: 3, thresholds: { iterations: ['count>100'] } };

export default function () {
  if (exec.scenario.iterationInTest === 0) exec.test.fail('soft failure');
  if (exec.scenario.iterationInTest === 1) exec.test.fail();
  check(null, { 'the iteration goes on after fail()': () => true });
}

export function teardown() {
  check(null, { 'teardown runs': () => true });
}
