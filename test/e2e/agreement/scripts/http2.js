// HTTP/2 by ALPN over TLS: each server's protocol as the client reports it (res.proto, status_text).
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 1, iterations: 1, insecureSkipTLSVerify: true };

const servers = {
  'h2 and http/1.1': { url: __ENV.H2_URL, proto: 'HTTP/2.0' },
  'h2 only': { url: __ENV.H2ONLY_URL, proto: 'HTTP/2.0' },
  'http/1.1 only': { url: __ENV.H1_URL, proto: 'HTTP/1.1' },
};

export default function () {
  for (const [name, s] of Object.entries(servers)) {
    const res = http.get(`${s.url}/page`, { tags: { server: name } });
    check(res, {
      [`${name}: status is 200`]: (r) => r.status === 200,
      [`${name}: protocol is ${s.proto}`]: (r) => r.proto === s.proto,
      [`${name}: status text`]: (r) => r.status_text === '200 OK',
      [`${name}: the server saw ${s.proto}`]: (r) => r.body.includes(`<title>${s.proto}</title>`),
    });
  }
  // Plain text: Go's client does not speak h2c, so a prior-knowledge HTTP/2 server fails the request.
  const plain = http.get(`${__ENV.H2C_URL}/page`, { tags: { server: 'h2c' } });
  check(plain, { 'h2c: no response': (r) => r.status === 0 && r.proto === '' });
}
