/**
 * k6's httpDebug option (`--http-debug[=full]`): every request and its response dumped as an INFO log line
 * with source=http-debug, in the layout of Go's httputil dumps k6 logs (request line, Host, headers; status
 * line, headers sorted; the bodies only with `full`).
 */
import { randomUUID } from 'node:crypto';
import { logLine } from '../log.ts';
import type { WireResult } from '../transport/wire-types.ts';

/** The option's value: off, headers only, or headers and bodies. */
export type HttpDebug = 'off' | 'headers' | 'full';

/** Reads k6's httpDebug option: true or "" or "headers" → headers, "full" → full, false/unset → off. */
export function parseHttpDebug(value: unknown): HttpDebug {
  if (value === undefined || value === null || value === false) return 'off';
  if (value === true || value === '' || value === 'headers') return 'headers';
  if (value === 'full') return 'full';
  throw new Error(`invalid option httpDebug: ${JSON.stringify(value)} (expected "headers" or "full")`);
}

/** What the dump's log line carries besides the dump, as k6's: the VU's group, iteration, scenario and id. */
export interface DebugContext {
  group: string;
  iter: number;
  scenario: string;
  vu: number;
}

const bodyText = (body: string | Uint8Array | null): string =>
  body === null ? '' : typeof body === 'string' ? body : Buffer.from(body).toString('utf8');

/** Logs one request and its response (or only the request when it failed), k6's way. */
export function logExchange(
  mode: HttpDebug,
  req: { method: string; url: URL; headers: Record<string, string>; body: string | Uint8Array | null },
  result: WireResult,
  ctx: DebugContext,
): void {
  const fields = {
    group: ctx.group,
    iter: String(ctx.iter),
    request_id: randomUUID(),
    scenario: ctx.scenario,
    source: 'http-debug',
    vu: String(ctx.vu),
  };
  const full = mode === 'full';
  const reqLines = [`${req.method} ${req.url.pathname}${req.url.search} HTTP/1.1`, `Host: ${req.url.host}`];
  for (const [k, v] of Object.entries(req.headers)) reqLines.push(`${k}: ${v}`);
  logLine('INFO', `Request:\n${reqLines.join('\n')}\n\n${full ? bodyText(req.body) : ''}\n`, fields);
  if (result.error) return;
  const raw = result.rawHeaders();
  const headers: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.push(`${canonical(String(raw[i]))}: ${String(raw[i + 1])}`);
  headers.sort();
  const resBody = full ? Buffer.concat(result.chunks, result.bodyLength_bytes).toString('utf8') : '';
  logLine(
    'INFO',
    `Response:\nHTTP/1.1 ${result.status} ${result.statusText}\n${headers.join('\n')}\n\n${resBody}\n`,
    fields,
  );
}

/** Go's canonical header name: content-type → Content-Type. */
function canonical(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}
