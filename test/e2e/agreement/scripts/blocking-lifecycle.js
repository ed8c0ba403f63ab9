// Blocking mode through setup() and teardown() (their synchronous calls sit in callbacks too), an
// iteration that throws, and a request that fails: the same counts, checks and exit code as k6.
import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';

const BASE = __ENV.BASE;

export const options = { vus: 2, iterations: 6, thresholds: { http_req_failed: ['rate<0.5'] } };

export function setup() {
  const paths = ['/s1', '/s2'].map((p) => http.get(`${BASE}${p}`).json('path'));
  check(paths, { 'setup: two paths': (x) => x.length === 2 });
  return { paths };
}

export default function (data) {
  data.paths.forEach((p) => {
    http.get(`${BASE}/it${p}`);
  });
  const n = exec.scenario.iterationInTest;
  if (n === 3) throw new Error(`thrown in iteration ${n}`);
  if (n === 4) [0].map(() => http.get(`${BASE}/fail`));
  sleep(0.01);
}

export function teardown() {
  [0].forEach(() => {
    check(http.get(`${BASE}/a`), { 'teardown: 200': (r) => r.status === 200 });
  });
}
