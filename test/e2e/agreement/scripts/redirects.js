// Redirects: each hop a request with its own url and name tags; maxRedirects and params.redirects;
// res.url is the last URL requested; a request stopped at maxRedirects is logged.
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 1, iterations: 1, maxRedirects: 2 };

export default function () {
  const B = __ENV.BASE;
  let r = http.get(`${B}/redirect/3`);
  check(r, {
    'maxRedirects stops at the redirection': (x) => x.status === 302 && x.url === `${B}/redirect/1`,
  });
  r = http.get(`${B}/redirect/3`, { redirects: 5 });
  check(r, { 'params.redirects follows to the end': (x) => x.status === 200 && x.url === `${B}/get` });
  r = http.get(`${B}/redirect/2`, { redirects: 0 });
  check(r, {
    'redirects 0 returns the first answer': (x) => x.status === 302 && x.url === `${B}/redirect/2`,
  });
  r = http.post(`${B}/redirect/1`, 'data');
  check(r, { 'a 302 after POST continues as GET': (x) => x.status === 200 && x.request.method === 'POST' });
}
