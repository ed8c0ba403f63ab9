/** HPACK (packages/runtime/src/wire/hpack.ts) against the published examples of RFC 7541 Appendix C. */
import { describe, expect, it } from 'vitest';
import {
  encodeHeaders,
  HpackDecoder,
  HpackError,
  HUFFMAN_CODES,
  HUFFMAN_LENGTHS,
  huffmanDecode,
} from '../../src/wire/hpack.ts';

const hex = (s: string): Buffer => Buffer.from(s, 'hex');
const pairs = (flat: string[]): [string, string][] =>
  Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);

const REQ_1: [string, string][] = [
  [':method', 'GET'],
  [':scheme', 'http'],
  [':path', '/'],
  [':authority', 'www.example.com'],
];
const REQ_2: [string, string][] = [...REQ_1, ['cache-control', 'no-cache']];
const REQ_3: [string, string][] = [
  [':method', 'GET'],
  [':scheme', 'https'],
  [':path', '/index.html'],
  [':authority', 'www.example.com'],
  ['custom-key', 'custom-value'],
];
const DATE_1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
const DATE_2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
const COOKIE = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
const RES_1: [string, string][] = [
  [':status', '302'],
  ['cache-control', 'private'],
  ['date', DATE_1],
  ['location', 'https://www.example.com'],
];
const RES_2: [string, string][] = [[':status', '307'], ...RES_1.slice(1)];
const RES_3: [string, string][] = [
  [':status', '200'],
  ['cache-control', 'private'],
  ['date', DATE_2],
  ['location', 'https://www.example.com'],
  ['content-encoding', 'gzip'],
  ['set-cookie', COOKIE],
];

/** Each step: a header block, the fields it decodes to, and the dynamic table after it (newest first). */
interface Step {
  block: string;
  fields: [string, string][];
  table: [string, string][];
  size: number;
}

const REQUEST_TABLES: [string, string][][] = [
  [[':authority', 'www.example.com']],
  [
    ['cache-control', 'no-cache'],
    [':authority', 'www.example.com'],
  ],
  [
    ['custom-key', 'custom-value'],
    ['cache-control', 'no-cache'],
    [':authority', 'www.example.com'],
  ],
];
const RESPONSE_TABLES: [string, string][][] = [
  [
    ['location', 'https://www.example.com'],
    ['date', DATE_1],
    ['cache-control', 'private'],
    [':status', '302'],
  ],
  [
    [':status', '307'],
    ['location', 'https://www.example.com'],
    ['date', DATE_1],
    ['cache-control', 'private'],
  ],
  [
    ['set-cookie', COOKIE],
    ['content-encoding', 'gzip'],
    ['date', DATE_2],
  ],
];

/** RFC 7541's three request (C.3, C.4) or response (C.5, C.6) blocks, with what each leaves behind. */
function sequence(kind: 'request' | 'response', blocks: string[]): Step[] {
  const [fields, tables, sizes] =
    kind === 'request'
      ? [[REQ_1, REQ_2, REQ_3], REQUEST_TABLES, [57, 110, 164]]
      : [[RES_1, RES_2, RES_3], RESPONSE_TABLES, [222, 222, 215]];
  return blocks.map((block, i) => ({ block, fields: fields[i]!, table: tables[i]!, size: sizes[i]! }));
}

const EXAMPLES: [string, number, Step[]][] = [
  [
    'C.3 requests without Huffman',
    4096,
    sequence('request', [
      '828684410f7777772e6578616d706c652e636f6d',
      '828684be58086e6f2d6361636865',
      '828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565',
    ]),
  ],
  [
    'C.4 requests with Huffman',
    4096,
    sequence('request', [
      '828684418cf1e3c2e5f23a6ba0ab90f4ff',
      '828684be5886a8eb10649cbf',
      '828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf',
    ]),
  ],
  [
    'C.5 responses without Huffman (table of 256 bytes, with evictions)',
    256,
    sequence('response', [
      '4803333032580770726976617465611d4d6f6e2c203231204f637420323031332032303a31333a323120474d546e1768747470733a2f2f7777772e6578616d706c652e636f6d',
      '4803333037c1c0bf',
      '88c1611d4d6f6e2c203231204f637420323031332032303a31333a323220474d54c05a04677a69707738666f6f3d4153444a4b48514b425a584f5157454f50495541585157454f49553b206d61782d6167653d333630303b2076657273696f6e3d31',
    ]),
  ],
  [
    'C.6 responses with Huffman (table of 256 bytes, with evictions)',
    256,
    sequence('response', [
      '488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3',
      '4883640effc1c0bf',
      '88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007',
    ]),
  ],
];

