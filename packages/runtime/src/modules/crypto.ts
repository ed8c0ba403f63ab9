/** `k6/crypto`: hashes, HMAC and random bytes with k6's names; output encodings hex, base64, base64url, binary. */
import * as nodeCrypto from 'node:crypto';

type Encoding = 'hex' | 'base64' | 'base64url' | 'base64rawurl' | 'binary';
type Input = string | ArrayBuffer | ArrayBufferView;

const ALGOS: Record<string, string> = {
  md4: 'md4',
  md5: 'md5',
  sha1: 'sha1',
  sha256: 'sha256',
  sha384: 'sha384',
  sha512: 'sha512',
  sha512_224: 'sha512-224',
  sha512_256: 'sha512-256',
  ripemd160: 'ripemd160',
};

function algo(name: string): string {
  const a = ALGOS[name];
  if (!a) throw new Error(`k6/crypto: unknown algorithm "${name}"`);
  return a;
}

function bytes(v: Input): Buffer {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (v instanceof ArrayBuffer) return Buffer.from(v);
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function encode(buf: Buffer, enc: Encoding): string | ArrayBuffer {
  switch (enc) {
    case 'hex':
      return buf.toString('hex');
    case 'base64':
      return buf.toString('base64');
    case 'base64url':
      return buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    case 'base64rawurl':
      return buf.toString('base64url');
    case 'binary':
      return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    default:
      throw new Error(
        `k6/crypto: unknown output encoding "${enc}" (hex, base64, base64url, base64rawurl, binary)`,
      );
  }
}

/** Block sizes (bytes) of the hashes, for HMAC's padded key (RFC 2104). */
const BLOCK: Record<string, number> = { sha384: 128, sha512: 128, 'sha512-224': 128, 'sha512-256': 128 };

/**
 * An incremental hasher or HMAC, as createHash/createHMAC return. As k6's, digest() may be called
 * again and update() goes on after it (the digest covers everything written so far): the running
 * hash is copied for each digest, and an HMAC keeps its inner hash and outer padded key (RFC 2104),
 * since Node's Hmac cannot be copied.
 */
export class Hasher {
  private readonly inner: nodeCrypto.Hash;
  private readonly outerKey: Uint8Array | null;
  constructor(
    private readonly algorithm: string,
    secret?: Buffer,
  ) {
    this.inner = nodeCrypto.createHash(algorithm);
    if (secret === undefined) {
      this.outerKey = null;
      return;
    }
    const block = BLOCK[algorithm] ?? 64;
    const key = Buffer.alloc(block);
    (secret.length > block ? nodeCrypto.createHash(algorithm).update(secret).digest() : secret).copy(key);
    this.inner.update(key.map((b) => b ^ 0x36));
    this.outerKey = key.map((b) => b ^ 0x5c);
  }
  update(data: Input): void {
    this.inner.update(bytes(data));
  }
  digest(enc: Encoding): string | ArrayBuffer {
    const d = this.inner.copy().digest();
    if (this.outerKey === null) return encode(d, enc);
    return encode(nodeCrypto.createHash(this.algorithm).update(this.outerKey).update(d).digest(), enc);
  }
}

/** A hasher for `algorithm`. */
export function createHash(algorithm: string): Hasher {
  return new Hasher(algo(algorithm));
}
/** An HMAC hasher for `algorithm` with `secret`. */
export function createHMAC(algorithm: string, secret: Input): Hasher {
  return new Hasher(algo(algorithm), bytes(secret));
}
/** HMAC of data in one call. */
export function hmac(algorithm: string, secret: Input, data: Input, enc: Encoding): string | ArrayBuffer {
  return encode(nodeCrypto.createHmac(algo(algorithm), bytes(secret)).update(bytes(data)).digest(), enc);
}
/** `n` cryptographically random bytes as an ArrayBuffer. */
export function randomBytes(n: number): ArrayBuffer {
  const b = nodeCrypto.randomBytes(n);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

const hashFn = (name: string) => (data: Input, enc: Encoding) =>
  encode(nodeCrypto.createHash(algo(name)).update(bytes(data)).digest(), enc);
export const md4 = hashFn('md4');
export const md5 = hashFn('md5');
export const sha1 = hashFn('sha1');
export const sha256 = hashFn('sha256');
export const sha384 = hashFn('sha384');
export const sha512 = hashFn('sha512');
export const sha512_224 = hashFn('sha512_224');
export const sha512_256 = hashFn('sha512_256');
export const ripemd160 = hashFn('ripemd160');

export default {
  createHash,
  createHMAC,
  hmac,
  randomBytes,
  md4,
  md5,
  sha1,
  sha256,
  sha384,
  sha512,
  sha512_224,
  sha512_256,
  ripemd160,
};
