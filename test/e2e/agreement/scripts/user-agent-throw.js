// userAgent and throw: the server echoes the User-Agent; a refused connection throws under throw.
import http from 'k6/http';
import { check } from 'k6';

export const options = { iterations: 1, userAgent: 'agreement-agent/1', throw: true };

export default function () {
  const res = http.get(`${__ENV.BASE}/ua`);
  check(res, { 'user agent sent': (r) => r.headers['X-Ua'] === 'agreement-agent/1' });
  let thrown = '';
  try {
    http.get('http://127.0.0.1:1/');
  } catch (e) {
    thrown = String(e);
  }
  check(thrown, {
    'transport error thrown as a GoError': (t) => t.startsWith('GoError: Get "http://127.0.0.1:1/": '),
  });
}
