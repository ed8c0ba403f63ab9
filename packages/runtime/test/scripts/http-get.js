// k6/http through the engine: samples land in k6's built-in metrics with k6's tags.
import { check } from 'k6';
import http from 'k6/http';
export const options = {
  vus: 2,
  iterations: 6,
  thresholds: { 'http_req_duration{scenario:default}': ['p(95)<5000'], http_req_failed: ['rate==0'] },
};
export default async function () {
  const res = await http.asyncRequest('GET', `${__ENV.BASE_URL}/hello`, null, { tags: { name: 'hello' } });
  check(res, { 'status is 200': (r) => r.status === 200, body: (r) => r.body === 'hello world' });
}
