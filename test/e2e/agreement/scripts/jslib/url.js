// The URL polyfill: build a URL with URLSearchParams, request it, read it back.
import http from 'k6/http';
import { check } from 'k6';
import { URL, URLSearchParams } from './lib/url.js';

export const options = { vus: 1, iterations: 2, thresholds: { checks: ['rate==1'] } };

export default function () {
  const url = new URL(`${__ENV.BASE}/echo`);
  url.searchParams.append('q', 'a b&c');
  url.searchParams.append('page', String(__ITER));
  const params = new URLSearchParams([
    ['x', '1'],
    ['y', 'two'],
  ]);
  const res = http.get(url.toString());
  const back = new URLSearchParams(res.json('query'));
  check(res, {
    'query round trip': () => back.get('q') === 'a b&c' && back.get('page') === String(__ITER),
    'params string': () => params.toString() === 'x=1&y=two',
    'host and path': () => url.pathname === '/echo' && url.hostname === '127.0.0.1',
  });
}
