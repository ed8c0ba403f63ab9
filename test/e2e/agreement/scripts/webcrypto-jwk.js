// WebCrypto: an EC private key exported as JWK and imported under another curve's name. k6 keeps the JWK's own
// curve (its signatures have that curve's size); Node's WebCrypto alone refuses the import.
import { check } from 'k6';

export const options = { iterations: 1 };

export default async function () {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, [
    'sign',
    'verify',
  ]);
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  const key = await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
  ]);
  const again = await crypto.subtle.exportKey('jwk', key);
  const signature = await crypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    new Uint8Array([1, 2, 3]),
  );
  check(null, {
    'imported on the JWK curve': () => again.crv === 'P-384',
    'signs with the JWK curve': () => signature.byteLength === 96,
    'random values still fill': () => crypto.getRandomValues(new Uint8Array(4)).length === 4,
  });
}
