// Requests made inside check()'s functions, a common shorthand: check() calls them itself, so the
// loader cannot await them and the VUs block instead. One of them fails, and so does the run (exit 99):
// a promise taken for a passing check would turn it green.
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 2, iterations: 4, thresholds: { checks: ['rate==1'] } };

export default function () {
  check(null, {
    'a page answers 200': () => http.get(`${__ENV.BASE}/a`).status === 200,
    'the failing page answers 200': () => http.get(`${__ENV.BASE}/fail`).status === 200,
  });
}
