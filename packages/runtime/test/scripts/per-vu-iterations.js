// per-vu-iterations: each of `vus` VUs runs exactly `iterations` (k6 docs: Per VU iterations).
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const perVu = new Counter('per_vu');
// Module state is per VU, as k6 evaluates the init context once per VU.
let expectedIter = 0;
const initVu = __VU;
export const options = {
  scenarios: { each: { executor: 'per-vu-iterations', vus: 3, iterations: 4 } },
  thresholds: { 'per_vu{vu:1}': ['count==4'], 'per_vu{vu:2}': ['count==4'], 'per_vu{vu:3}': ['count==4'] },
};
export default async function () {
  const vu = __VU;
  const iter = __ITER;
  perVu.add(1, { vu: String(vu) });
  // Other VUs run while this one sleeps; the globals must still read this VU's values.
  await sleep(0.01 * vu);
  check(null, {
    'init ran in this VU': () => initVu === vu,
    '__VU stable across awaits': () => __VU === vu && exec.vu.idInTest === vu,
    '__ITER counts per VU': () => __ITER === iter && iter === expectedIter,
    'exec iteration ids match': () =>
      exec.vu.iterationInScenario === iter && exec.vu.iterationInInstance === iter,
    'scenario name': () => exec.scenario.name === 'each' && exec.scenario.executor === 'per-vu-iterations',
  });
  expectedIter++;
}
