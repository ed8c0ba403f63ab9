// k6-utils: random helpers, findBetween, and its check() that also takes async functions.
import http from 'k6/http';
import { check, findBetween, randomIntBetween, randomItem, randomString, uuidv4 } from './lib/k6-utils.js';

export const options = { vus: 1, iterations: 4, thresholds: { checks: ['rate==1'] } };

export default async function () {
  const n = randomIntBetween(1, 9);
  const res = http.get(`${__ENV.BASE}/echo?n=${n}&s=${randomString(8)}&i=${randomItem(['a', 'b'])}`);
  const body = `<p>${res.json('query')}</p>`;
  await check(res, {
    'status is 200': (r) => r.status === 200,
    'uuid is v4': () =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuidv4()),
    'findBetween finds the query': () => findBetween(body, '<p>', '</p>').startsWith(`n=${n}&`),
    'an async check': async (r) =>
      (await http.asyncRequest('GET', `${__ENV.BASE}/ok`)).body === r.body.slice(0, 0) + 'ok',
  });
}
