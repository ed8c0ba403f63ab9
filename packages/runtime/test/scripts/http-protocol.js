// k6/http through the engine: asyncRequest, checks, name tags and thresholds on sub-metrics.
import { check } from 'k6';
import http from 'k6/http';

export const options = {
  scenarios: { web: { executor: 'shared-iterations', vus: 2, iterations: 10 } },
  thresholds: {
    'http_req_duration{name:small}': ['max<10000'],
    'http_reqs{status:404}': ['count==10'],
    http_req_failed: ['rate<=0.5'],
  },
};

export default async function () {
  const ok = await http.asyncRequest('GET', `${__ENV.BASE}/small`, null, { tags: { name: 'small' } });
  const missing = await http.asyncRequest('GET', `${__ENV.BASE}/missing`);
  check(ok, {
    'status is 200': (r) => r.status === 200,
    'body is the 16 bytes': (r) => r.body === '0123456789abcdef',
    'header canonical': (r) => r.headers['Content-Type'] === 'text/plain',
  });
  check(missing, { 'status is 404': (r) => r.status === 404 });
}
