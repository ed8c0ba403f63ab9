/** Validation of k6/http arguments: params (headers, tags, timeout, responseType, redirects), bodies, URLs. */
import type { Tags } from '../vu-context.ts';
import { parseDuration_ms } from '../../lib/duration.ts';
import type { ResponseType } from '../transport/http-transport.ts';

/** k6's default request timeout (params.timeout). */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** k6's default for options.maxRedirects and params.redirects. */
export const DEFAULT_REDIRECTS = 10;
/** The User-Agent k6/http (and the WebSocket handshakes) send unless the script sets one. */
export const USER_AGENT = 'Grafana k6 (k6-triton Node runtime)';

/** k6's http.expectedStatuses(...) result: which statuses count as expected (not failed). */
export class ExpectedStatuses {
  readonly #codes: Set<number>;
  readonly #ranges: Array<{ min: number; max: number }>;

  constructor(args: ReadonlyArray<number | { min: number; max: number }>) {
    this.#codes = new Set();
    this.#ranges = [];
    for (const a of args) {
      if (typeof a === 'number' && Number.isInteger(a)) this.#codes.add(a);
      else if (a && typeof a === 'object' && Number.isInteger(a.min) && Number.isInteger(a.max))
        this.#ranges.push(a);
      else {
        throw new Error(
          `invalid argument to http.expectedStatuses ${JSON.stringify(a)}; expected integers or {min, max} objects`,
        );
      }
    }
  }

