/** k6's http.Response: the fields and methods scripts read, with k6's names and shapes. */
import type { Timings } from './http-timings.ts';
import { encodeValues } from './go-values.ts';
import { parseHTML, type Selection } from './html.ts';

/** Header names already made canonical: a server sends the same few names in every response. */
const canonicalNames = new Map<string, string>();
const CANONICAL_NAMES_KEPT = 512;

/** Go's textproto.CanonicalMIMEHeaderKey: "content-type" -> "Content-Type"; odd names stay as they are. */
export function canonicalHeaderKey(name: string): string {
  const known = canonicalNames.get(name);
  if (known !== undefined) return known;
  let out = name;
  if (/^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/.test(name)) {
    out = '';
    let upper = true;
    for (const ch of name) {
      out += upper ? ch.toUpperCase() : ch.toLowerCase();
      upper = ch === '-';
    }
  }
  if (canonicalNames.size < CANONICAL_NAMES_KEPT) canonicalNames.set(name, out);
  return out;
}

/** undici's raw header list to k6's map: canonical names, repeated headers joined with ", " as k6 does. */
export function headersFromRaw(raw: ReadonlyArray<Buffer | string>): Record<string, string> {
  const latin1 = (b: Buffer | string) => (typeof b === 'string' ? b : b.toString('latin1'));
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = canonicalHeaderKey(latin1(raw[i]!));
    const value = latin1(raw[i + 1]!);
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  }
  return out;
}

/** The request as k6 reports it in Response.request (header values are lists, as in k6). */
export interface RequestInfo {
  method: string;
  url: string;
  headers: Record<string, string[]>;
  body: string;
  cookies: Record<string, unknown>;
}

/** Everything a Response is built from. */
export interface ResponseInit {
  /** The VU that made the request: submitForm() and clickLink() send as it. */
  owner?: unknown;
  url: string;
  status: number;
  statusText: string;
  proto: string;
  /** The headers, or a function that makes them on first read. */
  headers: Record<string, string> | (() => Record<string, string>);
  /** The body, or a function that makes it on first read (decoding costs even when scripts never look). */
  body: string | ArrayBuffer | null | (() => string | ArrayBuffer | null);
  timings: Timings;
  error: string;
  errorCode: number;
  /** The request as k6 reports it, or a function that makes it on first read. */
  request: RequestInfo | (() => RequestInfo);
  remoteIp: string;
  remotePort: number;
  /** Empty for plain HTTP. */
  tlsVersion?: string;
  tlsCipherSuite?: string;
  /** The final response's Set-Cookie headers, name → cookies (k6's Response.cookies); none when absent. */
  cookies?: Record<string, unknown[]>;
}

/**
 * gjson-style selector used by k6's Response.json(selector): dot-separated keys, numeric parts index
 * arrays, `#` is an array's length, and `\.` escapes a dot in a key.
 */
export function selectPath(value: unknown, selector: string): unknown {
  const parts = selector.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, '.'));
  let cur: unknown = value;
  for (const part of parts) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) {
      if (part === '#') cur = cur.length;
      else if (/^\d+$/.test(part)) cur = cur[Number(part)];
      else return undefined;
    } else if (typeof cur === 'object') {
      cur = (cur as Record<string, unknown>)[part];
    } else {
      return undefined;
    }
  }
  return cur;
}

/** A value, or the function that makes it on first read. */
type Lazy<T> = T | (() => T);

/** The value of a lazy: made on first read. */
function settle<T>(v: Lazy<T>): T {
  return typeof v === 'function' ? (v as () => T)() : v;
}

/** A value a script assigned, as a lazy (a function it assigns is the value, not its maker). */
function assigned<T>(v: T): Lazy<T> {
  return typeof v === 'function' ? () => v : v;
}

/** submitForm()'s argument, k6's names. */
export interface SubmitFormArgs {
  formSelector?: unknown;
  submitSelector?: unknown;
  fields?: Record<string, unknown>;
  params?: unknown;
}

type Requester = (
  owner: unknown,
  method: string,
  url: string,
  body: unknown,
  params: unknown,
) => Promise<Response>;
let requester: Requester | null = null;
/** How submitForm() and clickLink() send: k6/http's asyncRequest, handed over by http.ts (which imports this module). */
export function setFollowUpRequester(fn: Requester): void {
  requester = fn;
}

/** The request of submitForm()/clickLink(); a `.status` read without await says what to do. */
function followUp(
  res: Response,
  name: string,
  method: string,
  url: string,
  body: unknown,
  params: unknown,
): Promise<Response> {
  if (!requester) throw new Error(`k6/http Response.${name}() needs k6/http`);
  const p = requester(res.owner, method, url, body, params);
  Object.defineProperty(p, 'status', {
    get() {
      throw new Error(
        `k6/http Response.${name}() is asynchronous on the Node runtime where the loader cannot await it (all VUs share one event loop); use "await res.${name}(...)", or run the script with k6`,
      );
    },
  });
  return p;
}

/** k6's Response object. */
export class Response {
  url: string;
  status: number;
  status_text: string;
  proto: string;
  declare headers: Record<string, string>;
  declare body: string | ArrayBuffer | null;
  timings: Timings;
  error: string;
  error_code: number;
  declare request: RequestInfo;
  remote_ip: string;
  remote_port: number;
  cookies: Record<string, unknown> = {};
  tls_version = '';
  tls_cipher_suite = '';
  ocsp = { status: 'unknown' };
  #parsed: unknown = undefined;
  #owner: unknown;
  #parsedOk = false;
  #headers: Lazy<Record<string, string>>;
  #body: Lazy<string | ArrayBuffer | null>;
  #request: Lazy<RequestInfo>;

