/** The HTTP/2 frame decoder (packages/runtime/src/wire/http2-frames.ts) on bytes alone: frames as a peer would send them. */
import { describe, expect, it } from 'vitest';
import {
  CANCEL,
  COMPRESSION_ERROR,
  CONTINUATION,
  DATA,
  END_HEADERS,
  END_STREAM,
  FRAME_SIZE_ERROR,
  GOAWAY,
  HEADERS,
  Http2FrameDecoder,
  type Http2FrameHandler,
  Http2ProtocolError,
  PADDED,
  PING,
  PRIORITY,
  PROTOCOL_ERROR,
  PUSH_PROMISE,
  pingFrame,
  RST_STREAM,
  SETTINGS,
  SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_FRAME_SIZE,
  settingsFrame,
  WINDOW_UPDATE,
  wordFrame,
  writeFrameHeader,
} from '../../src/wire/http2-frames.ts';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s/g, ''), 'hex');

/** One frame's bytes. */
function frame(type: number, flags: number, id: number, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const buf = Buffer.alloc(9 + body.length);
  writeFrameHeader(buf, 0, body.length, type, flags, id);
  body.copy(buf, 9);
  return buf;
}

/** A handler that records every event as plain values (buffers copied, as a handler must). */
function recorder(): { events: unknown[]; handler: Http2FrameHandler } {
  const events: unknown[] = [];
  return {
    events,
    handler: {
      data: (id, data, flowBytes, end) => events.push(['data', id, data.toString(), flowBytes, end]),
      headers: (id, fields, end) => events.push(['headers', id, fields, end]),
      rstStream: (id, code) => events.push(['rst', id, code]),
      settings: (ack, values) => events.push(['settings', ack, values]),
      ping: (ack, payload) => events.push(['ping', ack, payload.toString('hex')]),
      goaway: (last, code) => events.push(['goaway', last, code]),
      windowUpdate: (id, increment) => events.push(['window', id, increment]),
    },
  };
}

/** Feeds `bytes` in pieces of `size` bytes, each piece from a buffer reused (and scribbled over) between pushes. */
function feed(decoder: Http2FrameDecoder, bytes: Buffer, size: number): void {
  const scratch = Buffer.alloc(size);
  for (let at = 0; at < bytes.length; at += size) {
    const n = bytes.copy(scratch, 0, at, Math.min(at + size, bytes.length));
    decoder.push(scratch.subarray(0, n));
    scratch.fill(0xee);
  }
}

/** RFC 7541 C.4.1 and C.4.2: two requests' header blocks, Huffman-coded, the second using the dynamic table. */
const BLOCK_1 = hex('828684418cf1e3c2e5f23a6ba0ab90f4ff');
const BLOCK_2 = hex('828684be5886a8eb10649cbf');
const FIELDS_1 = [':method', 'GET', ':scheme', 'http', ':path', '/', ':authority', 'www.example.com'];
const FIELDS_2 = [...FIELDS_1, 'cache-control', 'no-cache'];

/** A small conversation: settings, a window update, headers, data, trailers. */
const CONVERSATION = Buffer.concat([
  settingsFrame([
    [SETTINGS_MAX_FRAME_SIZE, 32_768],
    [SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20],
  ]),
  wordFrame(WINDOW_UPDATE, 0, 0, [1000]),
  frame(HEADERS, END_HEADERS, 1, BLOCK_1),
  frame(DATA, 0, 1, 'hello'),
  frame(DATA, 0, 1, ' world'),
  frame(HEADERS, END_HEADERS | END_STREAM, 1, BLOCK_2),
]);
const CONVERSATION_EVENTS = [
  [
    'settings',
    false,
    [
      [SETTINGS_MAX_FRAME_SIZE, 32_768],
      [SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20],
    ],
  ],
  ['window', 0, 1000],
  ['headers', 1, FIELDS_1, false],
  ['data', 1, 'hello', 5, false],
  ['data', 1, ' world', 6, false],
  ['headers', 1, FIELDS_2, true],
];

/** The error push() throws for `bytes`, or null. */
function errorOf(bytes: Buffer): Http2ProtocolError | null {
  try {
    new Http2FrameDecoder(recorder().handler).push(bytes);
    return null;
  } catch (err) {
    if (err instanceof Http2ProtocolError) return err;
    throw err;
  }
}

