import { describe, expect, it } from 'vitest';
import {
  decodeBytesTensor,
  decodeBytesTensorAsStrings,
  encodeBytesTensor,
  utf8Decode,
  utf8Encode,
} from '../../lib/tensor/index.ts';

describe('BYTES tensors', () => {
  it('round-trips strings and raw bytes', () => {
    const encoded = encodeBytesTensor(['abc', new Uint8Array([1, 2]), '']);
    expect([...encoded]).toEqual([3, 0, 0, 0, 97, 98, 99, 2, 0, 0, 0, 1, 2, 0, 0, 0, 0]);
    const elements = decodeBytesTensor(encoded, 3);
    expect(elements.map((element) => [...element])).toEqual([[97, 98, 99], [1, 2], []]);
  });

  it('reads a length prefix above 255 as little-endian', () => {
    const long = 'x'.repeat(300);
    const encoded = encodeBytesTensor([long]);
    expect([...encoded.subarray(0, 4)]).toEqual([0x2c, 0x01, 0, 0]);
    expect(decodeBytesTensorAsStrings(encoded)).toEqual([long]);
  });

  it('reports a truncated element', () => {
    const encoded = encodeBytesTensor(['abcd']).subarray(0, 6);
    expect(() => decodeBytesTensor(encoded)).toThrow('element 0 declares 4 bytes, 2 remain');
    expect(() => decodeBytesTensor(new Uint8Array([1, 0]))).toThrow('2 trailing bytes');
  });
});

describe('utf8', () => {
  it('matches TextEncoder/TextDecoder on mixed scripts and surrogate pairs', () => {
    const text = 'aé€𝄞数😀';
    expect([...utf8Encode(text)]).toEqual([...new TextEncoder().encode(text)]);
    expect(utf8Decode(new TextEncoder().encode(text))).toBe(text);
  });

  it('replaces lone surrogates and malformed bytes with U+FFFD', () => {
    expect([...utf8Encode('\ud800')]).toEqual([...new TextEncoder().encode('\ud800')]);
    expect(utf8Decode(new Uint8Array([0x61, 0xff, 0x62]))).toBe('a\ufffdb');
  });

  it('decodes long strings in chunks', () => {
    const text = 'é'.repeat(20000);
    expect(utf8Decode(utf8Encode(text))).toBe(text);
  });

  it('decodes a byte range, keeping surrogate pairs whole across chunk boundaries', () => {
    // 8191 ASCII characters put the first pair's two halves in different chunks of 8192 units.
    const text = `${'a'.repeat(8191)}😀${'𝄞'.repeat(5000)}`;
    const bytes = new TextEncoder().encode(`{${text}}`);
    expect(utf8Decode(bytes, 1, bytes.length - 1)).toBe(text);
    expect(utf8Decode(bytes, 3, 3)).toBe('');
  });
});
