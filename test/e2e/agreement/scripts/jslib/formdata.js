// The formdata polyfill: a multipart/form-data body with a text field and two http.file() parts.
import http from 'k6/http';
import { check } from 'k6';
import { FormData } from './lib/formdata.js';

export const options = { vus: 1, iterations: 2, thresholds: { checks: ['rate==1'] } };

const bytes = new Uint8Array([0, 1, 2, 250, 255]).buffer;

export default function () {
  const fd = new FormData();
  fd.append('title', 'a picture');
  fd.append('image', http.file(bytes, 'pixel.bin', 'application/octet-stream'));
  fd.append('note', http.file('plain text', 'note.txt'));
  const res = http.post(`${__ENV.BASE}/multipart`, fd.body(), {
    headers: { 'Content-Type': `multipart/form-data; boundary=${fd.boundary}` },
  });
  const parts = res.json('parts');
  check(parts, {
    'three parts': (p) => p.length === 3,
    'text field': (p) => p[0].name === 'title' && p[0].data === 'a picture',
    'binary file': (p) =>
      p[1].filename === 'pixel.bin' && p[1].type === 'application/octet-stream' && p[1].hex === '000102faff',
    'text file': (p) => p[2].filename === 'note.txt' && p[2].data === 'plain text',
  });
}
