// k6chaijs as its README teaches it: synchronous k6/http calls inside describe() callbacks and
// inside an array callback, checked with expect(). Every assertion passes.
import http from 'k6/http';
import { describe, expect } from './lib/k6chaijs.js';

export const options = { vus: 2, iterations: 6, thresholds: { checks: ['rate==1'] } };

export default function () {
  describe('home page', () => {
    const res = http.get(`${__ENV.BASE}/ok`);
    expect(res.status, 'status').to.equal(200);
    expect(res.body, 'body').to.equal('ok');
  });
  describe('two pages', () => {
    const pages = ['/ok', '/echo?x=1'].map((p) => http.get(`${__ENV.BASE}${p}`));
    expect(pages, 'pages').to.have.lengthOf(2);
    expect(pages[1].json('query'), 'query').to.equal('x=1');
  });
}