/** A test-only Huffman encoder (the runtime never Huffman-codes), from the exported code table. */
function huffmanEncode(bytes: Buffer): Buffer {
  const bits: number[] = [];
  for (const b of bytes) {
    const len = HUFFMAN_LENGTHS[b]!;
    const code = HUFFMAN_CODES[b]!;
    for (let i = len - 1; i >= 0; i--) bits.push(Math.floor(code / 2 ** i) & 1);
  }
  while (bits.length % 8 !== 0) bits.push(1);
  const out = Buffer.alloc(bits.length / 8);
  bits.forEach((bit, i) => {
    out[i >> 3]! |= bit << (7 - (i & 7));
  });
  return out;
}

describe('HPACK decoder: RFC 7541 Appendix C', () => {
  for (const [name, tableSize, steps] of EXAMPLES) {
    it(name, () => {
      const decoder = new HpackDecoder(tableSize);
      for (const step of steps) {
        expect(pairs(decoder.decode(hex(step.block)))).toEqual(step.fields);
        expect(decoder.table).toEqual(step.table);
        expect(decoder.size).toBe(step.size);
      }
    });
  }

  it('reads literals never indexed and without indexing, leaving the table empty (C.2.2, C.2.3)', () => {
    const decoder = new HpackDecoder();
    expect(pairs(decoder.decode(hex('040c2f73616d706c652f70617468')))).toEqual([[':path', '/sample/path']]);
    expect(pairs(decoder.decode(hex('100870617373776f726406736563726574')))).toEqual([
      ['password', 'secret'],
    ]);
    expect(decoder.table).toEqual([]);
  });

  it('applies a dynamic table size update: 0 empties the table', () => {
    const decoder = new HpackDecoder();
    decoder.decode(hex('828684410f7777772e6578616d706c652e636f6d'));
    expect(decoder.size).toBe(57);
    expect(pairs(decoder.decode(hex('2082')))).toEqual([[':method', 'GET']]);
    expect(decoder.table).toEqual([]);
    expect(() => decoder.decode(hex('be'))).toThrow(HpackError);
  });
});

describe('HPACK Huffman strings', () => {
  it('decode every byte value from the code table', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const coded = huffmanEncode(all);
    expect(Buffer.from(huffmanDecode(coded, 0, coded.length), 'latin1')).toEqual(all);
    for (let b = 0; b < 256; b++) {
      const one = huffmanEncode(Buffer.from([b]));
      expect(huffmanDecode(one, 0, one.length).charCodeAt(0)).toBe(b);
    }
  });

  it('match codes published in Appendix B', () => {
    expect(HUFFMAN_CODES[0]).toBe(0x1ff8);
    expect(HUFFMAN_CODES[48]).toBe(0x0);
    expect(HUFFMAN_CODES[97]).toBe(0x3);
    expect(HUFFMAN_CODES[255]).toBe(0x3ffffee);
    expect(HUFFMAN_CODES[256]).toBe(0x3fffffff);
    expect(HUFFMAN_LENGTHS[256]).toBe(30);
  });

  it('reject padding that is not ones, padding longer than 7 bits, and EOS', () => {
    // 'a' is 00011: three zero bits of padding, then a whole byte of ones after it.
    expect(huffmanDecode(Buffer.from([0x1f]), 0, 1)).toBe('a');
    expect(() => huffmanDecode(Buffer.from([0x18]), 0, 1)).toThrow(/padding is not/);
    expect(() => huffmanDecode(Buffer.from([0x1f, 0xff]), 0, 2)).toThrow(/longer than 7/);
    expect(() => huffmanDecode(Buffer.from([0xff, 0xff, 0xff, 0xff]), 0, 4)).toThrow(/EOS/);
  });
});

describe('HPACK errors', () => {
  it('rejects an index beyond both tables, index 0, and truncated blocks', () => {
    expect(() => new HpackDecoder().decode(hex('be'))).toThrow(/out of range/);
    expect(() => new HpackDecoder().decode(hex('80'))).toThrow(/index 0/);
    expect(() => new HpackDecoder().decode(hex('400a6375'))).toThrow(/truncated/);
    expect(() => new HpackDecoder().decode(hex('ff'))).toThrow(/truncated integer/);
  });

  it('rejects a table size above the allowed one, and a size update after a field', () => {
    expect(() => new HpackDecoder().decode(hex('3fe926'))).toThrow(/above the allowed/);
    expect(() => new HpackDecoder().decode(hex('8220'))).toThrow(/after a header field/);
  });
});

describe('HPACK encoder', () => {
  it('encodes request headers the decoder reads back, without touching the dynamic table', () => {
    const fields: [string, string][] = [
      [':method', 'POST'],
      [':scheme', 'http'],
      [':path', '/k6t.echo.Echo/Echo'],
      [':authority', '127.0.0.1:50051'],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ['x-long', 'v'.repeat(300)],
    ];
    const block = encodeHeaders(fields);
    // :method POST and :scheme http are static-table entries 3 and 6: one byte each.
    expect([...block.subarray(0, 2)]).toEqual([0x83, 0x86]);
    const decoder = new HpackDecoder();
    expect(pairs(decoder.decode(block))).toEqual(fields);
    expect(decoder.size).toBe(0);
  });
});
