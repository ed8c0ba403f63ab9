/**
 * k6's cookie jars (http.CookieJar, http.cookieJar(), the `jar` and `cookies` params, Response.cookies)
 * over tough-cookie's RFC 6265 store, with the behaviour of Go's net/http/cookiejar that k6 wraps.
 */
import { createRequire } from 'node:module';
import type { CookieJar as ToughJar } from 'tough-cookie';
import type { WireResult } from '../transport/wire-types.ts';

type Tough = typeof import('tough-cookie');
let loaded: Tough | null = null;
/**
 * tough-cookie, loaded at first use: a blocking VU's thread (blocking/) never keeps cookies itself, and
 * loading the package costs each thread about 60 ms of CPU.
 */
const tough = (): Tough => {
  loaded ??= createRequire(import.meta.url)('tough-cookie') as Tough;
  return loaded;
};

/** Go's zero time.Time in Unix milliseconds: what k6 reports as `expires` for a cookie without one. */
const GO_ZERO_TIME_MS = -6795364578871;

/** A cookie of Response.cookies, with k6's field names. */
export interface ResponseCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  http_only: boolean;
  secure: boolean;
  max_age: number;
  expires: number;
}

/** A cookie of the `cookies` request param after parsing: `replace` keeps the jar's cookie of that name out. */
export interface ParamCookie {
  value: string;
  replace: boolean;
}

/** Options of CookieJar.set, as k6 reads them (keys compared without case). */
interface SetOptions {
  path?: string;
  domain?: string;
  expires?: string;
  max_age?: number;
  secure?: boolean;
  http_only?: boolean;
}

/** Appends value to out[key], making the list on first use. */
function pushTo<T>(out: Record<string, T[]>, key: string, value: T): void {
  const list = out[key];
  if (list) list.push(value);
  else out[key] = [value];
}

function parsedUrl(url: unknown): URL {
  try {
    return new URL(String(url));
  } catch {
    throw new Error(`parse ${JSON.stringify(String(url))}: invalid URL`);
  }
}

/** k6's http.CookieJar: cookies by URL, as Go's cookiejar keeps them. */
export class CookieJar {
  /** Made on the first cookie: each VU gets a new jar every iteration, and most never hold a cookie. */
  #store: ToughJar | null = null;

  get #jar(): ToughJar {
    this.#store ??= new (tough().CookieJar)(undefined, { rejectPublicSuffixes: false, looseMode: true });
    return this.#store;
  }

  /** The cookies the jar would send to `url`, as name → values. */
  cookiesForURL(url: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [name, value] of this.pairsFor(parsedUrl(url))) pushTo(out, name, value);
    return out;
  }

  /** Sets one cookie for `url`; options: path, domain, expires (RFC 1123), max_age, secure, http_only. */
  set(url: string, name: string, value: string, opts?: SetOptions | null): boolean {
    const u = parsedUrl(url);
    const c = new (tough().Cookie)({ key: String(name), value: String(value) });
    for (const [k, v] of Object.entries(opts ?? {})) {
      switch (k.toLowerCase()) {
        case 'path':
          c.path = String(v);
          break;
        case 'domain':
          c.domain = String(v).replace(/^\./, '').toLowerCase();
          break;
        case 'expires': {
          if (v === '') break;
          const t = new Date(String(v));
          if (Number.isNaN(t.getTime()))
            throw new Error(`unable to parse "expires" date string "${String(v)}": expected RFC 1123`);
          c.expires = t;
          break;
        }
        case 'max_age': {
          // Go: 0 means no Max-Age, a negative value deletes the cookie.
          const n = Math.trunc(Number(v));
          if (n !== 0) c.maxAge = n < 0 ? 0 : n;
          break;
        }
        case 'secure':
          c.secure = Boolean(v);
          break;
        case 'http_only':
          c.httpOnly = Boolean(v);
          break;
      }
    }
    this.#jar.setCookieSync(c, u.href, { ignoreError: true });
    return true;
  }

  /** Deletes the cookies the jar would send to `url` (as k6: by name, at the URL's default path). */
  clear(url: string): void {
    const u = parsedUrl(url);
    for (const [name] of this.pairsFor(u)) this.#expire(u, name);
  }

  /** Deletes the cookie `name` set for `url`. */
  delete(url: string, name: string): void {
    if (!name) throw new Error('cookie: is null');
    this.#expire(parsedUrl(url), String(name));
  }

  #expire(u: URL, name: string): void {
    this.#jar.setCookieSync(new (tough().Cookie)({ key: name, value: '', maxAge: 0 }), u.href, {
      ignoreError: true,
    });
  }

  /** The jar's name/value pairs for a request to `u`, in the order Go's jar sends them. */
  pairsFor(u: URL): [string, string][] {
    if (!this.#store) return [];
    return this.#store.getCookiesSync(u.href).map((c) => [c.key, c.value]);
  }

  /** Stores the Set-Cookie header values a response from `u` carried. */
  store(u: URL, setCookies: readonly string[]): void {
    for (const s of setCookies) this.#jar.setCookieSync(s, u.href, { ignoreError: true });
  }
}

