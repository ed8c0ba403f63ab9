// One run's samples for the remote-write output: HTTP in and out of a group, a name tag, a check, and one
// custom metric of each type. BASE is a local HTTP server.
import http from 'k6/http';
import { check, group, sleep } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';

const jobs = new Counter('rw_jobs');
const depth = new Gauge('rw_depth');
const hits = new Rate('rw_hits');
const wait = new Trend('rw_wait', true);

export const options = { vus: 2, iterations: 6 };

export default function () {
  group('shop', () => {
    const res = http.get(`${__ENV.BASE}/item`, { tags: { name: 'item' } });
    check(res, { 'item is 200': (r) => r.status === 200 });
  });
  http.get(`${__ENV.BASE}/home`);
  jobs.add(2, { kind: 'batch' });
  depth.add(__VU);
  hits.add(__ITER % 2 === 0);
  wait.add(12.5);
  sleep(0.5);
}
