/**
 * k6/http on Node: asyncRequest is the real path. The synchronous forms (get, post, request, batch...)
 * cannot block here (VUs share one event loop): a script whose bundle the loader awaits gets their
 * promise forms (PROMISE_FORMS, loader/await-sync.ts); anywhere else they throw a clear error naming
 * asyncRequest. Connections are kept alive per VU, as k6.
 */
import { localAddressFor, OPEN_DIAL } from '../transport/dial-policy.ts';
import { logExchange } from './http-debug.ts';
import { logLine } from '../log.ts';
import { type BatchJob, runBatch } from './http-batch.ts';
import { currentVu, runInVu, type HttpOptions, type Tags, type VuState } from '../vu-context.ts';
import {
  CookieJar,
  requestCookiePairs,
  requestCookiesInfo,
  responseCookies,
  setCookieValues,
} from './http-cookies.ts';
import { digestAuthorization, digestChallenge } from './http-digest.ts';
import { k6ErrorFor, type K6HttpError } from './http-errors.ts';
import { requestSamples } from './http-metrics.ts';
import {
  type Body,
  DEFAULT_EXPECTED,
  ExpectedStatuses,
  normalizeParams,
  type Params,
  parseUrl,
  type RequestParams,
  TaggedUrl,
  DEFAULT_REDIRECTS,
  headerOf,
  wireBody,
  withHeader,
  withoutCredentials,
} from './http-params.ts';
import { SYNC_HTTP_FUNCTIONS } from './http-sync-names.ts';
import { FileData, file } from './http-form.ts';
import {
  canonicalHeaderKey,
  headersFromRaw,
  type RequestInfo,
  Response,
  setFollowUpRequester,
} from './http-response.ts';
import { preloadHttpClient, VuConnections } from '../transport/http-transport.ts';
import type { WireResult } from '../transport/wire-types.ts';

export { CookieJar, ExpectedStatuses, Response, TaggedUrl };

/** Per-VU module state: its connections, its response callback and its cookie jar (per iteration). */
interface VuHttp {
  connections: VuConnections;
  responseCallback: ExpectedStatuses | null | undefined;
  jar: CookieJar | null;
  jarIteration: number;
  /** The iteration the connections serve, under noVUConnectionReuse. */
  connIteration: number;
}

// Imported by a script's init context (loader/k6-modules.ts, on the engine's thread only): undici loads with it.
await preloadHttpClient();

const vuStates = new WeakMap<VuState, VuHttp>();
/** setResponseCallback called from the init context applies to VUs that did not set their own. */
let initResponseCallback: ExpectedStatuses | null = DEFAULT_EXPECTED;

/** A VU's connections, under the test's dial options and from its localIPs address. */
function vuConnections(vu: VuState): VuConnections {
  const dial = vu.options.http?.dial ?? OPEN_DIAL;
  return new VuConnections(vu.options.tls, dial, localAddressFor(dial.localIps, vu.idInTest - 1));
}

function vuHttp(vu: VuState): VuHttp {
  let s = vuStates.get(vu);
  if (!s) {
    const created: VuHttp = {
      connections: vuConnections(vu),
      responseCallback: undefined,
      jar: null,
      jarIteration: Number.NaN,
      connIteration: Number.NaN,
    };
    vuStates.set(vu, created);
    vu.onRetire(() => created.connections.close());
    s = created;
  }
  return s;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function body(result: WireResult, responseType: RequestParams['responseType']): string | ArrayBuffer | null {
  if (result.error || responseType === 'none') return null;
  const { chunks, bodyLength_bytes: n } = result;
  if (responseType === 'text') {
    if (chunks.length === 1) return chunks[0]!.toString('utf8');
    return Buffer.concat(chunks, n).toString('utf8');
  }
  // An exact ArrayBuffer (a Buffer's .buffer may be a larger shared pool).
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out.buffer;
}

function requestInfo(
  method: string,
  url: string,
  headers: Record<string, string>,
  b: unknown,
  cookies: readonly [string, string][],
): RequestInfo {
  const h: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers)) h[canonicalHeaderKey(k)] = [v];
  const text = typeof b === 'string' ? b : b ? `[${(b as Uint8Array).byteLength} bytes]` : '';
  return { method, url, headers: h, body: text, cookies: requestCookiesInfo(cookies) };
}

