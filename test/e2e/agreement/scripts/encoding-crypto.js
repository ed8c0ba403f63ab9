// One-offs of k6/encoding and k6/crypto: a null encoding is std; hashers digest again and
// go on updating after a digest. A failed check crosses the threshold (exit 99).
import { check } from 'k6';
import crypto from 'k6/crypto';
import encoding from 'k6/encoding';

export const options = { thresholds: { checks: ['rate==1'] } };

export default function () {
  const b64 = encoding.b64encode('hello', null);
  const h = crypto.createHash('sha256');
  h.update('a');
  const first = h.digest('hex');
  const again = h.digest('hex');
  h.update('b');
  const m = crypto.createHMAC('sha512', 'k'.repeat(200));
  m.update('a');
  const mFirst = m.digest('base64');
  m.update('b');
  check(null, {
    'b64 with a null encoding': () => b64 === 'aGVsbG8=' && encoding.b64decode(b64, null, 's') === 'hello',
    'b64decode(s, null) is an ArrayBuffer': () => encoding.b64decode(b64, null).byteLength === 5,
    'digest twice': () => first === again && first === crypto.sha256('a', 'hex'),
    'update after digest': () => h.digest('hex') === crypto.sha256('ab', 'hex'),
    'hmac digest then update': () =>
      mFirst === crypto.hmac('sha512', 'k'.repeat(200), 'a', 'base64') &&
      m.digest('base64') === crypto.hmac('sha512', 'k'.repeat(200), 'ab', 'base64'),
  });
}