  constructor(init: ResponseInit) {
    this.#owner = init.owner;
    this.url = init.url;
    this.status = init.status;
    this.status_text = init.statusText;
    this.proto = init.proto;
    this.#headers = init.headers;
    this.#body = init.body;
    this.#request = init.request;
    // Own enumerable accessors, so reads and JSON.stringify see plain fields and unread ones cost
    // nothing; the descriptors are shared by every Response (per-instance closures cost a visible
    // part of a small request's CPU, and give each object its own hidden class).
    Object.defineProperty(this, 'headers', Response.#lazyHeaders);
    Object.defineProperty(this, 'body', Response.#lazyBody);
    this.timings = init.timings;
    this.error = init.error;
    this.error_code = init.errorCode;
    Object.defineProperty(this, 'request', Response.#lazyRequest);
    this.remote_ip = init.remoteIp;
    this.remote_port = init.remotePort;
    this.tls_version = init.tlsVersion ?? '';
    this.tls_cipher_suite = init.tlsCipherSuite ?? '';
    if (init.cookies) this.cookies = init.cookies;
  }

  /** An own enumerable accessor over one lazy field, made once per field and shared by every Response. */
  static #lazy<T>(
    read: (r: Response) => Lazy<T>,
    write: (r: Response, v: Lazy<T>) => void,
  ): PropertyDescriptor {
    return {
      enumerable: true,
      configurable: true,
      get(this: Response) {
        const v = settle(read(this));
        write(this, v);
        return v;
      },
      set(this: Response, v: T) {
        write(this, assigned(v));
      },
    };
  }

  static readonly #lazyHeaders = Response.#lazy(
    (r) => r.#headers,
    (r, v) => {
      r.#headers = v;
    },
  );
  static readonly #lazyBody = Response.#lazy(
    (r) => r.#body,
    (r, v) => {
      r.#body = v;
    },
  );
  static readonly #lazyRequest = Response.#lazy(
    (r) => r.#request,
    (r, v) => {
      r.#request = v;
    },
  );

  /** The VU that made the request (not a field scripts see). */
  get owner(): unknown {
    return this.#owner;
  }

  /** Parses the body as JSON (once) and optionally returns the part a gjson selector names, as k6 does. */
  json(selector?: string): unknown {
    if (!this.#parsedOk) {
      if (this.body === null)
        throw new Error(
          "the body is null so we can't transform it to JSON - this likely was because of a request error getting the response",
        );
      const text = typeof this.body === 'string' ? this.body : Buffer.from(this.body).toString('utf8');
      try {
        this.#parsed = JSON.parse(text);
      } catch (err) {
        throw new Error(`cannot parse json due to an error at line 1: ${(err as Error).message}`);
      }
      this.#parsedOk = true;
    }
    return selector === undefined ? this.#parsed : selectPath(this.#parsed, selector);
  }

  /** k6's Response.html([selector]): the body parsed as HTML (k6/html's Selection), or the part a selector finds. */
  html(selector?: string): Selection {
    const body = this.body;
    if (body === null) throw new Error('invalid type <nil>, expected string, []byte or ArrayBuffer');
    const doc = parseHTML(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'), this.url);
    return selector === undefined ? doc : doc.find(selector);
  }

  /**
   * k6's submitForm({ formSelector, submitSelector, fields, params }): submits the form as a browser would
   * (its method and action, its values, the submit button's, then `fields`). k6's call is synchronous; the
   * loader awaits it where it awaits k6/http's calls, elsewhere it is a promise (its `status` throws, saying so).
   */
  submitForm(args: SubmitFormArgs = {}): Promise<Response> {
    const formSelector = args.formSelector === undefined ? 'form' : String(args.formSelector);
    const form = this.html(formSelector);
    if (form.size() === 0)
      throw new Error(`no form found for selector '${formSelector}' in response '${this.url}'`);
    const method = String(form.attr('method') ?? 'GET').toUpperCase();
    const action = form.attr('action');
    const target = new URL(action === undefined ? this.url : String(action), this.url);
    const values = form.serializeObject();
    // A multiple select's values reach k6's body as one Go slice, which it prints as "[a b]" (GET: "a,b").
    if (method !== 'GET')
      for (const [k, v] of Object.entries(values)) if (Array.isArray(v)) values[k] = `[${v.join(' ')}]`;
    const submit = form.find(
      args.submitSelector === undefined ? '[type="submit"]' : String(args.submitSelector),
    );
    const [submitName, submitValue] = [submit.attr('name'), submit.val()];
    if (submitName !== undefined && submitValue !== undefined) values[String(submitName)] = submitValue;
    Object.assign(values, args.fields ?? {});
    if (method === 'GET') {
      target.search = encodeValues(new Map(Object.entries(values).map(([k, v]) => [k, [String(v)]])));
      return followUp(this, 'submitForm', method, target.href, null, args.params);
    }
    return followUp(this, 'submitForm', method, target.href, values, args.params);
  }

  /** k6's clickLink({ selector, params }): a GET of the first matching element's href, resolved on this URL. */
  clickLink(args: { selector?: unknown; params?: unknown } = {}): Promise<Response> {
    const selector = args.selector === undefined ? 'a[href]' : String(args.selector);
    const link = this.html(selector);
    if (link.size() === 0)
      throw new Error(`no element found for selector '${selector}' in response '${this.url}'`);
    const href = link.attr('href');
    if (href === undefined)
      throw new Error(
        `no valid href attribute value found on element '${selector}' in response '${this.url}'`,
      );
    return followUp(this, 'clickLink', 'GET', new URL(String(href), this.url).href, undefined, args.params);
  }
}
