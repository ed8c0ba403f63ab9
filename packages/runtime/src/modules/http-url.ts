/**
 * The parsed URL k6's `http.url` object hands out through getURL(): Go's net/url.URL as k6's JS
 * bridge shows it (snake_case fields, lower-case methods). Only the common fields and methods.
 */

/** Go's url.URL as a k6 script sees it. */
export interface GoUrl {
  scheme: string;
  opaque: string;
  user: Record<string, never> | null;
  host: string;
  path: string;
  raw_path: string;
  omit_host: boolean;
  force_query: boolean;
  raw_query: string;
  fragment: string;
  raw_fragment: string;
  hostname(): string;
  port(): string;
  string(): string;
  requestURI(): string;
}

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** `text` parsed as Go's url.URL fields; throws as `new URL` does on a URL it cannot parse. */
export function goUrl(text: string): GoUrl {
  const u = new URL(text);
  const path = decode(u.pathname);
  return {
    scheme: u.protocol.slice(0, -1),
    opaque: '',
    user: u.username || u.password ? {} : null,
    host: u.host,
    path,
    raw_path: '',
    omit_host: false,
    force_query: false,
    raw_query: u.search.slice(1),
    fragment: decode(u.hash.slice(1)),
    raw_fragment: '',
    hostname: () => u.hostname,
    port: () => u.port,
    string: () => text,
    requestURI: () => `${u.pathname}${u.search}` || '/',
  };
}
