// k6's execution shortcuts: which "default" scenario vus/duration/iterations/stages stand for.
// SHAPE picks the options; the check names the executor each iteration ran under.
import { check } from 'k6';
import exec from 'k6/execution';

const shapes = {
  none: {},
  vus: { vus: 2 },
  'vus-over-scenarios': {
    vus: 2,
    scenarios: { a: { executor: 'per-vu-iterations', vus: 1, iterations: 3 } },
  },
  'empty-stages': { vus: 2, stages: [] },
  'empty-scenarios': { scenarios: {} },
  'iterations-and-scenarios': { iterations: 2, scenarios: { a: { executor: 'per-vu-iterations' } } },
  'duration-and-stages': { duration: '1s', stages: [{ duration: '1s', target: 1 }] },
  'zero-duration': { duration: '0s' },
};

export const options = shapes[__ENV.SHAPE ?? 'none'];

export default function () {
  check(null, { [`${exec.scenario.name} ${exec.scenario.executor}`]: () => true });
}