describe('HTTP/2 frame decoder', () => {
  it('reads several frames in one chunk, in order, with HPACK (Huffman, dynamic table) across blocks', () => {
    const { events, handler } = recorder();
    new Http2FrameDecoder(handler).push(CONVERSATION);
    expect(events).toEqual(CONVERSATION_EVENTS);
  });

  it.each([1, 2, 7, 9, 10, 13])('reads the same frames split into reads of %i bytes', (size) => {
    const { events, handler } = recorder();
    const decoder = new Http2FrameDecoder(handler);
    feed(decoder, CONVERSATION, size);
    expect(events).toEqual(CONVERSATION_EVENTS);
    expect(decoder.pending_bytes).toBe(0);
  });

  it('holds an incomplete frame until its last byte arrives', () => {
    const { events, handler } = recorder();
    const decoder = new Http2FrameDecoder(handler);
    const bytes = frame(DATA, END_STREAM, 3, 'abcdef');
    decoder.push(bytes.subarray(0, 12));
    expect(events).toEqual([]);
    expect(decoder.pending_bytes).toBe(12);
    decoder.push(bytes.subarray(12));
    expect(events).toEqual([['data', 3, 'abcdef', 6, true]]);
  });

  it('removes DATA padding, while flow control counts the whole payload', () => {
    const { events, handler } = recorder();
    // Pad length 3, "data", three bytes of padding: a 1 + 4 + 3 byte payload.
    const payload = Buffer.concat([Buffer.from([3]), Buffer.from('data'), Buffer.alloc(3)]);
    new Http2FrameDecoder(handler).push(frame(DATA, PADDED | END_STREAM, 5, payload));
    expect(events).toEqual([['data', 5, 'data', 8, true]]);
  });

  it('removes HEADERS padding and priority fields', () => {
    const { events, handler } = recorder();
    const priority = hex('80000001 10');
    const payload = Buffer.concat([Buffer.from([2]), priority, BLOCK_1, Buffer.alloc(2)]);
    new Http2FrameDecoder(handler).push(frame(HEADERS, PADDED | PRIORITY | END_HEADERS, 1, payload));
    expect(events).toEqual([['headers', 1, FIELDS_1, false]]);
  });

  it('gathers a header block from HEADERS and CONTINUATION frames, across reads', () => {
    const { events, handler } = recorder();
    const decoder = new Http2FrameDecoder(handler);
    const bytes = Buffer.concat([
      frame(HEADERS, END_STREAM, 7, BLOCK_1.subarray(0, 4)),
      frame(CONTINUATION, 0, 7, BLOCK_1.subarray(4, 9)),
      frame(CONTINUATION, END_HEADERS, 7, BLOCK_1.subarray(9)),
    ]);
    feed(decoder, bytes, 5);
    // END_STREAM rides on the HEADERS frame and applies once the block is complete.
    expect(events).toEqual([['headers', 7, FIELDS_1, true]]);
  });

  it('reads RST_STREAM, SETTINGS ACK, PING, GOAWAY and WINDOW_UPDATE, and skips unknown types', () => {
    const { events, handler } = recorder();
    const ping = hex('0102030405060708');
    new Http2FrameDecoder(handler).push(
      Buffer.concat([
        wordFrame(RST_STREAM, 0, 3, [CANCEL]),
        frame(SETTINGS, 0x1, 0),
        frame(0xbb, 0, 0, 'ignored'),
        pingFrame(ping, false),
        pingFrame(ping, true),
        wordFrame(WINDOW_UPDATE, 0, 5, [0x80000010]),
        wordFrame(GOAWAY, 0, 0, [0x80000009, PROTOCOL_ERROR]),
      ]),
    );
    expect(events).toEqual([
      ['rst', 3, CANCEL],
      ['settings', true, []],
      ['ping', false, '0102030405060708'],
      ['ping', true, '0102030405060708'],
      // The reserved high bit is not part of the value.
      ['window', 5, 0x10],
      ['goaway', 9, PROTOCOL_ERROR],
    ]);
  });

  it('stops at halt(): later frames of the same read are dropped', () => {
    const { events, handler } = recorder();
    let decoder: Http2FrameDecoder | null = null;
    decoder = new Http2FrameDecoder({
      ...handler,
      rstStream: (id, code) => {
        handler.rstStream(id, code);
        decoder!.halt();
      },
    });
    decoder.push(Buffer.concat([wordFrame(RST_STREAM, 0, 1, [CANCEL]), frame(DATA, 0, 1, 'late')]));
    decoder.push(frame(DATA, 0, 1, 'later'));
    expect(events).toEqual([['rst', 1, CANCEL]]);
  });
});