/** k6's `cookies` param: name → value, or name → { value, replace }. */
export function parseParamCookies(v: unknown): Map<string, ParamCookie> | null {
  if (v === null || v === undefined || typeof v !== 'object') return null;
  const out = new Map<string, ParamCookie>();
  for (const [name, c] of Object.entries(v as Record<string, unknown>)) {
    if (c === null || c === undefined) continue;
    if (typeof c === 'object') {
      const o = c as Record<string, unknown>;
      out.set(name, {
        value: o['value'] === undefined ? '' : String(o['value']),
        replace: Boolean(o['replace']),
      });
    } else {
      out.set(name, { value: String(c), replace: false });
    }
  }
  return out.size === 0 ? null : out;
}

/** The Cookie header's pairs for a request: the param cookies, then the jar's unless a param replaces them. */
export function requestCookiePairs(
  u: URL,
  jar: CookieJar,
  params: Map<string, ParamCookie> | null,
): [string, string][] {
  const pairs: [string, string][] = [];
  if (params) for (const [name, c] of params) pairs.push([name, c.value]);
  for (const [name, value] of jar.pairsFor(u)) if (!params?.get(name)?.replace) pairs.push([name, value]);
  return pairs;
}

/** Response.request.cookies: name → [{ name, value, replace }] of the Cookie header sent. */
export function requestCookiesInfo(pairs: readonly [string, string][]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, value] of pairs) pushTo(out, name, { name, value, replace: false });
  return out;
}

/** Response.cookies: the Set-Cookie headers of a response, name → cookies, with Go's values for absent fields. */
export function responseCookies(setCookies: readonly string[]): Record<string, ResponseCookie[]> {
  const out: Record<string, ResponseCookie[]> = {};
  for (const s of setCookies) {
    const c = tough().Cookie.parse(s, { loose: true });
    if (!c) continue;
    const maxAge = c.maxAge;
    pushTo(out, c.key, {
      name: c.key,
      value: c.value,
      domain: c.domain ?? '',
      path: c.path ?? '',
      http_only: c.httpOnly,
      secure: c.secure,
      // Go: Max-Age=0 (or less) is -1, an absent one 0.
      max_age:
        maxAge === null || maxAge === undefined ? 0 : typeof maxAge === 'number' && maxAge > 0 ? maxAge : -1,
      expires: c.expires instanceof Date ? c.expires.getTime() : GO_ZERO_TIME_MS,
    });
  }
  return out;
}

/** The Set-Cookie values of a response's raw header list. */
export function setCookieValues(result: WireResult): string[] {
  if (!result.setCookie) return [];
  const raw = result.rawHeaders();
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (String(raw[i]).toLowerCase() === 'set-cookie') out.push(String(raw[i + 1]));
  return out;
}
