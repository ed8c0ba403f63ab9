// An abortOnFail threshold crossed by the samples of several workers' VUs: exit 99, teardown once.
import { sleep } from 'k6';
import { Counter } from 'k6/metrics';
const errors = new Counter('errors');
export const options = {
  scenarios: { s: { executor: 'constant-vus', vus: 4, duration: '30s' } },
  thresholds: { errors: [{ threshold: 'count<1', abortOnFail: true }] },
};
export default function () {
  errors.add(1);
  sleep(0.05);
}
export function teardown() {
  console.log('teardown ran');
}
