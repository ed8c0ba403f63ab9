// http.file() and object bodies: the server answers with what it received (Content-Type with the boundary
// masked, each part's headers and a digest of its bytes, parts sorted by name since k6's order is random),
// and each answer goes into a check's name, so the runtimes agree only when the server saw the same.
import { check } from 'k6';
import http from 'k6/http';

export const options = { vus: 1, iterations: 1 };
const bin = open('./data/bytes.bin', 'b');

function sent(name, body, params) {
  const res = http.post(`${__ENV.BASE}/echo`, body, params);
  check(res, { [`${name}: ${res.body}`]: (r) => r.status === 200 });
}

export default function () {
  const f = http.file(bin, 'bytes.bin', 'application/x-custom');
  check(f, {
    [`file fields: ${f.filename} ${f.content_type} ${f.data.byteLength}`]: () => true,
  });
  const plain = http.file('plain text');
  check(plain, {
    'default content type': (x) => x.content_type === 'application/octet-stream',
    'default filename is digits': (x) => /^\d+$/.test(x.filename),
  });
  sent('file and field', { field: 'value', upload: f });
  sent('string file, odd names', {
    'na"me': 'quoted',
    doc: http.file('hello\r\nworld', 'a"b\\c.txt', 'text/plain; charset=utf-8'),
  });
  sent('values', {
    upload: http.file('x', 'x.txt'),
    int: 42,
    float: 1.5,
    big: 1234567.5,
    yes: true,
    none: null,
    nested: { a: 1 },
    list: [1, 2],
  });
  sent('url-encoded', { b: '2', a: 'x y*~!', arr: [1, 'two'], n: null, f: 0.25 });
  sent(
    'own content type kept',
    { a: '1', up: http.file('z', 'z.txt') },
    {
      headers: { 'Content-Type': 'multipart/form-data; boundary=mine' },
    },
  );
}
