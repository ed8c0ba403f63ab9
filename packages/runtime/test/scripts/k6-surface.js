// k6's run surface (test/e2e/runtime/k6-surface.test.ts): what the environment, flags and config file set
// shows in the requests and lifecycle. The server echoes the User-Agent in X-Ua.
import http from 'k6/http';
import { check } from 'k6';
import ws from 'k6/ws';

export const options = { tags: { from: 'script' } };

export function setup() {
  console.log('SETUP RAN');
}

export default async function () {
  const res = await http.asyncRequest('GET', `${__ENV.BASE}/ua`);
  check(res, {
    'user agent': (r) => r.headers['X-Ua'] === __ENV.WANT_UA,
    'body discarded': (r) => r.body === null,
  });
  // A WebSocket handshake the server answers with a plain 200: its headers still come back.
  const handshake = await ws.connect(`${__ENV.BASE.replace('http', 'ws')}/ua`, () => {});
  check(handshake, { 'ws user agent': (r) => r.headers['X-Ua'] === __ENV.WANT_UA });
  const hop = await http.asyncRequest('GET', `${__ENV.BASE}/redirect/2`);
  check(hop, { 'stopped at max redirects': (r) => r.status === 302 });
  let threw = false;
  try {
    await http.asyncRequest('GET', 'http://127.0.0.1:1/');
  } catch (e) {
    threw = String(e).startsWith('GoError: Get "http://127.0.0.1:1/": ');
  }
  check(null, { 'transport error thrown': () => threw });
  if (__ENV.WANT_NO_SYSTEM_ENV) check(null, { 'no system env': () => __ENV.PATH_CHECK === undefined });
}

export function teardown() {
  console.log('TEARDOWN RAN');
}
