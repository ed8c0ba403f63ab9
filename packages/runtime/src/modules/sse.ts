/**
 * xk6-sse's `k6/x/sse` (github.com/phymbert/xk6-sse) on Node, with its API, so one script streams server-sent
 * events under both runtimes: `sse.open(url, params, setup)` calls `setup(client)` once the response headers are
 * in, `client.on('open'|'event'|'error', handler)`, `client.close()`; params `method` (GET), `body`, `headers`,
 * `tags`, `timeout` (none by default); an event is `{id, name, data, comment}`, an error `{error(): message}`.
 * Metrics as the extension's: `sse_event` (Counter, one per event), and per request `http_reqs`,
 * `http_req_duration` (open to close) and `http_req_sending` (open to response headers, pushed at open and
 * again at close, as xk6-sse does). xk6-sse's open blocks the VU until the stream closes and returns
 * `{url, status, headers, error}`; VUs here share one event loop, so open returns a promise of that response
 * and the iteration waits for every open stream (waitForStreams), as it does for gRPC streams. The body is
 * parsed by lib/genai/sse.ts (the WHATWG rules; differences from xk6-sse's own parser in docs/runtime-design.md).
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import { type SseEvent, SseDecoder } from '@k6-triton/lib/genai/sse.ts';
import type { MetricType } from '../metrics/registry.ts';
import { tlsConnectOptions } from '../transport/tls-client.ts';
import { currentRuntimeVu, type VU } from '../vu.ts';
import { runInVu, type Tags, type VuState } from '../vu-context.ts';
import { USER_AGENT } from './http-params.ts';
import { OpenStreams } from './open-streams.ts';
import { canonicalHeaderKey } from './http-response.ts';

/** What `sse.open` resolves with: xk6-sse's HTTPResponse. */
export interface SseResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Set when the request failed before a response (status 0). */
  error: string;
}

/** The event a handler of 'event' gets: xk6-sse's Event (name '' when the event had no `event:` line). */
export interface SseEventObject {
  id: string;
  name: string;
  data: string;
  comment: string;
}

type Handler = (value?: unknown) => void;

/** Registered when a script loads the module, as the extension registers its metric (packages/runtime/src/loader/program.ts). */
export const MODULE_METRICS: [string, MetricType][] = [['sse_event', 'counter']];

const HANDLED = new Set(['open', 'event', 'error']);

const streams = new OpenStreams();

const vuClosers = new WeakMap<VuState, Set<() => void>>();

/** The VU's open streams' closers; a retired VU (test end, a cut iteration's VU) closes them all. */
function closers(vu: VuState): Set<() => void> {
  let set = vuClosers.get(vu);
  if (!set) {
    const created = new Set<() => void>();
    vuClosers.set(vu, created);
    vu.onRetire(() => {
      for (const close of [...created]) close();
    });
    set = created;
  }
  return set;
}

/** Resolves when every stream the VU opened so far has closed (the engine awaits it after an iteration). */
export function waitForStreams(vu: VuState): Promise<void> {
  return streams.wait(vu);
}

/** xk6-sse's error value: a Go error, whose message scripts read with `e.error()`. */
function goError(message: string): { error(): string; toString(): string } {
  return { error: () => message, toString: () => message };
}

interface OpenArgs {
  setup: (client: Client) => void;
  method: string;
  body: string;
  headers: Record<string, string>;
  tags: Tags;
  timeout_ms: number;
}

