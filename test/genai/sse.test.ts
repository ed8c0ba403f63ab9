/** The SSE decoder: fields, comments, line ends, and chunks cut anywhere. */
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../lib/genai/sse.ts';
import { feedEveryWay } from './chunking.ts';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('SseDecoder', () => {
  it('reads data, event, id and retry fields; comments and unknown fields are ignored', () => {
    const d = new SseDecoder();
    const events = d.push(
      ': ping\n\ndata: one\n\nevent: error\nid: 7\nretry: 1500\nfoo: bar\ndata:two\ndata:  three\n\n',
    );
    expect(events).toEqual([
      { event: 'message', data: 'one' },
      // One space after the colon is dropped, a second is kept; data lines join with LF.
      { event: 'error', data: 'two\n three', id: '7', retry: 1500 },
    ]);
    expect(d.end()).toEqual({ truncated: false });
  });

  it('an event without data is not dispatched; the last id carries over to later events', () => {
    const d = new SseDecoder();
    expect(d.push('id: 3\nevent: x\n\ndata\n\n')).toEqual([{ event: 'message', data: '', id: '3' }]);
  });

  it('LF, CRLF and CR line ends, and a leading byte order mark', () => {
    const lf = new SseDecoder().push('\uFEFFdata: a\n\ndata: b\n\n');
    const crlf = new SseDecoder().push('data: a\r\n\r\ndata: b\r\n\r\n');
    const cr = new SseDecoder().push('data: a\r\rdata: b\r\r');
    const expected = [
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ];
    expect(lf).toEqual(expected);
    expect(crlf).toEqual(expected);
    expect(cr).toEqual(expected);
  });

  it('the same events however the bytes are cut: mid-line, between CR and LF, mid-UTF-8 character', () => {
    const body = bytes(
      'data: {"text":"h\u00e9llo \u4e16\u754c \ud83d\ude80"}\r\n\r\n: c\r\ndata: x\r\ndata: y\r\n\r\n',
    );
    const ways = feedEveryWay(body, () => new SseDecoder());
    for (const way of ways) {
      expect(way.events, way.how).toEqual([
        { event: 'message', data: '{"text":"h\u00e9llo \u4e16\u754c \ud83d\ude80"}' },
        // The block's comment comes with its event (xk6-sse's Event.Comment).
        { event: 'message', data: 'x\ny', comment: 'c' },
      ]);
      expect(way.truncated, way.how).toBe(false);
    }
    expect(ways.length).toBe(body.length + 1);
  });

  it('several events in one chunk, and a string chunk', () => {
    expect(new SseDecoder().push('data: 1\n\ndata: 2\n\ndata: 3\n\n').map((e) => e.data)).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('a stream cut inside an event reports it truncated and drops the event', () => {
    const inLine = new SseDecoder();
    expect(inLine.push('data: 1\n\ndata: {"partial')).toHaveLength(1);
    expect(inLine.end()).toEqual({ truncated: true });
    const noBlankLine = new SseDecoder();
    expect(noBlankLine.push('data: 1\n')).toEqual([]);
    expect(noBlankLine.end()).toEqual({ truncated: true });
  });

  it('a malformed UTF-8 byte becomes U+FFFD without breaking the line', () => {
    const events = new SseDecoder().push(new Uint8Array([...bytes('data: a'), 0xff, ...bytes('b\n\n')]));
    expect(events).toEqual([{ event: 'message', data: 'a\ufffdb' }]);
  });
});
