// Several scenarios at once: startTime, exec, env and tags per scenario (k6 docs: Scenarios).
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const calls = new Counter('calls');
export const options = {
  scenarios: {
    first: {
      executor: 'shared-iterations',
      vus: 2,
      iterations: 3,
      exec: 'first',
      env: { WHO: 'first' },
      tags: { kind: 'a' },
    },
    second: {
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 2,
      exec: 'second',
      startTime: '300ms',
      tags: { kind: 'b' },
    },
  },
  thresholds: {
    'iterations{scenario:first}': ['count==3'],
    'iterations{scenario:second}': ['count==2'],
    'calls{kind:a}': ['count==3'],
    'calls{kind:b}': ['count==2'],
  },
};
export function first() {
  calls.add(1);
  check(null, { 'first sees its env': () => __ENV.WHO === 'first' && exec.scenario.name === 'first' });
}
export function second() {
  calls.add(1);
  check(null, {
    'second has no WHO': () => __ENV.WHO === undefined,
    'second started after startTime': () => exec.instance.currentTestRunDuration >= 290,
  });
}
