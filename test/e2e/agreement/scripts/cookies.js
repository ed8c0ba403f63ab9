// Cookie jars against the test's httpbin-like server: the VU's jar (new each iteration), cookies a
// server sets sent back (after a redirect too), the `cookies` and `jar` params, http.CookieJar's methods.
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 1, iterations: 2 };

const body = (r) => JSON.parse(r.body);
// k6 hands cookiesForURL's result over from a Go map, whose keys come in no fixed order.
const sorted = (cookies) =>
  JSON.stringify(
    Object.keys(cookies)
      .sort()
      .map((k) => [k, cookies[k]]),
  );

export default function () {
  const B = __ENV.BASE;
  const jar = http.cookieJar();
  check(jar, { 'jar empty at iteration start': (j) => Object.keys(j.cookiesForURL(`${B}/`)).length === 0 });
  let r = http.get(`${B}/cookies/set?a=1&b=2`);
  check(r, {
    'res.cookies has the set cookies': (x) => x.cookies.a[0].value === '1' && x.cookies.b[0].path === '/',
    'res.cookies fields': (x) =>
      JSON.stringify(Object.keys(x.cookies.a[0]).sort()) ===
      '["domain","expires","http_only","max_age","name","path","secure","value"]',
    'no max_age is 0': (x) => x.cookies.a[0].max_age === 0,
  });
  r = http.get(`${B}/cookies`);
  check(r, {
    'cookies sent back': (x) => body(x).header === 'a=1; b=2',
    'request.cookies lists them': (x) => x.request.cookies.a[0].value === '1',
  });
  // One param cookie per request: k6 reads the param from a Go map, in no fixed order.
  r = http.get(`${B}/cookies`, { cookies: { c: '3' } });
  check(r, { 'param cookies go first': (x) => body(x).header === 'c=3; a=1; b=2' });
  r = http.get(`${B}/cookies`, { cookies: { b: { value: 'r', replace: true } } });
  check(r, { 'replace drops the jar cookie': (x) => body(x).header === 'b=r; a=1' });
  r = http.get(`${B}/cookies`, { jar: null });
  check(r, { 'a null jar is the VU jar': (x) => body(x).header === 'a=1; b=2' });
  const own = new http.CookieJar();
  r = http.get(`${B}/cookies`, { jar: own });
  check(r, { 'a new jar is empty': (x) => body(x).header === '' });
  own.set(B, 'x', 'y', { path: '/' });
  r = http.get(`${B}/cookies/set?o=1`, { jar: own });
  check(own, {
    'set and server cookies in the own jar': (j) =>
      sorted(j.cookiesForURL(`${B}/cookies`)) === '[["o",["1"]],["x",["y"]]]',
  });
  check(jar, { 'the VU jar untouched by the own jar': (j) => j.cookiesForURL(`${B}/`).o === undefined });
  jar.delete(B, 'a');
  check(jar, { 'delete removes one': (j) => JSON.stringify(j.cookiesForURL(`${B}/`)) === '{"b":["2"]}' });
  jar.clear(B);
  check(jar, { 'clear removes all': (j) => JSON.stringify(j.cookiesForURL(`${B}/`)) === '{}' });
  r = http.get(`${B}/cookies/set-redirect?z=9`);
  check(r, {
    'a redirect sets cookies for the next hop': (x) => body(x).header === 'z=9',
    'res.cookies is the last response': (x) => Object.keys(x.cookies).length === 0,
  });
}
