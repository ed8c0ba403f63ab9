// abortOnFail stops the test early with exit code 99.
import { Counter } from 'k6/metrics';
const errors = new Counter('errors');
export const options = {
  scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '20s' } },
  thresholds: { errors: [{ threshold: 'count<1', abortOnFail: true }] },
};
export default async function () {
  errors.add(1);
  await new Promise((r) => setTimeout(r, 50));
}
