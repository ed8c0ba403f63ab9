// Without params.redirects or the maxRedirects option, k6 follows 10 redirects and logs the request it stopped.
import { check } from 'k6';
import http from 'k6/http';

export default function () {
  const r = http.get(`${__ENV.BASE}/redirect/12`);
  check(r, { 'stopped after 10 redirects': (x) => x.status === 302 && x.url === `${__ENV.BASE}/redirect/2` });
}
