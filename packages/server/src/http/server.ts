/**
 * The HTTP transport (node:http): routes KServe v2 endpoints to the core, reads bodies up to a limit,
 * answers errors as {"error": "..."} with Triton's status codes.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { InferenceCore } from '../core.ts';
import { asServerError, Errors, type ServerError } from '../errors.ts';
import { ResetFault } from '../faults/injector.ts';
import { decompressInfer, readBody } from './body.ts';
import { compressBody, responseEncoding } from './compress.ts';
import { type InferTarget, inferHeaderLength } from './infer-decode.ts';
import { decodeHttpInferCached } from './infer-header-cache.ts';
import { encodeHttpInfer } from './infer-encode.ts';
import { generate } from './generate.ts';
import { openAi } from './openai.ts';
import { openAiEmbeddings } from './openai-embeddings.ts';
import { Cancellation } from '../infer/cancel.ts';
import type { InferResult } from '../infer/types.ts';
import { applyConnectionCap, DEFAULT_HTTP_LIMITS, type HttpLimits, serverTimeouts } from './limits.ts';
import { readIndexBody, readLoadBody, readUnloadBody } from './repository-body.ts';
import type { TlsIdentity } from '../tls.ts';
import { METHOD_BY_ROUTE, matchRoute, type Route } from './routes.ts';

/** HTTP transport settings. */
export interface HttpOptions {
  /** Largest request body accepted; larger ones answer 413. @default 67108864 (Triton's --http-max-input-size) */
  maxBody_bytes?: number;
  /** Deadlines and the connection cap. */
  limits?: HttpLimits;
  log?: (line: string) => void;
  /** Serve HTTPS with this certificate and key (PEM); absent: plain HTTP. */
  tls?: TlsIdentity;
}

/** Routes an over-cap connection may still use, so probes see the server alive while it refuses work. */
const ALWAYS_ANSWERED = new Set<Route['kind']>(['server-live', 'server-ready', 'model-ready']);

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** Routes Triton answers without a JSON Content-Type (their answers are a status, errors aside). */
const PLAIN_ROUTES = new Set<Route['kind']>(['server-live', 'server-ready', 'model-ready', 'unknown']);
/** Infer checks the method before it sets its Content-Type: a wrong method is answered as plain text. */
const PLAIN_WRONG_METHOD = new Set<Route['kind']>([...PLAIN_ROUTES, 'model-infer']);

/** Creates (does not listen) the HTTP server of a core. */
export function createHttpServer(core: InferenceCore, opts: HttpOptions = {}): http.Server {
  const maxBody = opts.maxBody_bytes ?? 64 * 1024 * 1024;
  const limits = { ...DEFAULT_HTTP_LIMITS, ...opts.limits };
  let refused: (socket: Socket) => boolean = () => false;
  const listener: http.RequestListener = (req, res) => {
    const context = {
      core,
      maxBody,
      inflatedJson: limits.inflatedJson_bytes,
      refused: refused(req.socket),
      maxConnections: limits.maxConnections,
    };
    handle(context, req, res, opts.log).catch((err) => sendError(res, asServerError(err)));
  };
  const settings = { noDelay: true, keepAlive: true, ...serverTimeouts(limits) };
  const server = opts.tls
    ? https.createServer({ ...settings, cert: opts.tls.cert, key: opts.tls.key }, listener)
    : http.createServer(settings, listener);
  server.keepAliveTimeout = 65_000;
  refused = applyConnectionCap(server, limits);
  if (opts.tls) parseFromSocketEvents(server);
  return server;
}

/**
 * Has an HTTPS server's parser read each connection through the socket's 'data' events, not straight from its
 * TLS handle. When a request arrives while the previous answer is still being written (more than the socket's
 * 16 KiB high-water mark, e.g. dlrm's), node:http pauses the connection and its parser; but the TLS handle
 * goes on handing the parser the records it has already decrypted, and the paused parser refuses them
 * (clientError HPE_PAUSED): the connection closes mid-request (the client sees EOF or a reset). Through 'data'
 * events the pause holds those records back until the answer has drained. Node's HTTP server switches to
 * that path by itself when the socket gets a 'data' listener, so it runs after node:http's own listener.
 */
