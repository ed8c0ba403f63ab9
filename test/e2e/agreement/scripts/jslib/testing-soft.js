// k6-testing's soft assertions: a failing expect.soft() marks the test failed and the iteration
// goes on (k6 exits 110 at the end).
import http from 'k6/http';
import { expect } from './lib/k6-testing.js';

export const options = { vus: 1, iterations: 3 };

export default function () {
  const res = http.get(`${__ENV.BASE}/missing`);
  expect.soft(res.status).toBe(200);
  http.get(`${__ENV.BASE}/ok`);
}