/** Reads sse.open's arguments as xk6-sse does: (url, setup) or (url, params, setup). */
function openArgs(args: unknown[]): OpenArgs {
  if (args.length !== 1 && args.length !== 2) throw new Error('invalid number of arguments to sse.open');
  const setup = args[args.length - 1];
  if (typeof setup !== 'function') throw new Error('last argument to sse.open must be a function');
  const params = (args.length === 2 ? args[0] : undefined) as Record<string, unknown> | null | undefined;
  const out: OpenArgs = {
    setup: setup as OpenArgs['setup'],
    method: 'GET',
    body: '',
    headers: { 'User-Agent': USER_AGENT },
    tags: {},
    timeout_ms: 0,
  };
  if (params === null || params === undefined) return out;
  if (typeof params.method === 'string' && params.method.trim() !== '') out.method = params.method.trim();
  if (params.body !== undefined && params.body !== null) out.body = String(params.body).trim();
  const headers = params.headers as Record<string, unknown> | null | undefined;
  if (headers && typeof headers === 'object')
    for (const [k, v] of Object.entries(headers)) out.headers[canonicalHeaderKey(k)] = String(v);
  const tags = params.tags as Record<string, unknown> | null | undefined;
  if (tags && typeof tags === 'object') for (const [k, v] of Object.entries(tags)) out.tags[k] = String(v);
  if (params.timeout !== undefined && params.timeout !== null) {
    try {
      out.timeout_ms = parseDuration_ms(params.timeout, 'sse.open() timeout');
    } catch (err) {
      throw new Error(`invalid sse.open() timeout: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The client a setup function gets: handlers and close(). */
export class Client {
  readonly #handlers = new Map<string, Handler[]>();
  readonly #vu: VuState;
  #close: () => void = () => undefined;

  constructor(vu: VuState) {
    this.#vu = vu;
  }

  /** Registers a handler for 'open', 'event' or 'error' (others are kept and never called, as in xk6-sse). */
  on(event: string, handler: Handler): void {
    if (typeof handler !== 'function') return;
    const list = this.#handlers.get(event) ?? [];
    list.push(handler);
    this.#handlers.set(event, list);
  }

  /** Closes the stream: no more events; open's response resolves. */
  close(): void {
    this.#close();
  }

  /** @internal The stream's own close, set once the request exists. */
  bindClose(fn: () => void): void {
    this.#close = fn;
  }

  /** @internal Calls the handlers of `event` with the VU current; a handler's exception ends the stream. */
  emit(event: string, value?: unknown): void {
    if (!HANDLED.has(event)) return;
    for (const fn of this.#handlers.get(event) ?? []) runInVu(this.#vu, () => fn(value));
  }
}

/** xk6-sse's event object from a decoded event. */
function eventObject(e: SseEvent): SseEventObject {
  return {
    id: e.id ?? '',
    name: e.event === 'message' ? '' : e.event,
    data: e.data,
    comment: e.comment ?? '',
  };
}

/** sse.open(url, [params], setup): resolves with the response when the stream closes. */
export function openStream(url: string, ...rest: unknown[]): Promise<SseResponse> {
  const vu = currentRuntimeVu();
  if (vu.inInit) throw new Error('using sse in the init context is not supported');
  const args = openArgs(rest);
  const target = new URL(String(url));
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new Error(`sse.open: unsupported protocol scheme "${target.protocol.replace(/:$/, '')}"`);
  const tags: Tags = { ...vu.tags(), ...args.tags, url: String(url) };
  const done = stream(vu, target, String(url), args, tags);
  streams.track(vu, done);
  return done;
}

function stream(vu: VU, target: URL, url: string, args: OpenArgs, tags: Tags): Promise<SseResponse> {
  const client = new Client(vu);
  return new Promise<SseResponse>((resolve, reject) => {
    const t0 = performance.now();
    let headers_ms = -1;
    let response: SseResponse | undefined;
    let settled = false;
    const body = Buffer.from(args.body, 'utf8');
    const lib = target.protocol === 'https:' ? https : http;
    const req = lib.request(target, {
      method: args.method,
      // Accept first: params.headers can replace it, as in xk6-sse.
      headers: { Accept: 'text/event-stream', ...args.headers, 'Content-Length': String(body.length) },
      // A connection per request, as xk6-sse's client per open.
      agent: false,
      ...(target.protocol === 'https:'
        ? { ...tlsConnectOptions(vu.options.tls, target.hostname), ALPNProtocols: ['http/1.1'] }
        : {}),
    });
    // A handler's exception ends the stream and rejects open's promise: the iteration fails with it, as in k6.
    const finish = (error?: string, thrown?: unknown) => {
      if (settled) return;
      settled = true;
      unhook();
      closers(vu).delete(finish);
      if (timer) clearTimeout(timer);
      const end = performance.now();
      const sending = (headers_ms < 0 ? end : headers_ms) - t0;
      const final = response ? { ...tags, status: String(response.status) } : tags;
      vu.emit([
        { metric: 'http_reqs', value: 1, tags: final },
        { metric: 'http_req_sending', value: sending, tags: final },
        { metric: 'http_req_duration', value: end - t0, tags: final },
      ]);
      req.destroy();
      if (thrown !== undefined) return reject(thrown);
      resolve(
        response && error === undefined ? response : { url: '', status: 0, headers: {}, error: error ?? '' },
      );
    };
    const timer =
      args.timeout_ms > 0
        ? setTimeout(() => {
            const message = `${args.method} ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
            if (response) {
              if (deliver('error', goError(message))) finish();
            } else finish(message);
          }, args.timeout_ms)
        : undefined;
    client.bindClose(() => finish());
    // An interrupted iteration's stream is dropped without a sample or an event, as k6 drops what comes
    // after the VU's context is cancelled: its late events must not reach this VU's next iteration.
    const unhook = vu.onInterrupt(() => {
      if (settled) return;
      settled = true;
      closers(vu).delete(finish);
      if (timer) clearTimeout(timer);
      req.destroy();
      resolve({ url: '', status: 0, headers: {}, error: 'context canceled' });
    });
    /** Calls a handler; false when it threw, which has ended the stream. */
    const deliver = (event: string, value?: unknown): boolean => {
      try {
        client.emit(event, value);
        return true;
      } catch (err) {
        finish(undefined, err);
        return false;
      }
    };
    closers(vu).add(finish);
    req.on('error', (err) => {
      if (settled) return;
      // Before the response: open's response carries the error (setup has not run, so no handler hears it).
      if (!response) return finish(`${args.method} ${JSON.stringify(url)}: ${err.message}`);
      if (deliver('error', goError(err.message))) finish();
    });
    req.on('response', (res) => {
      headers_ms = performance.now();
      const headers: Record<string, string> = {};
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const key = canonicalHeaderKey(res.rawHeaders[i]!);
        headers[key] =
          headers[key] === undefined ? res.rawHeaders[i + 1]! : `${headers[key]}, ${res.rawHeaders[i + 1]}`;
      }
      response = { url, status: res.statusCode ?? 0, headers, error: '' };
      vu.emit([
        {
          metric: 'http_req_sending',
          value: headers_ms - t0,
          tags: { ...tags, status: String(response.status) },
        },
      ]);
      const eventTags = { ...tags, status: String(response.status) };
      const decoder = new SseDecoder();
      try {
        runInVu(vu, () => args.setup(client));
      } catch (err) {
        finish(undefined, err);
        return;
      }
      if (!deliver('open')) return;
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        for (const e of decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))) {
          if (settled) return;
          vu.emit([{ metric: 'sse_event', value: 1, tags: eventTags }]);
          if (!deliver('event', eventObject(e))) return;
        }
      });
      res.on('error', (err) => {
        if (settled) return;
        if (deliver('error', goError(err.message))) finish();
      });
      res.on('end', () => finish());
    });
    req.end(body);
  });
}

/** `open` as a named export too: a script's default import can be the whole namespace (esbuild's Node-mode interop). */
export { openStream as open };

/** The module: `import sse from 'k6/x/sse'` (xk6-sse exports only a default object with open). */
export default { open: openStream };
