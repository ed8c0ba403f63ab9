// Every synchronous k6/http form, awaited by the loader: direct, named imports, a helper, a class
// method, batch in its array and object forms; sleep() then delays the code after it, as in k6.
import { check, sleep } from 'k6';
import http, { del, head, options as opts, patch, put } from 'k6/http';

export const options = { iterations: 2 };
const BASE = __ENV.BASE;

class Api {
  small() {
    return http.get(`${BASE}/small`);
  }
}
const api = new Api();
function status(r) {
  return r.status;
}

export default function () {
  check(api.small(), { 'method then get': (r) => r.body === '0123456789abcdef' });
  const statuses = [
    status(http.post(`${BASE}/small`, 'x')),
    put(`${BASE}/small`, 'x').status,
    patch(`${BASE}/small`).status,
    del(`${BASE}/small`).status,
    head(`${BASE}/small`).status,
    opts(`${BASE}/small`).status,
    http.request('GET', `${BASE}/nope`).status,
  ];
  check(statuses, { 'every form answered': (s) => s.join() === '200,200,200,200,200,200,404' });
  const list = http.batch([`${BASE}/small`, ['GET', `${BASE}/nope`]]);
  const keyed = http.batch({ a: { method: 'GET', url: `${BASE}/small` } });
  check(null, { 'batch forms': () => list[1].status === 404 && keyed.a.status === 200 });
  const t0 = Date.now();
  sleep(0.05);
  check(Date.now() - t0, { 'sleep blocks the code after it': (d) => d >= 45 });
}
