/** Validation of k6/http arguments: params (headers, tags, timeout, responseType, redirects), bodies, URLs. */
import type { Tags } from '../vu-context.ts';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import type { ResponseType } from '../transport/wire-types.ts';
import { CookieJar, type ParamCookie, parseParamCookies } from './http-cookies.ts';
import { type GoUrl, goUrl } from './http-url.ts';
import { formBody } from './http-form.ts';

/** k6's default request timeout (params.timeout). */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** k6's default for options.maxRedirects and params.redirects. */
export const DEFAULT_REDIRECTS = 10;
/** The User-Agent requests send unless the script sets one (k6/http, k6/x/sse and the WebSocket handshakes). */
export const USER_AGENT = 'Grafana k6 (k6-triton Node runtime)';

/** The test's `userAgent` option (an empty string sends none); USER_AGENT when unset. One per process, like the run. */
let defaultUserAgent = USER_AGENT;

/** The User-Agent a k6/http request or WebSocket handshake sends when it sets none ('' sends none). */
export function currentUserAgent(): string {
  return defaultUserAgent;
}

/** Sets the User-Agent of k6/http requests that set none (k6's userAgent option); null restores the default. */
export function useUserAgent(userAgent: string | null): void {
  const next = userAgent ?? USER_AGENT;
  if (next === defaultUserAgent) return;
  defaultUserAgent = next;
  // Parsed params hold the old default: parse them again.
  DEFAULTS.keep = DEFAULTS.discard = null;
  FROZEN.keep = new WeakMap();
  FROZEN.discard = new WeakMap();
}

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

/**
 * k6's http.url`...` result: the URL, a `name` tag with the template's placeholders, the URL with its
 * credentials masked (`clean_url`, `clean()`) and the parsed URL (`getURL()`), own properties in k6's order.
 */
export class TaggedUrl {
  readonly name: string;
  readonly url: string;
  readonly clean_url: string;
  readonly clean: () => string;
  readonly getURL: () => GoUrl;
  constructor(url: string, name: string) {
    const clean = maskCredentials(url);
    // k6 names a URL without placeholders by its clean form.
    this.name = name === url ? clean : name;
    this.url = url;
    this.clean_url = clean;
    this.clean = () => clean;
    this.getURL = () => goUrl(url);
  }
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
  jar?: CookieJar | null;
  cookies?: Record<string, unknown> | null;
  auth?: string | null;
  [other: string]: unknown;
}

/** Params after validation and defaults. */
export interface RequestParams {
  headers: Record<string, string>;
  tags: Tags;
  timeout_ms: number;
  responseType: ResponseType;
  /** null: the test's maxRedirects option (k6 then warns when a request stops at it). */
  redirects: number | null;
  /** undefined: use the VU's default; null: no callback (no http_req_failed, no expected_response). */
  responseCallback: ExpectedStatuses | null | undefined;
  /** The `jar` param; null: the VU's jar (k6 ignores a null jar too). */
  jar: CookieJar | null;
  /** The `cookies` param, in its order; null when none. */
  cookies: Map<string, ParamCookie> | null;
  /** True for `auth: 'digest'`. */
  digest: boolean;
}

const UNSUPPORTED_PARAMS = ['compression'];
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
  const auth = p['auth'];
  if (auth !== undefined && auth !== null && auth !== 'basic' && auth !== 'digest') {
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
  if (!hasUserAgent && defaultUserAgent !== '') headers['User-Agent'] = defaultUserAgent;
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
  let redirects: number | null = null;
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
  const jar = p.jar instanceof CookieJar ? p.jar : null;
  if (p.jar !== undefined && p.jar !== null && !jar) {
    throw new Error(
      'invalid http params.jar; expected an http.CookieJar (new http.CookieJar() or http.cookieJar())',
    );
  }
  return {
    headers,
    tags,
    timeout_ms,
    responseType,
    redirects,
    responseCallback: cb,
    jar,
    cookies: parseParamCookies(p.cookies),
    digest: auth === 'digest',
  };
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
 * A plain object is sent form-urlencoded or multipart (http-form.ts), as k6 does, and sets Content-Type when absent; the headers
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
    const form = formBody(body);
    const typed = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type');
    return { body: form.body, headers: typed ? headers : { ...headers, 'Content-Type': form.contentType } };
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
  // k6 tags the URL with its credentials masked (URL.Clean in k6's httpext).
  const tagUrl = url.username || url.password ? maskCredentials(text) : text;
  return { url, tagUrl, name: arg instanceof TaggedUrl ? arg.name : tagUrl };
}

/** k6's URL.Clean: `http://user:pass@host/` → `http://****:****@host/` (`****` alone without a password). */
export function maskCredentials(text: string): string {
  return text.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i,
    (_m, scheme: string, info: string) => `${scheme}${info.includes(':') ? '****:****' : '****'}@`,
  );
}

/** The URL without its credentials, as k6's digest transport sends and tags it. */
export function withoutCredentials(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1');
}

/** `headers` with name set to value (any case of name replaced), copied: a params object's headers are shared. */
export function withHeader(
  headers: Record<string, string>,
  name: string,
  value: string | null,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== name.toLowerCase()) out[k] = v;
  if (value !== null) out[name] = value;
  return out;
}

/** The value of header `name` (any case) in headers, or undefined. */
export function headerOf(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}
