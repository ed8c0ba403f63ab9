/**
 * The HTTP transport (node:http): routes KServe v2 endpoints to the core, reads bodies up to a limit,
 * answers errors as {"error": "..."} with Triton's status codes.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { InferenceCore } from '../core.ts';
import { asServerError, Errors, type ServerError } from '../errors.ts';
import { decodeHttpInfer } from './infer-decode.ts';
import { encodeHttpInfer } from './infer-encode.ts';
import { METHOD_BY_ROUTE, matchRoute, type Route } from './routes.ts';

/** HTTP transport settings. */
export interface HttpOptions {
  /** Largest request body accepted; larger ones answer 413. @default 67108864 (Triton's --http-max-input-size) */
  maxBody_bytes?: number;
  log?: (line: string) => void;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** Creates (does not listen) the HTTP server of a core. */
export function createHttpServer(core: InferenceCore, opts: HttpOptions = {}): http.Server {
  const maxBody = opts.maxBody_bytes ?? 64 * 1024 * 1024;
  const server = http.createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    handle(core, req, res, maxBody, opts.log).catch((err) => sendError(res, asServerError(err)));
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

async function handle(
  core: InferenceCore,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  maxBody: number,
  log?: (line: string) => void,
): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const route = matchRoute(q >= 0 ? url.slice(0, q) : url);
  log?.(`HTTP request: ${req.method} ${url}`);
  if (route.kind === 'unknown') {
    req.resume();
    return sendError(res, Errors.notFound(url));
  }
  if (req.method !== METHOD_BY_ROUTE[route.kind]) {
    req.resume();
    res.writeHead(405, { ...JSON_TYPE, Allow: METHOD_BY_ROUTE[route.kind] });
    res.end(JSON.stringify({ error: 'Method Not Allowed' }));
    return;
  }
  const body = req.method === 'POST' ? await readBody(req, maxBody) : undefined;
  try {
    await dispatch(core, route, req, res, body);
  } catch (err) {
    sendError(res, asServerError(err));
  }
}

async function dispatch(
  core: InferenceCore,
  route: Route,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Buffer | undefined,
): Promise<void> {
  switch (route.kind) {
    case 'server-live':
      return sendStatus(res, core.live() ? 200 : 400);
    case 'server-ready':
      return sendStatus(res, core.ready() ? 200 : 400);
    case 'server-metadata':
      return sendJson(res, core.serverMetadata());
    case 'model-ready':
      return sendStatus(res, core.live() && core.repository.isReady(route.model, route.version) ? 200 : 400);
    case 'model-metadata':
      return sendJson(res, core.modelMetadata(route.model, route.version));
    case 'model-config':
      return sendJson(res, core.modelConfig(route.model, route.version));
    case 'model-stats':
      return sendJson(res, core.statistics(route.model, route.version));
    case 'all-stats':
      return sendJson(res, core.statistics());
    case 'repo-index': {
      const json = parseJsonBody(body);
      return sendJson(res, core.repositoryIndex(json.ready === true));
    }
    case 'model-load': {
      const json = parseJsonBody(body);
      const params = json.parameters;
      await core.loadModel(
        route.model,
        params && typeof params === 'object' ? (params as Record<string, unknown>) : {},
      );
      return sendStatus(res, 200);
    }
    case 'model-unload':
      parseJsonBody(body);
      await core.unloadModel(route.model);
      return sendStatus(res, 200);
    case 'model-infer':
      return infer(core, route, req, res, body!);
    default:
      return sendError(res, Errors.notFound(req.url ?? ''));
  }
}

async function infer(
  core: InferenceCore,
  route: { model: string; version: string },
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: Buffer,
): Promise<void> {
  const body = decompress(raw, req.headers['content-encoding']);
  const headerValue = req.headers['inference-header-content-length'];
  let headerLength: number | undefined;
  if (headerValue !== undefined) {
    headerLength = Number(headerValue);
    if (!Number.isInteger(headerLength) || headerLength < 0) {
      throw Errors.badRequest(
        `Inference-Header-Content-Length must be a non-negative integer, got "${headerValue}"`,
      );
    }
  }
  const { request, prefs } = decodeHttpInfer(
    body,
    headerLength,
    { name: route.model, version: route.version },
    () => core.modelConfig(route.model, route.version),
  );
  const result = await core.infer(request);
  const encoded = encodeHttpInfer(result, prefs);
  let total = 0;
  for (const c of encoded.chunks) total += c.length;
  const headers: http.OutgoingHttpHeaders = { 'Content-Length': total };
  if (encoded.headerLength === undefined) headers['Content-Type'] = 'application/json';
  else {
    headers['Content-Type'] = 'application/octet-stream';
    headers['Inference-Header-Content-Length'] = encoded.headerLength;
  }
  res.writeHead(200, headers);
  if (encoded.chunks.length === 1) {
    res.end(encoded.chunks[0]);
    return;
  }
  res.cork();
  for (const c of encoded.chunks) res.write(c);
  res.end();
  res.uncork();
}

function decompress(body: Buffer, encoding: string | undefined): Buffer {
  if (!encoding || encoding === 'identity') return body;
  try {
    if (encoding === 'gzip') return zlib.gunzipSync(body);
    if (encoding === 'deflate') return zlib.inflateSync(body);
  } catch (err) {
    throw Errors.badRequest(`failed to decompress the ${encoding} request body: ${(err as Error).message}`);
  }
  throw Errors.unsupported(`Content-Encoding "${encoding}"`);
}

function readBody(req: http.IncomingMessage, limit_bytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit_bytes) {
    req.resume();
    return Promise.reject(Errors.bodyTooLarge(limit_bytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit_bytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(Errors.bodyTooLarge(limit_bytes));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

function parseJsonBody(body: Buffer | undefined): Record<string, unknown> {
  if (!body || body.length === 0) return {};
  try {
    const json = JSON.parse(body.toString('utf8'));
    if (json && typeof json === 'object' && !Array.isArray(json)) return json;
  } catch (err) {
    throw Errors.badRequest(`failed to parse the request JSON buffer: ${(err as Error).message}`);
  }
  throw Errors.badRequest('failed to parse the request JSON buffer: expected a JSON object');
}

function sendJson(res: http.ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(200, { ...JSON_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendStatus(res: http.ServerResponse, status: number): void {
  res.writeHead(status, { 'Content-Length': 0 });
  res.end();
}

function sendError(res: http.ServerResponse, err: ServerError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: err.message });
  const headers: http.OutgoingHttpHeaders = { ...JSON_TYPE, 'Content-Length': Buffer.byteLength(body) };
  // After a rejected oversized body the rest of it is not read: close rather than parse it as a next request.
  if (err.code === 'TOO_LARGE') headers.Connection = 'close';
  res.writeHead(err.httpStatus, headers);
  res.end(body);
}
