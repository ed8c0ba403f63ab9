// exec.vu.tags: a tag set by the script goes on every later sample of that VU (k6/execution).
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const c = new Counter('tagged');
export const options = {
  scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } },
  thresholds: { 'tagged{phase:warm}': ['count==4'], 'tagged{phase:cold}': ['count==2'] },
};
export default function () {
  exec.vu.tags.phase = __ITER === 0 ? 'cold' : 'warm';
  c.add(1);
  if (exec.vu.tags.scenario !== 's' || exec.vu.tags.phase === undefined) throw new Error('tags not readable');
}
