// k6-summary: handleSummary writes the text summary and a JUnit report of the thresholds.
import http from 'k6/http';
import { check } from 'k6';
import { jUnit, textSummary } from './lib/k6-summary.js';

export const options = {
  vus: 1,
  iterations: 3,
  thresholds: {
    http_req_failed: ['rate<0.5'],
    checks: ['rate>0.9'],
    'http_req_duration{name:home}': ['p(95)<5000'],
  },
};

export default function () {
  const res = http.get(`${__ENV.BASE}/ok`, { tags: { name: 'home' } });
  check(res, { 'status 200': (r) => r.status === 200 });
}

export function handleSummary(data) {
  const junit = jUnit(data, { name: 'k6 thresholds' });
  const text = textSummary(data, { indent: ' ', enableColors: false });
  return { [__ENV.SUMMARY_FILE]: JSON.stringify({ junit, text }), stdout: text };
}
