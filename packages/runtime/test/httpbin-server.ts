/**
 * A small httpbin-like server for the k6/http tests (cookies, redirects, basic and digest auth,
 * batch concurrency), on 127.0.0.1 with an ephemeral port. It checks digest credentials itself with
 * node:crypto (RFC 7616, MD5, qop=auth), independently of the module under test.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running server: its base URL, the most /slow requests it had in flight, and stop(). */
export interface HttpbinServer {
  base: string;
  /** The same server on a second port: another host for batchPerHost, counted together. */
  base2: string;
  /** Highest number of /slow requests in flight at once, by `User-Agent` and by `User-Agent Host`. */
  peak: Map<string, number>;
  stop(): Promise<void>;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** The name=value pairs of a Cookie header, in order. */
function requestCookies(req: IncomingMessage): [string, string][] {
  const h = req.headers.cookie;
  if (!h) return [];
  return h.split(/;\s*/).map((p) => {
    const i = p.indexOf('=');
    return [p.slice(0, i), p.slice(i + 1)] as [string, string];
  });
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The fields of a Digest Authorization header. */
function digestFields(h: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of h.slice('Digest '.length).matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g))
    out[m[1]!] = m[2] ?? m[3] ?? '';
  return out;
}

function digestAuth(
  req: IncomingMessage,
  res: ServerResponse,
  user: string,
  pass: string,
  nonces: Set<string>,
) {
  const auth = req.headers.authorization ?? '';
  if (auth.startsWith('Digest ')) {
    const f = digestFields(auth);
    const ha1 = md5(`${user}:k6t@127.0.0.1:${pass}`);
    const ha2 = md5(`${req.method}:${f['uri']}`);
    const want = md5(`${ha1}:${f['nonce']}:${f['nc']}:${f['cnonce']}:${f['qop']}:${ha2}`);
    if (f['username'] === user && nonces.has(f['nonce'] ?? '') && f['response'] === want)
      return json(res, 200, { authenticated: true, user });
  }
  const nonce = randomBytes(8).toString('hex');
  nonces.add(nonce);
  res.writeHead(401, {
    'www-authenticate': `Digest realm="k6t@127.0.0.1", qop="auth", nonce="${nonce}", opaque="0a0b", algorithm=MD5`,
  });
  res.end();
}

/**
 * Routes: /cookies (the request's cookies as JSON), /cookies/set?k=v (sets them, answers with the
 * request's cookies), /cookies/set-redirect?k=v (sets them and redirects to /cookies),
 * /redirect/N (N redirects, then /get), /get, /basic-auth/U/P, /digest-auth/U/P, /slow (waits 50 ms
 * and counts requests in flight), /status/N.
 */
export async function startHttpbin(): Promise<HttpbinServer> {
  const nonces = new Set<string>();
  const peak = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const add = (key: string, n: number) => {
    const now = (inFlight.get(key) ?? 0) + n;
    inFlight.set(key, now);
    peak.set(key, Math.max(peak.get(key) ?? 0, now));
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const parts = url.pathname.split('/').filter(Boolean);
      const cookies = Object.fromEntries(requestCookies(req));
      switch (parts[0]) {
        case 'get':
          return json(res, 200, { url: url.pathname, cookies });
        case 'cookies': {
          if (parts[1] === undefined) return json(res, 200, { cookies, header: req.headers.cookie ?? '' });
          const set = [...url.searchParams].map(([k, v]) => `${k}=${v}; Path=/`);
          if (parts[1] === 'set-redirect') {
            res.writeHead(302, { location: '/cookies', 'set-cookie': set });
            return res.end();
          }
          return json(res, 200, { cookies }, { 'set-cookie': set });
        }
        case 'redirect': {
          const n = Number(parts[1]);
          res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}` : '/get' });
          return res.end();
        }
        case 'basic-auth': {
          const want = `Basic ${Buffer.from(`${parts[1]}:${parts[2]}`).toString('base64')}`;
          if (req.headers.authorization === want)
            return json(res, 200, { authenticated: true, user: parts[1] });
          res.writeHead(401, { 'www-authenticate': 'Basic realm="k6t"' });
          return res.end();
        }
        case 'digest-auth':
          return digestAuth(req, res, parts[1] ?? '', parts[2] ?? '', nonces);
        case 'slow': {
          // Keyed by client too: both runtimes of an agreement test share the server.
          const ua = req.headers['user-agent'] ?? '';
          const keys = [ua, `${ua} ${req.headers.host ?? ''}`];
          for (const k of keys) add(k, 1);
          setTimeout(() => {
            for (const k of keys) add(k, -1);
            json(res, 200, {});
          }, 50);
          return;
        }
        case 'status':
          res.writeHead(Number(parts[1]) || 200);
          return res.end();
        default:
          res.writeHead(404);
          return res.end();
      }
    });
  };
  const servers: Server[] = [createServer(handler), createServer(handler)];
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  const [base, base2] = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  return {
    base: base!,
    base2: base2!,
    peak,
    stop: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.closeAllConnections();
              s.close(() => r());
            }),
        ),
      );
    },
  };
}
