// k6-testing's expect(): passing assertions, and in the "broken" scenario a failing one, which
// aborts the test (exit 108 in k6).
import http from 'k6/http';
import { expect } from './lib/k6-testing.js';

export const options = {
  scenarios: {
    good: { executor: 'shared-iterations', vus: 1, iterations: 3, exec: 'good' },
    broken: { executor: 'shared-iterations', vus: 1, iterations: 2, exec: 'broken' },
  },
};

export function good() {
  const res = http.get(`${__ENV.BASE}/echo?g=1`);
  expect(res.status).toBe(200);
  expect(res.json()).toHaveProperty('query', 'g=1');
  expect(res.body.length).toBeGreaterThan(10);
}

export function broken() {
  const res = http.get(`${__ENV.BASE}/missing`);
  expect(res.status, 'the missing page').toBe(200);
  http.get(`${__ENV.BASE}/ok?after=1`);
}