  /** True when `status` is one of the expected statuses. */
  matches(status: number): boolean {
    if (this.#codes.has(status)) return true;
    for (const r of this.#ranges) if (status >= r.min && status <= r.max) return true;
    return false;
  }
}

/** k6's default response callback: 200-399 are expected. */
export const DEFAULT_EXPECTED = new ExpectedStatuses([{ min: 200, max: 399 }]);

/** k6's http.url`...` result: the URL plus a `name` tag with the template's placeholders. */
export class TaggedUrl {
  constructor(
    readonly url: string,
    readonly name: string,
  ) {}
  toString(): string {
    return this.url;
  }
}

/** Params as scripts pass them. */
export interface Params {
  headers?: Record<string, unknown>;
  tags?: Record<string, unknown>;
  timeout?: string | number;
  responseType?: string;
  redirects?: number;
  responseCallback?: ExpectedStatuses | null;
  [other: string]: unknown;
}

/** Params after validation and defaults. */
export interface RequestParams {
  headers: Record<string, string>;
  tags: Tags;
  timeout_ms: number;
  responseType: ResponseType;
  redirects: number;
  /** undefined: use the VU's default; null: no callback (no http_req_failed, no expected_response). */
  responseCallback: ExpectedStatuses | null | undefined;
}

const UNSUPPORTED_PARAMS = ['compression', 'jar', 'cookies'];
const NO_TAGS: Tags = Object.freeze({}) as Tags;

/** The defaults, for requests without params (callers copy headers before changing them). */
const DEFAULTS: Record<'keep' | 'discard', RequestParams | null> = { keep: null, discard: null };

/**
 * Params objects the script froze (with their headers and tags), validated once: a frozen object
 * cannot change between calls, so a script that prepares its params in the init context and freezes
 * them (lib/kserve does) pays for parsing once, not per request.
 */
const FROZEN: Record<'keep' | 'discard', WeakMap<Params, RequestParams>> = {
  keep: new WeakMap(),
  discard: new WeakMap(),
};

function deeplyFrozen(p: Params): boolean {
  return (
    Object.isFrozen(p) &&
    (p.headers === undefined || Object.isFrozen(p.headers)) &&
    (p.tags === undefined || Object.isFrozen(p.tags))
  );
}

/** Validates params and applies k6's defaults; `discard` is the test's discardResponseBodies option. */
export function normalizeParams(params: Params | null | undefined, discard: boolean): RequestParams {
  const key = discard ? 'discard' : 'keep';
  if (params === null || params === undefined) {
    DEFAULTS[key] ??= parseParams({}, discard);
    return DEFAULTS[key];
  }
  if (!deeplyFrozen(params)) return parseParams(params, discard);
  let parsed = FROZEN[key].get(params);
  if (!parsed) {
    parsed = parseParams(params, discard);
    FROZEN[key].set(params, parsed);
  }
  return parsed;
}

function parseParams(p: Params, discard: boolean): RequestParams {
  for (const name of UNSUPPORTED_PARAMS) {
    const v = p[name];
    if (v !== undefined && v !== null && !(typeof v === 'object' && Object.keys(v).length === 0)) {
      throw new Error(`k6 API http params.${name} is not supported by the Node runtime; run with k6`);
    }
  }
  // Basic auth comes from the URL's credentials, with or without auth: 'basic' (as in k6).
  if (p['auth'] !== undefined && p['auth'] !== null && p['auth'] !== 'basic') {
    throw new Error(
      `k6 API http params.auth ${JSON.stringify(p['auth'])} is not supported by the Node runtime; run with k6`,
    );
  }
  const headers: Record<string, string> = {};
  let hasUserAgent = false;
  for (const [k, v] of Object.entries(p.headers ?? {})) {
    if (v === undefined || v === null) continue;
    headers[k] = String(v);
    if (k.toLowerCase() === 'user-agent') hasUserAgent = true;
  }
  if (!hasUserAgent) headers['User-Agent'] = USER_AGENT;
  const entries = Object.entries(p.tags ?? {});
  // One shared object for untagged requests keeps them on requestTags' memo (see http-metrics.ts).
  const tags: Tags = entries.length === 0 ? NO_TAGS : {};
  for (const [k, v] of entries) tags[k] = String(v);
  const timeout_ms =
    p.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration_ms(p.timeout, 'http params.timeout');
  let responseType: ResponseType = discard ? 'none' : 'text';
  if (p.responseType !== undefined) {
    if (p.responseType !== 'text' && p.responseType !== 'binary' && p.responseType !== 'none') {
      throw new Error(
        `invalid http params.responseType ${JSON.stringify(p.responseType)}; expected text, binary or none`,
      );
    }
    responseType = p.responseType;
  }
  let redirects = DEFAULT_REDIRECTS;
  if (p.redirects !== undefined) {
    if (!Number.isInteger(p.redirects) || p.redirects < 0) {
      throw new Error(
        `invalid http params.redirects ${JSON.stringify(p.redirects)}; expected an integer >= 0`,
      );
    }
    redirects = p.redirects;
  }
  const cb = p.responseCallback;
  if (cb !== undefined && cb !== null && !(cb instanceof ExpectedStatuses)) {
    throw new Error(
      'invalid http params.responseCallback; expected the result of http.expectedStatuses(...) or null',
    );
  }
  return { headers, tags, timeout_ms, responseType, redirects, responseCallback: cb };
}

/** A request body as k6 takes it: string, ArrayBuffer, typed array view or a form object. */
export type Body = string | ArrayBuffer | ArrayBufferView | Record<string, unknown> | null | undefined;

/** A body as it goes on the wire, and the headers it goes with. */
export interface WireBody {
  body: string | Uint8Array | null;
  /** The headers passed in, or a copy with Content-Type added for a form body that had none. */
  headers: Record<string, string>;
}

/**
 * Converts the body for the wire without copying binary data (views share the caller's memory).
 * A plain object is sent form-urlencoded, as k6 does, and sets Content-Type when absent; the headers
 * passed in are never changed (a params object's headers are shared by its requests, see http.ts).
 */
export function wireBody(body: Body, headers: Record<string, string>): WireBody {
  if (body === null || body === undefined) return { body: null, headers };
  if (typeof body === 'string') return { body, headers };
  if (body instanceof ArrayBuffer) return { body: Buffer.from(body), headers };
  if (ArrayBuffer.isView(body)) {
    return { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), headers };
  }
  if (typeof body === 'object') {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) {
      if (v !== null && typeof v === 'object') {
        throw new Error(
          `k6 API http.file (multipart body field ${k}) is not supported by the Node runtime; run with k6`,
        );
      }
      form.append(k, String(v));
    }
    const typed = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type');
    return {
      body: form.toString(),
      headers: typed ? headers : { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
    };
  }
  return { body: String(body), headers };
}

/** A parsed URL argument: the URL (never mutated), its `url` tag and its `name` tag. */
export interface ParsedUrl {
  url: URL;
  tagUrl: string;
  name: string;
}

/** Recently parsed URL strings: load tests request the same few URLs over and over. */
const parsedUrls = new Map<string, ParsedUrl>();
const PARSED_URLS = 256;

/** Parses the URL argument (string or http.url result) into the URL, its `url` tag and `name` tag. */
export function parseUrl(arg: unknown): ParsedUrl {
  if (typeof arg !== 'string') return parseUrlUncached(arg);
  let hit = parsedUrls.get(arg);
  if (!hit) {
    hit = parseUrlUncached(arg);
    if (parsedUrls.size >= PARSED_URLS) parsedUrls.clear();
    parsedUrls.set(arg, hit);
  }
  return hit;
}

function parseUrlUncached(arg: unknown): ParsedUrl {
  const text = arg instanceof TaggedUrl ? arg.url : String(arg);
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw Object.assign(new Error(`unsupported protocol scheme "${url.protocol.replace(':', '')}"`), {
      code: 'ERR_INVALID_URL',
    });
  }
  // k6 tags the URL without credentials.
  let tagUrl = text;
  if (url.username || url.password) {
    const clean = new URL(text);
    clean.username = '';
    clean.password = '';
    tagUrl = clean.href;
  }
  return { url, tagUrl, name: arg instanceof TaggedUrl ? arg.name : tagUrl };
}
