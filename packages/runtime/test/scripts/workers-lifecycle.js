// Several workers (--workers): setup() and teardown() run once, every iteration gets setup's data,
// VU ids and iteration numbers are the test's, unique across workers.
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const byVu = new Counter('by_vu');
const byIteration = new Counter('by_iteration');
export const options = {
  scenarios: { each: { executor: 'per-vu-iterations', vus: 4, iterations: 3 } },
  thresholds: {
    'by_vu{vu:1}': ['count==3'],
    'by_vu{vu:2}': ['count==3'],
    'by_vu{vu:3}': ['count==3'],
    'by_vu{vu:4}': ['count==3'],
    by_iteration: ['count==12'],
  },
};
export function setup() {
  console.log('setup ran');
  return { token: 'from-setup' };
}
export default function (data) {
  byVu.add(1, { vu: String(exec.vu.idInTest) });
  byIteration.add(1, { i: String(exec.scenario.iterationInTest), inst: String(exec.vu.idInInstance) });
  check(data, {
    'setup data': (d) => d.token === 'from-setup',
    '__VU is idInTest': () => __VU === exec.vu.idInTest,
  });
}
export function teardown(data) {
  console.log(`teardown ran with ${data.token}`);
}
