// Async HTTP against the test's local server: counts, checks, tags and thresholds on sub-metrics.
import { check } from 'k6';
import http from 'k6/http';

export const options = {
  vus: 1,
  iterations: 3,
  thresholds: {
    'http_req_duration{status:200}': ['max<10000'],
    http_req_failed: ['rate<0.6'],
    'http_reqs{name:missing}': ['count==3'],
  },
};

export default async function () {
  const ok = await http.asyncRequest('GET', `${__ENV.BASE}/ok`);
  check(ok, { 'status 200': (r) => r.status === 200, 'body ok': (r) => r.body === 'ok' });
  const missing = await http.asyncRequest('POST', `${__ENV.BASE}/missing`, 'abc', {
    tags: { name: 'missing' },
  });
  check(missing, { 'status 404': (r) => r.status === 404 });
}