function warnFailed(method: string, url: string, err: K6HttpError, throwErrors = false): void {
  // k6 logs every failed request at warning level, or throws it under its `throw` option.
  const msg = `${method[0]}${method.slice(1).toLowerCase()} ${JSON.stringify(url)}: ${err.detail ?? err.message}`;
  // k6 throws the Go error itself: String(e) is `GoError: Get "url": ...`.
  if (throwErrors) throw Object.defineProperty(new Error(msg), 'name', { value: 'GoError' });
  logLine('WARN', 'Request Failed', { error: msg });
}

function failedResponse(url: string, err: K6HttpError, info: RequestInfo): Response {
  const zero = {
    blocked: 0,
    connecting: 0,
    tls_handshaking: 0,
    sending: 0,
    waiting: 0,
    receiving: 0,
    duration: 0,
  };
  return new Response({
    url,
    status: 0,
    statusText: '',
    proto: '',
    headers: {},
    body: null,
    timings: zero,
    error: err.message,
    errorCode: err.code,
    request: info,
    remoteIp: '',
    remotePort: 0,
  });
}

/** The first response of a digest request counts as expected when it is the 401 challenge (k6 swaps its callback so). */
const DIGEST_CHALLENGE = new ExpectedStatuses([401]);
/** k6's defaults of the options k6/http honours. */
const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  maxRedirects: null,
  batch: 20,
  batchPerHost: 6,
  noCookiesReset: false,
  throw: false,
  debug: 'off',
  dial: OPEN_DIAL,
};

/** noVUConnectionReuse: a VU's first request of an iteration closes the connections of its last one, as k6. */
function freshConnections(vu: VuState, state: VuHttp): void {
  const iteration = vu.iterationInInstance ?? -1;
  if (state.connIteration === iteration) return;
  if (!Number.isNaN(state.connIteration)) {
    void state.connections.close();
    state.connections = vuConnections(vu);
  }
  state.connIteration = iteration;
}

/** When the next request may start under k6's rps option (one limiter for all VUs, as k6's). */
let rpsNext_ms = 0;

/** Waits for rps's turn: requests start at most `rps` a second. */
function rpsTurn(rps: number): Promise<void> | null {
  const now = performance.now();
  const at = Math.max(now, rpsNext_ms);
  rpsNext_ms = at + 1000 / rps;
  return at > now ? new Promise((resolve) => setTimeout(resolve, at - now)) : null;
}

/** The VU's cookie jar: a new one each iteration, as k6 starts one (unless noCookiesReset). */
function vuJar(vu: VuState, state: VuHttp): CookieJar {
  const iteration = vu.iterationInInstance ?? -1;
  if (state.jarIteration !== iteration) {
    if (!vu.options.http?.noCookiesReset || !state.jar) state.jar = new CookieJar();
    state.jarIteration = iteration;
  }
  return state.jar!;
}

/**
 * k6's http.asyncRequest(method, url, [body], [params]): resolves with a Response (never rejects for
 * network errors: they are in Response.error / error_code, as in k6). Follows redirects (each hop a
 * request with its samples), keeps cookies in the VU's jar and answers digest challenges, as k6 does.
 */
