// http.url`...` returns k6's URL object: name (placeholders as ${}), url, clean_url (credentials
// masked), clean() and getURL(); libraries such as httpx read them. Values are in the check names.
import { check } from 'k6';
import http from 'k6/http';

export const options = { iterations: 1 };

export default function () {
  const id = 5;
  const q = 'a b';
  const shapes = {
    template: http.url`http://127.0.0.1:1/items/${id}?q=${q}`,
    plain: http.url`http://127.0.0.1:1/plain`,
    credentials: http.url`http://user:pw@127.0.0.1:1/${id}`,
  };
  for (const [what, u] of Object.entries(shapes)) {
    check(u, {
      [`${what} ${JSON.stringify(u)}`]: (v) => typeof v === 'object',
      [`${what} own keys ${Object.keys(u).join()}`]: () => true,
      [`${what} clean() ${u.clean()}`]: (v) => v.clean() === v.clean_url,
    });
  }
  const parsed = http.url`http://u:p@127.0.0.1:1/items/${id}?x=1#f`.getURL();
  check(parsed, {
    [`getURL() ${JSON.stringify(parsed)}`]: (p) => p.scheme === 'http',
    [`getURL() methods ${parsed.hostname()} ${parsed.port()} ${parsed.requestURI()}`]: () => true,
  });
}
