/** k6's JSON:API bodies: the error document and the response headers k6's handlers set. */
import type { ServerResponse } from 'node:http';

/** k6 sets this type on /v1/status; elsewhere Go's content sniffing says text/plain. */
export const JSON_TYPE = 'application/json; charset=utf-8';
export const SNIFFED_TYPE = 'text/plain; charset=utf-8';

/** Writes `body` as JSON with `status`. */
export function writeJson(res: ServerResponse, body: unknown, contentType: string, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** k6's error document: `{"errors":[{"status","title","detail"}]}`. */
export function apiError(
  res: ServerResponse,
  title: string,
  detail: string,
  status: number,
  contentType = SNIFFED_TYPE,
): void {
  writeJson(res, { errors: [{ status: String(status), title, detail }] }, contentType, status);
}
