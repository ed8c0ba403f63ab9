// The shape of k6's thresholds_readme_example on a local h2 server: an HTTP/2 page checked for its
// protocol, a batch of tagged static assets in a group checked for connection reuse, a custom failure
// Rate with an abortOnFail threshold, and stages.
import { check, group, sleep } from 'k6';
import http from 'k6/http';
import { Rate } from 'k6/metrics';

const failureRate = new Rate('check_failure_rate');
const BASE = __ENV.H2_URL;

export const options = {
  insecureSkipTLSVerify: true,
  stages: [
    { target: 3, duration: '1s' },
    { target: 3, duration: '1s' },
    { target: 0, duration: '500ms' },
  ],
  thresholds: {
    http_req_duration: ['p(95)<750'],
    'http_req_duration{staticAsset:yes}': ['p(99)<500'],
    check_failure_rate: ['rate<0.01', { threshold: 'rate<=0.05', abortOnFail: true }],
  },
};

export default function () {
  const response = http.get(`${BASE}/`);
  const ok = check(response, {
    'http2 is used': (r) => r.proto === 'HTTP/2.0',
    'status is 200': (r) => r.status === 200,
    'content is present': (r) => r.body.indexOf('<title>HTTP/2.0</title>') !== -1,
  });
  failureRate.add(!ok);
  group('Static Assets', () => {
    const asset = (path) => ['GET', `${BASE}/static/${path}`, null, { tags: { staticAsset: 'yes' } }];
    const resps = http.batch([asset('site.css'), asset('favicon.ico'), asset('prisms.js')]);
    failureRate.add(
      !check(resps, {
        'status is 200': (r) => r[0].status === 200 && r[1].status === 200,
        'reused connection': (r) => r[0].timings.connecting === 0,
      }),
    );
  });
  sleep(Math.random() * 0.2 + 0.1);
}
