// options.systemTags: only the listed system tags stay on samples, and sub-metrics match on those alone.
import { check } from 'k6';
import http from 'k6/http';
export const options = {
  vus: 1,
  iterations: 3,
  systemTags: JSON.parse(__ENV.SYSTEM_TAGS),
  summaryTrendStats: ['count', 'max'],
  thresholds: {
    'http_req_duration{scenario:default}': ['max>=0'],
    'http_req_duration{method:GET}': ['max>=0'],
  },
};
export default async function () {
  const res = await http.asyncRequest('GET', `${__ENV.BASE_URL}/hello`, null, { tags: { kind: 'mine' } });
  check(res, { 'status is 200': (r) => r.status === 200 });
}
