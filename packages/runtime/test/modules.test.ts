/** k6/encoding and k6/crypto with k6's signatures and encodings. */
import { describe, expect, it } from 'vitest';
import { createHash as nodeHash, createHmac as nodeHmac } from 'node:crypto';
import { createHash, createHMAC, hmac, md5, sha256 } from '../src/modules/crypto.ts';
import { b64decode, b64encode } from '../src/modules/encoding.ts';

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

  it('takes a null or empty encoding as std, as k6 does', () => {
    expect(b64decode('aGk+Pw==', null, 's')).toBe('hi>?');
    expect([...new Uint8Array(b64decode('AAEC/w==', '') as ArrayBuffer)]).toEqual([0, 1, 2, 255]);
    expect(b64encode('hi>?', null)).toBe('aGk+Pw==');
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

  it('digests a hasher again and goes on updating after a digest, as k6 does', () => {
    const h = createHash('sha256');
    h.update('a');
    const first = h.digest('hex');
    expect(h.digest('hex')).toBe(first);
    h.update('b');
    expect(h.digest('hex')).toBe(sha256('ab', 'hex'));
  });

  it.each(['md5', 'sha1', 'sha256', 'sha512', 'sha512_256'])(
    'HMACs with %s as Node does, short and long keys',
    (alg) => {
      const node = alg === 'sha512_256' ? 'sha512-256' : alg;
      for (const key of ['k', 'x'.repeat(200)]) {
        const m = createHMAC(alg, key);
        m.update('a');
        expect(m.digest('hex')).toBe(nodeHmac(node, key).update('a').digest('hex'));
        m.update(new Uint8Array([1, 2, 3]));
        expect(m.digest('base64')).toBe(
          nodeHmac(node, key)
            .update('a')
            .update(Buffer.from([1, 2, 3]))
            .digest('base64'),
        );
        expect(m.digest('hex')).not.toBe(nodeHash(node).update('a').digest('hex'));
      }
    },
  );
});
