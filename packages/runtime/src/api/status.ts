/** GET and PATCH /v1/status: k6's status document, pause/resume, stop, and k6's refusals. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError, JSON_TYPE, writeJson } from './jsonapi.ts';
import type { LiveStatus, RunApi } from './types.ts';

/** k6's status envelope. */
export function statusDocument(status: LiveStatus): unknown {
  return { data: { type: 'status', id: 'default', attributes: status } };
}

/** GET /v1/status. */
export async function getStatus(api: RunApi, res: ServerResponse): Promise<void> {
  writeJson(res, statusDocument((await api.snapshot()).status), JSON_TYPE);
}

/** What a PATCH may change: k6 reads these attributes (null and absent leave a setting alone). */
interface StatusPatch {
  paused?: boolean | null;
  vus?: number | null;
  'vus-max'?: number | null;
  stopped?: boolean;
}

/** The patch in a request body, or the reason it cannot be read (k6 answers 400 "Invalid data"). */
export function parsePatch(body: string): StatusPatch | string {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (err) {
    return (err as Error).message;
  }
  if (doc === null) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) return 'expected a JSON object';
  const data = (doc as { data?: unknown }).data;
  if (data === undefined || data === null) return {};
  const attrs = (data as { attributes?: unknown }).attributes;
  if (attrs === undefined || attrs === null) return {};
  if (typeof attrs !== 'object' || Array.isArray(attrs)) return 'data.attributes: expected an object';
  const a = attrs as Record<string, unknown>;
  const patch: StatusPatch = {};
  for (const k of ['paused', 'stopped'] as const) {
    if (a[k] === undefined || a[k] === null) continue;
    if (typeof a[k] !== 'boolean') return `data.attributes.${k}: expected a boolean`;
    patch[k] = a[k];
  }
  for (const k of ['vus', 'vus-max'] as const) {
    if (a[k] === undefined || a[k] === null) continue;
    if (typeof a[k] !== 'number' || !Number.isInteger(a[k]))
      return `data.attributes.${k}: expected an integer`;
    patch[k] = a[k];
  }
  return patch;
}

/** PATCH /v1/status: stop, or pause/resume; live VU changes are refused as k6 v2 refuses them. */
export async function patchStatus(api: RunApi, body: string, res: ServerResponse): Promise<void> {
  const patch = parsePatch(body);
  if (typeof patch === 'string') return apiError(res, 'Invalid data', patch, 400, JSON_TYPE);
  if (patch.stopped) await api.stop();
  else {
    if (patch.paused !== undefined && patch.paused !== null) {
      try {
        await (patch.paused ? api.pause() : api.resume());
      } catch (err) {
        return apiError(res, 'Pause error', (err as Error).message, 500, JSON_TYPE);
      }
    }
    if (patch.vus !== undefined || patch['vus-max'] !== undefined)
      return apiError(
        res,
        'Execution config error',
        'live VU configuration updates are not supported',
        500,
        JSON_TYPE,
      );
  }
  await getStatus(api, res);
}

/** Reads a request's body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
