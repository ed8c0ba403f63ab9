// k6chaijs with failing assertions: describe() records each failed expectation as a failed check
// and the iteration goes on; checks' threshold fails the run (exit 99 in k6).
import http from 'k6/http';
import { describe, expect } from './lib/k6chaijs.js';

export const options = { vus: 1, iterations: 3, thresholds: { checks: ['rate==1'] } };

export default function () {
  describe('wrong status', () => {
    const res = http.get(`${__ENV.BASE}/missing`);
    expect(res.status, 'status').to.equal(200);
  });
  describe('right status', () => {
    expect(http.get(`${__ENV.BASE}/ok`).status, 'status').to.equal(200);
  });
  // Not JSON.parse('{'): its message is the JS engine's own (goja in k6, V8 here).
  describe('an error that is no assertion', () => {
    throw new TypeError('not an assertion');
  });
}
