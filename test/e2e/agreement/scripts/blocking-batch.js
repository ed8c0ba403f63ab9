// Blocking mode with http.batch in its array and object forms, an http.url name tag, a response callback
// in the params and from setResponseCallback, and a VU tag (exec.vu.tags) that tags the iteration's samples.
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';

const BASE = __ENV.BASE;

export const options = { vus: 1, iterations: 2 };

http.setResponseCallback(http.expectedStatuses(200, 500));

export default function () {
  exec.vu.tags.phase = 'batch';
  const lists = [0].map(() =>
    http.batch([
      ['GET', `${BASE}/x`],
      { method: 'GET', url: http.url`${BASE}/u/${exec.scenario.iterationInTest}` },
    ]),
  );
  check(lists[0], { 'array batch: 2 answers': (r) => r.length === 2 && r[1].status === 200 });
  const byName = [0].map(() => http.batch({ a: `${BASE}/a`, f: `${BASE}/fail` }))[0];
  check(byName, { 'object batch: 200 and 500': (r) => r.a.status === 200 && r.f.status === 500 });
  [0].forEach(() => {
    http.get(`${BASE}/p`, { responseCallback: http.expectedStatuses(404) });
  });
}
