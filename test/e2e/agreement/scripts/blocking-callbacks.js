// Synchronous k6/http calls where the Node runtime's loader cannot await them: in a forEach callback,
// in a getter, and in a describe(name, fn)-style wrapper of the script's own (as functional-test
// libraries write them). Groups, checks, a custom Counter and Trend, cookies kept across calls within
// an iteration, and thresholds on them; 4 VUs share 12 iterations. FAIL=1 crosses a threshold.
import http from 'k6/http';
import { check, group } from 'k6';
import { Counter, Trend } from 'k6/metrics';

const BASE = __ENV.BASE;
const wrapped = new Counter('wrapped_calls');
const echoTime = new Trend('echo_time', true);

export const options = {
  vus: 4,
  iterations: 12,
  thresholds: {
    checks: ['rate==1'],
    wrapped_calls: [__ENV.FAIL ? 'count<12' : 'count==12'],
    'http_reqs{group:::suite::cookies}': ['count==24'],
  },
};

function describe(name, fn) {
  return group(name, () => {
    try {
      fn();
    } finally {
      wrapped.add(1);
    }
  });
}

const api = {
  get status() {
    return http.get(`${BASE}/status`);
  },
};

export default function () {
  ['/a', '/b', '/c'].forEach((p) => {
    check(http.get(`${BASE}${p}`), { 'list: 200': (r) => r.status === 200 });
  });
  check(api.status, { 'getter: json ok': (r) => r.json('ok') === true });
  group('suite', () => {
    describe('cookies', () => {
      http.get(`${BASE}/set-cookie`);
      const r = http.get(`${BASE}/echo-cookie`);
      echoTime.add(r.timings.duration);
      check(r, { 'cookies: kept': (x) => x.json('cookie') === 'sid=abc' });
    });
  });
}
