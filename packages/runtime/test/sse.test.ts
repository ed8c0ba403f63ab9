/**
 * k6/x/sse (xk6-sse's API) through the whole runtime against a local SSE server: framing edge cases (events split
 * across reads, mid-character too, CRLF and CR line ends, comments, multi-line data, id and event fields), POST
 * with body and headers, a status other than 200, a refused connection, client.close() on an endless stream, and
 * the extension's metrics.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks, runScript, values } from './run-script.ts';

/** Each path's body, written piece by piece (each write its own read on the client, where the pause allows). */
const PIECES: Record<string, (string | Buffer)[]> = {
  split: ['data: {"a"', ':1}\n', '\n', 'data: x\r', '\nid: 7\nevent: upd\ndata: y\n\n'],
  crlf: ['data: one\r\n\r\ndata: two\r\n', '\r\n', 'data: three\r\rdata: four\n\n'],
  comments: [': keep-alive\n\n', 'data: a\n: note\n\n', ':\n\ndata: b\n\n'],
  multiline: ['data: l1\ndata: l2\ndata:\ndata:l4\n\n'],
  utf8: [Buffer.from('data: caf'), Buffer.from([0xc3]), Buffer.from([0xa9, 0x0a, 0x0a])],
};

let web: Server;
let base: string;
const endless = new Set<NodeJS.Timeout>();

async function writeSlowly(res: ServerResponse, pieces: (string | Buffer)[]): Promise<void> {
  for (const piece of pieces) {
    res.write(piece);
    await new Promise((r) => setTimeout(r, 5));
  }
  res.end();
}

function serve(req: IncomingMessage, res: ServerResponse): void {
  const name = (req.url ?? '/').slice(1);
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if (name === 'missing') {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
    if (name === 'echo') {
      const seen = { method: req.method, body, accept: req.headers.accept, auth: req.headers.authorization };
      res.end(`data: ${JSON.stringify(seen)}\n\n`);
    } else if (name === 'endless') {
      let n = 0;
      const timer = setInterval(() => res.write(`data: ${n++}\n\n`), 5);
      endless.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        endless.delete(timer);
      });
    } else void writeSlowly(res, PIECES[name] ?? []);
  });
}

beforeAll(async () => {
  web = createServer(serve);
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const t of endless) clearInterval(t);
  web.closeAllConnections();
  await new Promise<void>((r) => web.close(() => r()));
});

const ev = (data: string, more: { id?: string; name?: string; comment?: string } = {}) => ({
  id: more.id ?? '',
  name: more.name ?? '',
  data,
  comment: more.comment ?? '',
});

const CASES = {
  split: { status: 200, events: [ev('{"a":1}'), ev('x\ny', { id: '7', name: 'upd' })] },
  // CR alone ends a line too: 'three' CR CR is a line and a blank line.
  crlf: { status: 200, events: [ev('one'), ev('two'), ev('three'), ev('four')] },
  // A block with only a comment is no event; a comment in an event's block comes with it.
  comments: { status: 200, events: [ev('a', { comment: 'note' }), ev('b')] },
  multiline: { status: 200, events: [ev('l1\nl2\n\nl4')] },
  utf8: { status: 200, events: [ev('café')] },
  echo: {
    status: 200,
    params: {
      method: 'POST',
      body: '{"q":1}',
      headers: { Authorization: 'Bearer t' },
      tags: { case: 'echo' },
    },
    events: [
      ev(JSON.stringify({ method: 'POST', body: '{"q":1}', accept: 'text/event-stream', auth: 'Bearer t' })),
    ],
  },
  endless: { status: 200, closeAfter: 3, events: [ev('0'), ev('1'), ev('2')] },
  missing: { status: 404, events: [] },
};

describe('k6/x/sse on the Node runtime', () => {
  it('delivers each event as xk6-sse does, whatever the framing, and closes on client.close()', async () => {
    const r = await runScript('sse.js', { env: { BASE: base, EXPECTED: JSON.stringify(CASES) } });
    expect(r.exitCode, r.log).toBe(0);
    const passed = Object.fromEntries(Object.keys(CASES).map((name) => [name, { passes: 1, fails: 0 }]));
    expect(checks(r), r.log).toEqual(passed);
    // The extension's metrics: one sse_event per event, one request per open, its duration and headers time.
    const events = Object.values(CASES).reduce((n, c) => n + c.events.length, 0);
    expect(values(r, 'sse_event')['count']).toBe(events);
    expect(values(r, 'http_reqs')['count']).toBe(Object.keys(CASES).length);
    expect(values(r, 'http_req_duration')['max']).toBeGreaterThan(0);
    expect(values(r, 'http_req_sending')['max']).toBeGreaterThan(0);
  });

  it("returns a refused connection as open's error, status 0, with no handler called", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const cases = { refused: { url: `http://127.0.0.1:${port}/`, status: 0, events: [] } };
    const r = await runScript('sse.js', { env: { BASE: base, EXPECTED: JSON.stringify(cases) } });
    expect(checks(r), r.log).toEqual({ refused: { passes: 1, fails: 0 } });
  });

  it("fails the iteration with a handler's exception and ends its stream; thresholds can name sse_event", async () => {
    const r = await runScript('sse-throw.js', { env: { URL: `${base}/multiline` } });
    expect(r.exitCode, r.log).toBe(0);
    expect(r.log.match(/Error: boom l1/g), r.log).toHaveLength(2);
    expect(r.log).not.toContain('not reached');
    // One event each: the stream ended at the exception.
    expect(values(r, 'sse_event')['count']).toBe(2);
  });
});
