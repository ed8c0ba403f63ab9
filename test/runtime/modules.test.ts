/** k6/encoding and k6/crypto with k6's signatures and encodings. */
import { describe, expect, it } from 'vitest';
import { hmac, md5, sha256 } from '../../runtime/modules/crypto.ts';
import { b64decode, b64encode } from '../../runtime/modules/encoding.ts';

describe('k6/encoding', () => {
  it.each([
    ['std', 'aGk/Pz4+'],
    ['rawstd', 'aGk/Pz4+'],
    ['url', 'aGk_Pz4-'],
    ['rawurl', 'aGk_Pz4-'],
  ] as const)('b64encode with %s', (enc, want) => {
    expect(b64encode('hi??>>', enc)).toBe(want);
  });

  it('pads std and url, not the raw variants', () => {
    expect(b64encode('a')).toBe('YQ==');
    expect(b64encode('a', 'url')).toBe('YQ==');
    expect(b64encode('a', 'rawstd')).toBe('YQ');
  });

  it('decodes to an ArrayBuffer, or to a string with format "s"', () => {
    const buf = b64decode('AAEC/w==') as ArrayBuffer;
    expect(buf).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(buf)]).toEqual([0, 1, 2, 255]);
    expect(b64decode('aGk_Pz4-', 'rawurl', 's')).toBe('hi??>>');
    expect(b64encode(buf)).toBe('AAEC/w==');
  });
});

describe('k6/crypto', () => {
  it('hashes and HMACs with hex and base64 output', () => {
    expect(md5('hello', 'hex')).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(sha256('', 'base64')).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
    expect(hmac('sha256', 'key', 'msg', 'hex')).toBe(
      '2d93cbc1be167bcb1637a4a23cbff01a7878f0c50ee833954ea5221bb1b8c628',
    );
  });
});