export async function asyncRequest(
  method: string,
  url: unknown,
  reqBody?: Body,
  params?: Params,
): Promise<Response> {
  const vu = currentVu();
  if (vu.inInit) throw new Error('Making http requests in the init context is not supported');
  const rps = vu.options.http?.rps ?? 0;
  if (rps > 0) await rpsTurn(rps);
  const state = vuHttp(vu);
  if (vu.options.http?.noVUConnectionReuse) freshConnections(vu, state);
  const p = normalizeParams(params, vu.options.discardResponseBodies);
  const expected =
    p.responseCallback !== undefined
      ? p.responseCallback
      : state.responseCallback !== undefined
        ? state.responseCallback
        : initResponseCallback;
  // k6 warns of a request stopped at the redirect limit only when neither the params nor the options set it.
  const redirectsSet = p.redirects ?? vu.options.http?.maxRedirects ?? null;
  const maxRedirects = redirectsSet ?? DEFAULT_REDIRECTS;
  const jar = p.jar ?? vuJar(vu, state);
  let method_ = String(method).toUpperCase();
  let target: ReturnType<typeof parseUrl>;
  // The params' own headers, shared by every request made with them (no copy per request): replaced
  // by a copy before anything adds or removes a header.
  const converted = wireBody(reqBody, p.headers);
  let headers = converted.headers;
  let wire = converted.body;
  try {
    target = parseUrl(url);
  } catch (e) {
    const err = k6ErrorFor(Object.assign(e as Error, { code: 'ERR_INVALID_URL' }));
    warnFailed(method_, String(url), err, vu.options.http?.throw);
    return failedResponse(String(url), err, requestInfo(method_, String(url), headers, wire, []));
  }
  let digest: { user: string; pass: string } | null = null;
  if (target.url.username || target.url.password) {
    const user = decodeURIComponent(target.url.username);
    const pass = decodeURIComponent(target.url.password);
    if (p.digest) {
      // k6's digest transport sends (and tags) the URL without its credentials.
      digest = { user, pass };
      const bare = new URL(target.url.href);
      bare.username = '';
      bare.password = '';
      const tagUrl = withoutCredentials(target.tagUrl);
      target = { url: bare, tagUrl, name: target.name === target.tagUrl ? tagUrl : target.name };
    } else if (headerOf(headers, 'authorization') === undefined) {
      headers = withHeader(
        headers,
        'Authorization',
        `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
      );
    }
  }
  const firstHost = target.url.hostname;
  const vuTags: Tags = vu.tags();
  let info: RequestInfo | (() => RequestInfo) | null = null;
  let firstCallback = digest && expected ? DIGEST_CHALLENGE : expected;
  for (let hop = 0; ; hop++) {
    const pairs = requestCookiePairs(target.url, jar, p.cookies);
    let sent = headers;
    if (pairs.length > 0) {
      const own = headerOf(headers, 'cookie');
      const jarred = pairs.map(([n, v]) => `${n}=${v}`).join('; ');
      sent = withHeader(headers, 'Cookie', own ? `${own}; ${jarred}` : jarred);
    }
    if (info === null) {
      const [m, u, h, b] = [method_, target.tagUrl, sent, wire];
      info = () => requestInfo(m, u, h, b, pairs);
    }
    const send = (h: Record<string, string>) => {
      const req = {
        method: method_,
        url: target.url,
        headers: h,
        body: wire,
        timeout_ms: p.timeout_ms,
        responseType: p.responseType,
        reuseConnection: !vu.options.noConnectionReuse,
      };
      const debug = vu.options.http?.debug ?? 'off';
      if (debug === 'off') return state.connections.send(req);
      return state.connections.send(req).then((r) => {
        logExchange(debug, req, r, {
          group: vuTags['group'] ?? '',
          iter: Math.max(0, vu.iterationInInstance ?? 0),
          scenario: vuTags['scenario'] ?? '',
          vu: vu.idInTest,
        });
        return r;
      });
    };
    const record = (result: WireResult, cb: ExpectedStatuses | null) => {
      const error = result.error ? k6ErrorFor(result.error) : null;
      vu.emitLater(requestSamples, {
        vuTags,
        userTags: p.tags,
        method: method_,
        tagUrl: target.tagUrl,
        name: target.name,
        status: result.status,
        proto: error ? '' : result.proto,
        tlsVersion: result.tlsVersion,
        error,
        timings: result.timings,
        sent_bytes: result.sent_bytes,
        received_bytes: result.received_bytes,
        expected: cb,
      });
      return error;
    };
    let result = await send(sent);
    let error = record(result, firstCallback);
    firstCallback = expected;
    if (digest && !error && result.status === 401) {
      const challenge = digestChallenge(headersFromRaw(result.rawHeaders())['Www-Authenticate']);
      if (challenge) {
        const uri = target.url.pathname + target.url.search;
        const auth = digestAuthorization(challenge, method_, uri, digest.user, digest.pass);
        result = await send(withHeader(sent, 'Authorization', auth));
        error = record(result, expected);
      }
    }
    const setCookies = error ? [] : setCookieValues(result);
    if (setCookies.length > 0) jar.store(target.url, setCookies);
    const isRedirect = !error && REDIRECT_STATUSES.has(result.status);
    const redirectHeaders = isRedirect ? headersFromRaw(result.rawHeaders()) : null;
    const location = redirectHeaders?.['Location'];
    if (isRedirect && location !== undefined && hop >= maxRedirects && redirectsSet === null) {
      logLine(
        'WARN',
        `Stopped after ${hop + 1} redirects and returned the redirection; pass { redirects: n } in request params or set global maxRedirects to silence this`,
        { url: String(url instanceof TaggedUrl ? url.url : url) },
      );
    }
    if (isRedirect && location !== undefined && hop < maxRedirects) {
      const next = new URL(location, target.url);
      // Go's client: 303 (and 301/302 after POST) continue as GET without a body.
      if (result.status === 303 || ((result.status === 301 || result.status === 302) && method_ === 'POST')) {
        if (method_ !== 'HEAD') method_ = 'GET';
        wire = null;
        headers = withHeader(headers, 'Content-Type', null);
      }
      // Go forwards credentials and cookies set by hand only to the same domain (or its subdomains).
      if (next.hostname !== firstHost && !next.hostname.endsWith(`.${firstHost}`)) {
        headers = withHeader(withHeader(headers, 'Authorization', null), 'Cookie', null);
      }
      target = { url: next, tagUrl: next.href, name: next.href };
      continue;
    }
    if (error) warnFailed(method_, target.tagUrl, error, vu.options.http?.throw);
    return new Response({
      owner: vu,
      url: target.tagUrl,
      status: result.status,
      statusText: error ? '' : `${result.status} ${result.statusText}`,
      proto: error ? '' : result.proto,
      headers: redirectHeaders ?? (error ? {} : () => headersFromRaw(result.rawHeaders())),
      body: () => body(result, p.responseType),
      timings: result.timings,
      error: error ? error.message : '',
      errorCode: error ? error.code : 0,
      request: info,
      remoteIp: result.remoteIp,
      remotePort: result.remotePort,
      tlsVersion: result.tlsVersion,
      tlsCipherSuite: result.tlsCipherSuite,
      cookies: setCookies.length > 0 ? responseCookies(setCookies) : undefined,
    });
  }
}

// Response.submitForm() and clickLink() send through asyncRequest, as the VU that made the response.
setFollowUpRequester((owner, method, url, body, params) =>
  runInVu(owner as VuState, () => asyncRequest(method, url, body as Body, params as Params)),
);

function syncUnsupported(name: string, method: string): never {
  throw new Error(
    `k6/http ${name}() is synchronous, which the Node runtime does not support (all VUs share one event loop); ` +
      `use "await http.asyncRequest('${method}', url, body, params)" instead, or run the script with k6`,
  );
}

/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function request(method: string, ..._args: unknown[]): never {
  return syncUnsupported('request', String(method).toUpperCase());
}
/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function get(..._args: unknown[]): never {
  return syncUnsupported('get', 'GET');
}
/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function post(..._args: unknown[]): never {
  return syncUnsupported('post', 'POST');
}
/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function put(..._args: unknown[]): never {
  return syncUnsupported('put', 'PUT');
}
/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function del(..._args: unknown[]): never {
  return syncUnsupported('del', 'DELETE');
}
/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function patch(..._args: unknown[]): never {
  return syncUnsupported('patch', 'PATCH');
}
/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function head(..._args: unknown[]): never {
  return syncUnsupported('head', 'HEAD');
}
/** Synchronous k6 API: not supported here, throws an error naming asyncRequest. */
export function options(..._args: unknown[]): never {
  return syncUnsupported('options', 'OPTIONS');
}
/** Synchronous k6 API: not supported here; Promise.all over asyncRequest does what batch does. */
export function batch(..._args: unknown[]): never {
  throw new Error(
    'k6/http batch() is synchronous, which the Node runtime does not support (all VUs share one event loop); ' +
      'use "await Promise.all(requests.map((r) => http.asyncRequest(...)))" instead, or run the script with k6',
  );
}

/** A k6 batch request: a URL, an array [method, url, body, params] or an object {method, url, body, params}. */
type BatchRequest =
  | string
  | TaggedUrl
  | unknown[]
  | { method?: string; url: unknown; body?: Body; params?: Params };

/** One batch request as a job: its host (for batchPerHost) and the call that sends it as the VU. */
function batchJob(vu: VuState, r: BatchRequest): BatchJob<Response> {
  let call: () => Promise<Response>;
  let target: unknown;
  if (typeof r === 'string' || r instanceof TaggedUrl) {
    target = r;
    call = () => asyncRequest('GET', r);
  } else if (Array.isArray(r)) {
    target = r[1];
    call = () => asyncRequest(String(r[0]), r[1], r[2] as Body, r[3] as Params);
  } else if (r && typeof r === 'object') {
    target = r.url;
    call = () => asyncRequest(r.method ?? 'GET', r.url, r.body, r.params);
  } else {
    throw new Error(`invalid http.batch() request: ${String(r)}`);
  }
  let host = '';
  try {
    host = new URL(String(target instanceof TaggedUrl ? target.url : target)).host;
  } catch {
    // asyncRequest reports the bad URL in the response.
  }
  // A worker sends after an await, when no VU is current: it sends as the batch's VU.
  return { host, run: () => runInVu(vu, call) };
}

/** The VU's init context refuses requests at once, as k6 does, rather than with a rejected promise. */
function checkNotInit(): void {
  if (currentVu().inInit) throw new Error('Making http requests in the init context is not supported');
}

/** The promise form of k6's `name(url, [body], [params])`, or of `name(url, [params])` without a body. */
function promiseForm(method: string, withBody: boolean) {
  return (url: unknown, a?: unknown, b?: unknown): Promise<Response> => {
    checkNotInit();
    return withBody
      ? asyncRequest(method, url, a as Body, b as Params)
      : asyncRequest(method, url, null, a as Params);
  };
}

/**
 * k6's synchronous calls as promises, for scripts whose bundle awaits them (loader/await-sync.ts):
 * the loader gives these in place of the refusing forms above.
 */
export const PROMISE_FORMS = {
  request: (method: string, url: unknown, b?: Body, params?: Params) => {
    checkNotInit();
    return asyncRequest(method, url, b, params);
  },
  get: promiseForm('GET', false),
  head: promiseForm('HEAD', false),
  post: promiseForm('POST', true),
  put: promiseForm('PUT', true),
  patch: promiseForm('PATCH', true),
  del: promiseForm('DELETE', true),
  options: promiseForm('OPTIONS', true),
  /** k6's batch in its three forms: an array of requests, or an object of them (results keyed alike). */
  batch: async (requests: BatchRequest[] | Record<string, BatchRequest>) => {
    checkNotInit();
    const vu = currentVu();
    const { batch, batchPerHost } = vu.options.http ?? DEFAULT_HTTP_OPTIONS;
    const keys = Array.isArray(requests) ? null : Object.keys(requests ?? {});
    const list = keys
      ? keys.map((k) => (requests as Record<string, BatchRequest>)[k]!)
      : (requests as BatchRequest[]);
    const results = await runBatch(
      list.map((r) => batchJob(vu, r)),
      batch,
      batchPerHost,
    );
    return keys ? Object.fromEntries(keys.map((k, i) => [k, results[i]])) : results;
  },
};

/** Names of k6/http functions that are synchronous in k6 and throw here, for a loader's static check. */
export { SYNC_HTTP_FUNCTIONS };

/** k6's http.expectedStatuses(...): statuses and {min, max} ranges counted as expected responses. */
export function expectedStatuses(...args: Array<number | { min: number; max: number }>): ExpectedStatuses {
  return new ExpectedStatuses(args);
}

/** k6's http.setResponseCallback(cb): the default callback of this VU (from init: of every VU). */
export function setResponseCallback(cb: ExpectedStatuses | null): void {
  if (cb !== null && !(cb instanceof ExpectedStatuses)) {
    throw new Error('invalid http.setResponseCallback argument; expected http.expectedStatuses(...) or null');
  }
  const vu = currentVu();
  if (vu.inInit) initResponseCallback = cb;
  vuHttp(vu).responseCallback = cb;
}

/** What k6 puts in the name tag for each placeholder of http.url. */
const PLACEHOLDER = '\u0024{}';

/** k6's http.url`...` tagged template: the URL with a `name` tag that keeps `${}` for each placeholder. */
export function url(strings: TemplateStringsArray, ...values: unknown[]): TaggedUrl {
  let full = strings[0] ?? '';
  let name = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    full += String(values[i]) + (strings[i + 1] ?? '');
    name += PLACEHOLDER + (strings[i + 1] ?? '');
  }
  return new TaggedUrl(full, name);
}

export { file, FileData };
/** k6's http.cookieJar(): the VU's jar for this iteration (the one requests use without a `jar` param). */
export function cookieJar(): CookieJar {
  const vu = currentVu();
  if (vu.inInit) throw new Error('Making cookie jars in the init context is not supported');
  return vuJar(vu, vuHttp(vu));
}

/** Closes the connections of the calling VU (the engine also does it through onRetire). */
export async function closeVuConnections(vu: VuState): Promise<void> {
  await vuStates.get(vu)?.connections.close();
}

/** k6's TLS version names, as Response.tls_version gives them. */
export const TLS_1_0 = 'tls1.0';
export const TLS_1_1 = 'tls1.1';
export const TLS_1_2 = 'tls1.2';
export const TLS_1_3 = 'tls1.3';

/** k6's OCSP status and revocation-reason names (Response.ocsp is not filled in here). */
export const OCSP_STATUS_GOOD = 'good';
export const OCSP_STATUS_REVOKED = 'revoked';
export const OCSP_STATUS_SERVER_FAILED = 'server_failed';
export const OCSP_STATUS_UNKNOWN = 'unknown';
export const OCSP_REASON_UNSPECIFIED = 'unspecified';
export const OCSP_REASON_KEY_COMPROMISE = 'key_compromise';
export const OCSP_REASON_CA_COMPROMISE = 'ca_compromise';
export const OCSP_REASON_AFFILIATION_CHANGED = 'affiliation_changed';
export const OCSP_REASON_SUPERSEDED = 'superseded';
export const OCSP_REASON_CESSATION_OF_OPERATION = 'cessation_of_operation';
export const OCSP_REASON_CERTIFICATE_HOLD = 'certificate_hold';
export const OCSP_REASON_REMOVE_FROM_CRL = 'remove_from_crl';
export const OCSP_REASON_PRIVILEGE_WITHDRAWN = 'privilege_withdrawn';
export const OCSP_REASON_AA_COMPROMISE = 'aa_compromise';

const http = {
  TLS_1_0,
  TLS_1_1,
  TLS_1_2,
  TLS_1_3,
  OCSP_STATUS_GOOD,
  OCSP_STATUS_REVOKED,
  OCSP_STATUS_SERVER_FAILED,
  OCSP_STATUS_UNKNOWN,
  OCSP_REASON_UNSPECIFIED,
  OCSP_REASON_KEY_COMPROMISE,
  OCSP_REASON_CA_COMPROMISE,
  OCSP_REASON_AFFILIATION_CHANGED,
  OCSP_REASON_SUPERSEDED,
  OCSP_REASON_CESSATION_OF_OPERATION,
  OCSP_REASON_CERTIFICATE_HOLD,
  OCSP_REASON_REMOVE_FROM_CRL,
  OCSP_REASON_PRIVILEGE_WITHDRAWN,
  OCSP_REASON_AA_COMPROMISE,
  asyncRequest,
  request,
  get,
  post,
  put,
  del,
  patch,
  head,
  options,
  batch,
  expectedStatuses,
  setResponseCallback,
  url,
  file,
  cookieJar,
  CookieJar,
};

export default http;
