// httpx's asyncRequest and the session's synchronous calls in one iteration.
import { check } from 'k6';
import { Httpx } from './lib/httpx.js';

export const options = { vus: 1, iterations: 3, thresholds: { checks: ['rate==1'] } };

const session = new Httpx({ baseURL: __ENV.BASE });

export default async function () {
  const [x, y] = await Promise.all([
    session.asyncRequest('GET', '/echo?a=1'),
    session.asyncRequest('GET', '/echo?a=2'),
  ]);
  const z = session.put('/echo', JSON.stringify({ n: __ITER }), {
    headers: { 'Content-Type': 'application/json' },
  });
  check(null, {
    'both async answers': () => x.json('query') === 'a=1' && y.json('query') === 'a=2',
    'put body': () => JSON.parse(z.json('body')).n === __ITER,
    'put method': () => z.json('method') === 'PUT',
  });
}
