/** gRPC message framing (packages/runtime/src/wire/grpc-frame.ts): the 5-byte prefix, whole bodies and bodies in chunks. */
import { describe, expect, it } from 'vitest';
import {
  firstMessage,
  frameMessage,
  GrpcMessageDecoder,
  GrpcMessageTooLarge,
  PREFIX_BYTES,
  prefix,
  splitMessages,
} from '../../src/wire/grpc-frame.ts';

const text = (messages: { compressed: boolean; bytes: Buffer }[]) =>
  messages.map((m) => [m.compressed, m.bytes.toString()]);

/** Three messages back to back: an empty one, a compressed one, a plain one. */
const BODY = Buffer.concat([
  frameMessage(Buffer.alloc(0)),
  frameMessage(Buffer.from('zipped'), true),
  frameMessage(Buffer.from('a plain message')),
]);
const MESSAGES = [
  [false, ''],
  [true, 'zipped'],
  [false, 'a plain message'],
];

describe('gRPC message framing', () => {
  it('writes a flag byte and the length, big-endian, before the message', () => {
    expect(frameMessage(Buffer.from('abc'))).toEqual(Buffer.from([0, 0, 0, 0, 3, 0x61, 0x62, 0x63]));
    expect(prefix(0x01020304, true)).toEqual(Buffer.from([1, 1, 2, 3, 4]));
  });

  it('splits a body of several messages and returns the bytes of an incomplete last one', () => {
    const cut = Buffer.concat([BODY, frameMessage(Buffer.from('cut short')).subarray(0, 9)]);
    const { messages, rest } = splitMessages(cut);
    expect(text(messages)).toEqual(MESSAGES);
    expect(rest.length).toBe(9);
  });

  it("reads a unary answer's message, or null when not even a prefix arrived", () => {
    expect(firstMessage(frameMessage(Buffer.from('reply')))?.toString()).toBe('reply');
    expect(firstMessage(Buffer.from([0, 0, 0]))).toBeNull();
  });
});

describe('gRPC message decoder', () => {
  it('returns the messages of one chunk holding several', () => {
    const decoder = new GrpcMessageDecoder();
    expect(text(decoder.push(BODY))).toEqual(MESSAGES);
    expect(decoder.pending_bytes).toBe(0);
  });

  it.each([1, 2, 4, 5, 6, 11])('returns the same messages from chunks of %i bytes', (size) => {
    const decoder = new GrpcMessageDecoder();
    const out = [];
    for (let at = 0; at < BODY.length; at += size) {
      // A fresh buffer per chunk: the decoder may keep the chunks it is given.
      out.push(...decoder.push(Buffer.from(BODY.subarray(at, at + size))));
    }
    expect(text(out)).toEqual(MESSAGES);
    expect(decoder.pending_bytes).toBe(0);
  });

  it('holds a message split across chunks until its last byte', () => {
    const decoder = new GrpcMessageDecoder();
    const big = frameMessage(Buffer.alloc(100_000, 7));
    expect(decoder.push(big.subarray(0, 3))).toEqual([]);
    expect(decoder.push(big.subarray(3, 50_000))).toEqual([]);
    expect(decoder.pending_bytes).toBe(50_000);
    const [message] = decoder.push(big.subarray(50_000));
    // equals(): a deep comparison of 100 kB takes vitest seconds.
    expect(message!.bytes.equals(Buffer.alloc(100_000, 7))).toBe(true);
  });

  it('refuses a message above the limit from its prefix, before the message arrives', () => {
    const decoder = new GrpcMessageDecoder({ maxMessage_bytes: 10 });
    expect(decoder.push(frameMessage(Buffer.alloc(10)))).toHaveLength(1);
    const tooBig = frameMessage(Buffer.alloc(11));
    decoder.push(tooBig.subarray(0, 2));
    let caught: unknown;
    try {
      decoder.push(tooBig.subarray(2, PREFIX_BYTES));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(GrpcMessageTooLarge);
    expect(caught).toMatchObject({
      length: 11,
      max: 10,
      message: 'message of 11 bytes above the limit of 10',
    });
  });

  it('refuses a message above the limit that arrives whole in one chunk', () => {
    const decoder = new GrpcMessageDecoder({ maxMessage_bytes: 4 });
    expect(() => decoder.push(frameMessage(Buffer.alloc(5)))).toThrow(GrpcMessageTooLarge);
  });
});
