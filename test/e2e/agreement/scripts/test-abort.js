// exec.test.abort() in the fourth iteration: exit 108; k6 counts the aborting iteration.
import { check } from 'k6';
import exec from 'k6/execution';

export const options = { vus: 1, iterations: 50 };

export default function () {
  if (__ITER === 3) exec.test.abort('stop at 3');
}

export function teardown() {
  check(1, { 'teardown ran': () => true });
}
