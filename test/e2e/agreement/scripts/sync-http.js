// A typical k6 script: synchronous k6/http calls (direct, through helpers, closures, an object's method,
// group() and batch()), check, sleep, thresholds and stages. SHAPE=fixed runs a fixed number of
// iterations instead of stages; FAIL=1 adds a request that fails http_req_failed's threshold (exit 99).
import { check, group, sleep } from 'k6';
import http from 'k6/http';

const BASE = __ENV.BASE;
const shapes = {
  stages: {
    stages: [
      { duration: '1s', target: 3 },
      { duration: '1s', target: 3 },
      { duration: '500ms', target: 0 },
    ],
  },
  fixed: { vus: 2, iterations: 6 },
};

export const options = {
  ...shapes[__ENV.SHAPE || 'stages'],
  thresholds: {
    http_req_failed: ['rate<0.01'],
    checks: ['rate==1'],
    'http_req_duration{name:home}': ['max<5000'],
  },
};

function home() {
  return http.get(`${BASE}/ok`, { tags: { name: 'home' } });
}

const api = {
  echo(body) {
    return http.post(`${BASE}/ok`, JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
  },
};

export default function () {
  const res = home();
  check(res, { 'home is 200': (r) => r.status === 200, 'home says ok': (r) => r.body === 'ok' });
  const fetchIt = (path) => http.request('GET', `${BASE}${path}`);
  check(fetchIt('/ok'), { 'closure is 200': (r) => r.status === 200 });
  group('api', () => {
    check(api.echo({ a: 1 }), { 'post is 200': (r) => r.status === 200 });
  });
  const [a, b] = http.batch([`${BASE}/ok`, ['GET', `${BASE}/ok`, null, { tags: { name: 'batched' } }]]);
  check([a, b], { 'batch is 200': (rs) => rs.every((r) => r.status === 200) });
  check(http, {
    "k6/http's constants": (h) =>
      [
        h.TLS_1_2,
        h.TLS_1_3,
        h.OCSP_STATUS_GOOD,
        h.OCSP_STATUS_SERVER_FAILED,
        h.OCSP_REASON_AA_COMPROMISE,
      ].join() === 'tls1.2,tls1.3,good,server_failed,aa_compromise',
  });
  if (__ENV.FAIL) http.get(`${BASE}/missing`);
  const t0 = Date.now();
  sleep(0.1);
  check(Date.now() - t0, { 'code after sleep runs after it': (d) => d >= 95 });
}
