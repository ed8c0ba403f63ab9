// k6-testing's expect(): passing assertions in every iteration, and in the second a failing one,
// which aborts the test (exit 108 in k6). One VU, so the counts do not depend on timing.
import http from 'k6/http';
import { expect } from './lib/k6-testing.js';

export const options = { vus: 1, iterations: 3 };

export default function () {
  const res = http.get(`${__ENV.BASE}/echo?g=1`);
  expect(res.status).toBe(200);
  expect(res.json()).toHaveProperty('query', 'g=1');
  expect(res.body.length).toBeGreaterThan(10);
  if (__ITER === 1) {
    expect(http.get(`${__ENV.BASE}/missing`).status, 'the missing page').toBe(200);
    http.get(`${__ENV.BASE}/ok?after=1`);
  }
}