describe('HTTP/2 frame decoder errors', () => {
  it.each([
    ['a frame above the frame size', frame(DATA, 0, 1, Buffer.alloc(16_385)), FRAME_SIZE_ERROR],
    ['DATA on stream 0', frame(DATA, 0, 0, 'x'), PROTOCOL_ERROR],
    ['DATA padding as long as the payload', frame(DATA, PADDED, 1, Buffer.from([2, 0])), PROTOCOL_ERROR],
    ['HEADERS on stream 0', frame(HEADERS, END_HEADERS, 0, BLOCK_1), PROTOCOL_ERROR],
    [
      'HEADERS padding past the payload',
      frame(HEADERS, PADDED | END_HEADERS, 1, Buffer.from([9, 0x82])),
      PROTOCOL_ERROR,
    ],
    [
      'a header block interrupted by another frame',
      Buffer.concat([frame(HEADERS, 0, 1, BLOCK_1.subarray(0, 3)), frame(DATA, 0, 1, 'x')]),
      PROTOCOL_ERROR,
    ],
    ['CONTINUATION without HEADERS', frame(CONTINUATION, END_HEADERS, 1, BLOCK_1), PROTOCOL_ERROR],
    [
      'CONTINUATION on another stream',
      Buffer.concat([
        frame(HEADERS, 0, 1, BLOCK_1.subarray(0, 3)),
        frame(CONTINUATION, END_HEADERS, 3, BLOCK_1),
      ]),
      PROTOCOL_ERROR,
    ],
    ['a header block that is not HPACK', frame(HEADERS, END_HEADERS, 1, hex('80')), COMPRESSION_ERROR],
    ['RST_STREAM of 3 bytes', frame(RST_STREAM, 0, 1, Buffer.alloc(3)), FRAME_SIZE_ERROR],
    ['SETTINGS of 7 bytes', frame(SETTINGS, 0, 0, Buffer.alloc(7)), FRAME_SIZE_ERROR],
    ['SETTINGS on a stream', frame(SETTINGS, 0, 1), PROTOCOL_ERROR],
    ['a SETTINGS ACK with a payload', frame(SETTINGS, 0x1, 0, Buffer.alloc(6)), FRAME_SIZE_ERROR],
    ['PUSH_PROMISE', frame(PUSH_PROMISE, END_HEADERS, 1, Buffer.alloc(4)), PROTOCOL_ERROR],
    ['PING of 4 bytes', frame(PING, 0, 0, Buffer.alloc(4)), FRAME_SIZE_ERROR],
    ['PING on a stream', frame(PING, 0, 1, Buffer.alloc(8)), PROTOCOL_ERROR],
    ['GOAWAY of 4 bytes', frame(GOAWAY, 0, 0, Buffer.alloc(4)), FRAME_SIZE_ERROR],
    ['WINDOW_UPDATE of 8 bytes', frame(WINDOW_UPDATE, 0, 0, Buffer.alloc(8)), FRAME_SIZE_ERROR],
  ])('refuses %s with a clear connection error', (_what, bytes, code) => {
    const err = errorOf(bytes);
    expect(err).toBeInstanceOf(Http2ProtocolError);
    expect(err!.code).toBe(code);
    expect(err!.message).not.toBe('');
  });

  it('refuses a header block above its bound, however it is split', () => {
    const { handler } = recorder();
    const decoder = new Http2FrameDecoder(handler, { maxHeaderBlock_bytes: 8 });
    decoder.push(frame(HEADERS, 0, 1, Buffer.alloc(6, 0x82)));
    expect(() => decoder.push(frame(CONTINUATION, END_HEADERS, 1, Buffer.alloc(3, 0x82)))).toThrow(
      /header block too large/,
    );
  });
});
