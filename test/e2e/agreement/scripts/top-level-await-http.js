// Top-level await beside k6/http's synchronous calls: named (destructured) and default imports, inside a
// plain function, a group() callback, and sleep() between them.
import { get } from 'k6/http';
import http from 'k6/http';
import { check, sleep, group } from 'k6';
const base = await Promise.resolve(__ENV.BASE);
export const options = { vus: 1, iterations: 2 };
function fetch() {
  return get(`${base}/ok`);
}
export default function () {
  const r = fetch();
  sleep(0.01);
  const r2 = http.get(`${base}/ok`);
  group('g', () => {
    check(get(`${base}/ok`), { 'group get 200': (x) => x.status === 200 });
  });
  check(r, { 'named get 200': (x) => x.status === 200 });
  check(r2, { 'default get 200': (x) => x.status === 200 });
}
