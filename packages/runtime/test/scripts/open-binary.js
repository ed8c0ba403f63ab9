// open(path, 'b') from every VU: one ArrayBuffer in memory, shared (k6#2974).
import { check } from 'k6';
import { b64encode } from 'k6/encoding';
const bytes = open('../fixtures/runtime-blob.bin', 'b');
const text = open('../fixtures/runtime-blob.bin');
globalThis.__k6tritonBuffers ??= new Set();
globalThis.__k6tritonBuffers.add(bytes);
export const options = { vus: 4, iterations: 4 };
export default function () {
  check(bytes, {
    'binary is an ArrayBuffer': (b) => b instanceof ArrayBuffer && b.byteLength === 6,
    'one buffer for all VUs': () => globalThis.__k6tritonBuffers.size === 1,
    'text mode reads a string': () => text === 'k6blob',
    'b64 of the bytes': (b) => b64encode(b) === 'azZibG9i',
  });
}
