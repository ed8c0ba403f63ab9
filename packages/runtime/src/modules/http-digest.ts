/**
 * HTTP Digest authentication (RFC 7616 with RFC 2617's MD5 and MD5-sess, qop=auth or none), as k6's
 * `auth: 'digest'` does it: the request goes once without credentials, and on a 401 once more with the
 * Authorization computed from the challenge.
 */
import { createHash, randomBytes } from 'node:crypto';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** The parameters of a `WWW-Authenticate: Digest ...` challenge (lower-case names), or null if not digest. */
export function digestChallenge(header: string | undefined): Record<string, string> | null {
  if (!header) return null;
  const at = header.search(/digest\s/i);
  if (at < 0) return null;
  const out: Record<string, string> = {};
  for (const m of header.slice(at + 7).matchAll(/([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g))
    out[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  return out;
}

/** The Authorization header answering `challenge` for `method` on `uri` (the request URI: path and query). */
export function digestAuthorization(
  challenge: Record<string, string>,
  method: string,
  uri: string,
  user: string,
  password: string,
): string {
  const realm = challenge['realm'] ?? '';
  const nonce = challenge['nonce'] ?? '';
  const algorithm = challenge['algorithm'] ?? 'MD5';
  const qop = (challenge['qop'] ?? '')
    .split(',')
    .map((q) => q.trim())
    .includes('auth')
    ? 'auth'
    : '';
  const cnonce = randomBytes(8).toString('hex');
  const nc = '00000001';
  let ha1 = md5(`${user}:${realm}:${password}`);
  if (algorithm.toUpperCase() === 'MD5-SESS') ha1 = md5(`${ha1}:${nonce}:${cnonce}`);
  const ha2 = md5(`${method}:${uri}`);
  const response = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
  const fields = [
    `username="${user}"`,
    `realm="${realm}"`,
    `nonce="${nonce}"`,
    `uri="${uri}"`,
    `algorithm=${algorithm}`,
    `response="${response}"`,
  ];
  if (challenge['opaque'] !== undefined) fields.push(`opaque="${challenge['opaque']}"`);
  if (qop) fields.push(`qop=${qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
  return `Digest ${fields.join(', ')}`;
}