function parseFromSocketEvents(server: http.Server): void {
  server.on('secureConnection', (socket: Socket) => socket.on('data', () => {}));
}

interface Context {
  core: InferenceCore;
  maxBody: number;
  /** The most JSON a compressed infer body may inflate to. */
  inflatedJson: number;
  /** The connection arrived past the cap. */
  refused: boolean;
  maxConnections: number;
}

/** libevhtp's method numbers, in its enum's order: Triton's verbose log prints the number, not the name. */
const EVHTP_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'MKCOL',
  'COPY',
  'MOVE',
  'OPTIONS',
  'PROPFIND',
  'PROPPATCH',
  'LOCK',
  'UNLOCK',
  'TRACE',
  'CONNECT',
  'PATCH',
];

/** A method as Triton logs it: its evhtp number, 16 (unknown) for any other. */
function evhtpMethod(method: string | undefined): number {
  const i = EVHTP_METHODS.indexOf(method ?? '');
  return i >= 0 ? i : EVHTP_METHODS.length;
}

async function handle(
  ctx: Context,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  log?: (line: string) => void,
): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const route = matchRoute(q >= 0 ? url.slice(0, q) : url);
  log?.(`HTTP request: ${evhtpMethod(req.method)} ${q >= 0 ? url.slice(0, q) : url}`);
  if (ctx.refused && !ALWAYS_ANSWERED.has(route.kind)) {
    req.resume();
    return sendError(res, Errors.tooManyConnections(ctx.maxConnections), true);
  }
  const contentType = { 'Content-Type': PLAIN_ROUTES.has(route.kind) ? 'text/plain' : 'application/json' };
  if (route.kind === 'unknown') {
    req.resume();
    return sendError(res, Errors.notFound(), false, contentType);
  }
  if (req.method !== METHOD_BY_ROUTE[route.kind]) {
    req.resume();
    const body = JSON.stringify({ error: 'Method Not Allowed' });
    res.writeHead(405, {
      'Content-Type': PLAIN_WRONG_METHOD.has(route.kind) ? 'text/plain' : 'application/json',
      Allow: METHOD_BY_ROUTE[route.kind],
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  const body = req.method === 'POST' ? await readBody(req, ctx.maxBody) : undefined;
  try {
    await dispatch(ctx, route, req, res, body);
  } catch (err) {
    // An injected reset: drop the connection without an answer, as a crashed peer would.
    if (err instanceof ResetFault) req.socket.destroy();
    else sendError(res, asServerError(err), ctx.refused, contentType);
  }
}

async function dispatch(
  ctx: Context,
  route: Route,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Buffer | undefined,
): Promise<void> {
  const core = ctx.core;
  switch (route.kind) {
    case 'server-live':
      return sendStatus(res, core.live() ? 200 : 400, 'text/plain');
    case 'server-ready':
      return sendStatus(res, core.ready() ? 200 : 400, 'text/plain');
    case 'server-metadata':
      return sendJson(res, core.serverMetadata());
    case 'model-ready':
      if (!core.modelReady(route.model, route.version)) throw Errors.modelVersionNotReady();
      return sendStatus(res, 200, 'text/plain');
    case 'model-metadata':
      return sendJson(res, core.modelMetadata(route.model, route.version));
    case 'model-config':
      return sendJson(res, core.modelConfig(route.model, route.version));
    case 'model-stats':
      return sendJson(res, core.statistics(route.model, route.version));
    case 'all-stats':
      return sendJson(res, core.statistics());
    case 'repo-index':
      // Triton ignores a repository name in the index path.
      return sendJson(res, await core.repositoryIndex(readIndexBody(body).ready));
    case 'model-load':
      if (route.repository) throw Errors.repositoryName();
      await core.loadModel(route.model, readLoadBody(body));
      return sendStatus(res, 200, 'application/json');
    case 'model-unload':
      if (route.repository) throw Errors.repositoryName();
      readUnloadBody(body);
      await core.unloadModel(route.model);
      return sendStatus(res, 200, 'application/json');
    case 'model-infer':
      return infer(ctx, route, req, res, body!);
    case 'openai-chat':
    case 'openai-completions':
      return openAi(core, route.kind === 'openai-chat' ? 'chat' : 'completions', res, body!);
    case 'openai-embeddings':
      return openAiEmbeddings(core, res, body!);
    case 'model-generate':
    case 'model-generate-stream':
      return generate(core, route, route.kind === 'model-generate-stream', res, body!);
    default:
      return sendError(res, Errors.notFound(), false, { 'Content-Type': 'text/plain' });
  }
}

async function infer(
  ctx: Context,
  route: { model: string; version: string },
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: Buffer,
): Promise<void> {
  const core = ctx.core;
  // Triton finds the model, inflates the body and reads Inference-Header-Content-Length before it sets the
  // answer's Content-Type: an error at these steps goes out as text/plain.
  let target: InferTarget;
  let body: Buffer;
  let headerLength: number;
  try {
    const model = core.inferTarget(route.model, route.version);
    if (model.decoupled) throw Errors.decoupledHttp();
    target = { name: route.model, version: route.version, config: model.config };
    const declared = headerText(req, 'inference-header-content-length');
    body = await decompressInfer(
      raw,
      req.headers['content-encoding'],
      declared,
      ctx.maxBody,
      ctx.inflatedJson,
    );
    headerLength = inferHeaderLength(declared, body.length);
  } catch (err) {
    const e = asServerError(err);
    const headers: http.OutgoingHttpHeaders = { 'Content-Type': 'text/plain' };
    if (e.code === 'UNSUPPORTED') headers['Accept-Encoding'] = 'gzip, deflate';
    return sendError(res, e, ctx.refused, headers);
  }
  const { request, prefs } = decodeHttpInferCached(body, headerLength, target, ctx.maxBody);
  // A client that hangs up while its request is queued: drop the request rather than run it for nobody.
  const cancel = new Cancellation();
  const onClose = () => {
    if (!res.writableFinished) cancel.cancel();
  };
  res.on('close', onClose);
  request.signal = cancel;
  let result: InferResult;
  try {
    result = await core.infer(request);
  } finally {
    res.off('close', onClose);
  }
  const encoded = encodeHttpInfer(result, prefs);
  const headers: http.OutgoingHttpHeaders = {};
  if (encoded.headerLength === undefined) headers['Content-Type'] = 'application/json';
  else {
    headers['Content-Type'] = 'application/octet-stream';
    headers['Inference-Header-Content-Length'] = encoded.headerLength;
  }
  const encoding = responseEncoding(headerText(req, 'accept-encoding'));
  const chunks = encoding ? [await compressBody(encoded.chunks, encoding)] : encoded.chunks;
  if (encoding) headers['Content-Encoding'] = encoding;
  let total = 0;
  for (const c of chunks) total += c.length;
  headers['Content-Length'] = total;
  res.writeHead(200, headers);
  if (chunks.length === 1) {
    res.end(chunks[0]);
    return;
  }
  res.cork();
  for (const c of chunks) res.write(c);
  res.end();
  res.uncork();
}

/** A request header as one string (a repeated header's values joined, as Node joins most). */
function headerText(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function sendJson(res: http.ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(200, { ...JSON_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendStatus(res: http.ServerResponse, status: number, contentType: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': 0 });
  res.end();
}

function sendError(
  res: http.ServerResponse,
  err: ServerError,
  close = false,
  extraHeaders: http.OutgoingHttpHeaders = {},
): void {
  if (res.destroyed || res.socket?.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: err.message });
  const headers: http.OutgoingHttpHeaders = {
    ...JSON_TYPE,
    ...extraHeaders,
    'Content-Length': Buffer.byteLength(body),
  };
  // After a rejected oversized body the rest of it is not read: close rather than parse it as a next request.
  if (close || err.code === 'TOO_LARGE') headers.Connection = 'close';
  res.writeHead(err.httpStatus, headers);
  res.end(body);
}
