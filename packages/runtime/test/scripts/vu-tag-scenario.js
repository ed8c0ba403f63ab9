// exec.vu.tags may replace the `scenario` system tag, as in k6: later samples of the VU carry the new value.
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const c = new Counter('tagged');
export const options = {
  scenarios: { s: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } },
  thresholds: { 'tagged{scenario:s}': ['count==2'], 'tagged{scenario:later}': ['count==4'] },
};
export default function () {
  if (__ITER > 0) exec.vu.metrics.tags.scenario = 'later';
  c.add(1);
}
