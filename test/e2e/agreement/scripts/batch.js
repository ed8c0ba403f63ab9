// http.batch under the batch and batchPerHost options: the server records the most requests in
// flight per client and host; the test compares them with the limits.
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 1, iterations: 1, batch: 3, batchPerHost: 2 };

export default function () {
  const reqs = [];
  // All of one host's requests first: its slots bind while workers wait on them; then both hosts' at once.
  for (let i = 0; i < 6; i++) reqs.push(['GET', `${__ENV.BASE}/slow`]);
  for (let i = 0; i < 6; i++) reqs.push(['GET', `${__ENV.BASE2}/slow`]);
  const res = http.batch(reqs);
  check(res, { 'all 12 answered': (rs) => rs.length === 12 && rs.every((x) => x.status === 200) });
  const keyed = http.batch({ one: `${__ENV.BASE}/get`, two: ['GET', `${__ENV.BASE2}/get`] });
  check(keyed, { 'keyed batch': (k) => k.one.status === 200 && k.two.status === 200 });
}
