// httpx: a session with a base URL, headers and tags; its synchronous calls sit in the library's
// methods; http.url names a dynamic URL, batch() runs request objects.
import http from 'k6/http';
import { check } from 'k6';
import { Get, Httpx } from './lib/httpx.js';

export const options = { vus: 2, iterations: 4, thresholds: { checks: ['rate==1'] } };

const session = new Httpx({ baseURL: __ENV.BASE, headers: { 'X-Session': 'yes' }, timeout: 5000 });
session.addTag('api', 'v1');

export default function () {
  const home = session.get('/ok');
  const posted = session.post('/echo', 'payload', { headers: { 'Content-Type': 'text/plain' } });
  const id = 1 + (__ITER % 3);
  const item = session.get(http.url`/echo?item=${id}`);
  const [a, b] = session.batch([new Get('/ok'), new Get('/echo?b=1')]);
  check(null, {
    'home is ok': () => home.status === 200 && home.body === 'ok',
    'session header sent': () => posted.json('headers')['x-session'] === 'yes',
    'body posted': () => posted.json('body') === 'payload',
    'item query': () => item.json('query') === `item=${id}`,
    'batch answered': () => a.status === 200 && b.json('query') === 'b=1',
  });
}
