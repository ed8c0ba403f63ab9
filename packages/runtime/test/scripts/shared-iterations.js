// shared-iterations: `iterations` in total, shared among `vus` VUs (k6 docs: Shared iterations).
import { Counter } from 'k6/metrics';
const perVu = new Counter('per_vu');
export const options = {
  scenarios: { shared: { executor: 'shared-iterations', vus: 3, iterations: 10 } },
  thresholds: { 'per_vu{vu:1}': ['count>=0'], 'per_vu{vu:2}': ['count>=0'], 'per_vu{vu:3}': ['count>=0'] },
};
export default async function () {
  perVu.add(1, { vu: String(__VU) });
  await null;
}
