// A blocking VU sleeping past its scenario's graceful stop is cut (its thread ends); the same VU then
// runs the next scenario on a new thread.
import http from 'k6/http';
import { check, sleep } from 'k6';

export const options = {
  scenarios: {
    long: { executor: 'constant-vus', vus: 1, duration: '300ms', gracefulStop: '0s', exec: 'long' },
    after: { executor: 'per-vu-iterations', vus: 1, iterations: 2, startTime: '1s', exec: 'after' },
  },
};

export function long() {
  sleep(30);
}

export function after() {
  [0].forEach(() => {
    check(http.get(`${__ENV.BASE}/a`), { 'after 200': (r) => r.status === 200 });
  });
}
