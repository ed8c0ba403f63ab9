// An abortOnFail threshold stops a 20 s test early with exit code 99.
import { sleep } from 'k6';
import { Counter } from 'k6/metrics';

const seen = new Counter('errors_seen');

export const options = {
  vus: 1,
  duration: '20s',
  thresholds: { errors_seen: [{ threshold: 'count<3', abortOnFail: true }] },
};

export default function () {
  seen.add(1);
  sleep(0.1);
}
