/**
 * What crosses between a blocking VU's thread and the engine's thread: k6/http call arguments (class
 * instances reduced to markers the other side rebuilds), Responses as their fields, samples, and
 * errors as their message and stack.
 */
import type { Tags } from '../vu-context.ts';
import { CookieJar } from '../modules/http-cookies.ts';
import { ExpectedStatuses, TaggedUrl } from '../modules/http-params.ts';
import { Response, type ResponseInit } from '../modules/http-response.ts';

/** Where http.expectedStatuses() records its arguments, so the statuses can be sent as data. */
export const STATUS_ARGS = Symbol('k6-triton.expectedStatuses');

/** One sample made in a VU thread, recorded by the engine. */
export interface WireSample {
  metric: string;
  value: number;
  tags: Tags;
  time: number;
  metadata?: Record<string, string>;
}

/** An exception thrown by script code in a VU thread. */
export interface WireError {
  message: string;
  stack: string;
  name: string;
  /** exec.test.abort(): the engine stops the test. */
  abort?: boolean;
}

/** A VU thread's synchronous k6/http call, sent on its call port; the thread blocks until the reply. */
export interface CallRequest {
  fn: string;
  args: unknown[];
  /** The VU's tags at the call (group, scenario, exec.vu.tags). */
  tags: Tags;
  /** setResponseCallback() made at run time in this VU, when the params name none. */
  responseCallback?: unknown;
}

/** The reply: the Response(s) as data, or an error to throw in the VU. */
export type CallReply = { ok: true; value: unknown } | { ok: false; error: WireError };

/** The engine's thread to a VU thread (its parentPort): run an exported function as the VU described. */
export interface ToThread {
  type: 'run';
  name: string;
  arg: unknown;
  scenario: unknown;
  iterationInScenario: number;
  iterationInInstance: number;
  iterationInTest: number;
  group: string;
  /** The run's counters for exec.instance, as of this call; `elapsed_ms` since the scenarios started (0 before). */
  instance: {
    iterationsCompleted: number;
    iterationsInterrupted: number;
    vusActive: number;
    vusInitialized: number;
    elapsed_ms: number;
  };
}

/** A VU thread to the engine's thread (its parentPort). */
export type FromThread =
  | { type: 'ready'; exports: string[] }
  | { type: 'init-error'; error: WireError }
  | { type: 'samples'; samples: WireSample[] }
  | { type: 'log'; line: string }
  | { type: 'abort'; reason: string; counted: boolean }
  | { type: 'done'; value?: unknown; error?: WireError; customTags?: Tags };

const TAGGED = '__k6tritonTaggedUrl';
const STATUSES = '__k6tritonExpectedStatuses';

/** A value with k6/http's class instances (http.url``, expectedStatuses) replaced by markers. */
export function encodeValue(v: unknown): unknown {
  if (v instanceof TaggedUrl) return { [TAGGED]: [v.url, v.name] };
  if (v instanceof CookieJar)
    throw new Error(
      "a cookie jar in a request's params is not supported in the Node runtime's blocking VU mode",
    );
  if (v instanceof ExpectedStatuses) {
    const args = (v as unknown as { [STATUS_ARGS]?: unknown[] })[STATUS_ARGS];
    if (!args) throw new Error('this http.expectedStatuses() value cannot be used by a blocking VU');
    return { [STATUSES]: args };
  }
  if (Array.isArray(v)) return v.map(encodeValue);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = encodeValue((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** encodeValue's inverse, on the engine's side. */
export function decodeValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodeValue);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const o = v as Record<string, unknown>;
    if (TAGGED in o) {
      const [url, name] = o[TAGGED] as [string, string];
      return new TaggedUrl(url, name);
    }
    if (STATUSES in o) return new ExpectedStatuses(o[STATUSES] as number[]);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) out[k] = decodeValue(o[k]);
    return out;
  }
  return v;
}

/** A Response's fields as data (its lazy headers, body and request read now). */
export function responseData(r: Response): ResponseInit {
  return {
    url: r.url,
    status: r.status,
    statusText: r.status_text,
    proto: r.proto,
    headers: r.headers,
    body: r.body,
    timings: r.timings,
    error: r.error,
    errorCode: r.error_code,
    request: r.request,
    remoteIp: r.remote_ip,
    remotePort: r.remote_port,
    tlsVersion: r.tls_version,
    tlsCipherSuite: r.tls_cipher_suite,
    cookies: r.cookies as Record<string, unknown[]>,
  };
}

/** A call's result as data: a Response, or batch's array or object of them. */
export function encodeResult(v: unknown): unknown {
  if (v instanceof Response) return { response: responseData(v) };
  if (Array.isArray(v)) return { list: v.map((r) => responseData(r as Response)) };
  const o = v as Record<string, Response>;
  return { map: Object.fromEntries(Object.keys(o).map((k) => [k, responseData(o[k]!)])) };
}

/** encodeResult's inverse, in the VU thread. */
export function decodeResult(v: unknown): unknown {
  const d = v as { response?: ResponseInit; list?: ResponseInit[]; map?: Record<string, ResponseInit> };
  if (d.response) return new Response(d.response);
  if (d.list) return d.list.map((r) => new Response(r));
  return Object.fromEntries(Object.keys(d.map ?? {}).map((k) => [k, new Response(d.map![k]!)]));
}

/** An exception as data. */
export function encodeError(err: unknown, frames?: string): WireError {
  if (err instanceof Error) return { message: err.message, stack: err.stack ?? err.message, name: err.name };
  const text = String(err);
  return { message: text, stack: frames ? `${text}\n${frames}` : text, name: 'Error' };
}

/** encodeError's inverse: an Error with the thread's stack (the engine maps it through the source map). */
export function decodeError(e: WireError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  err.stack = e.stack;
  return err;
}
