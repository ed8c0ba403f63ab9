/**
 * k6's REST API server (`--address`), on the supervisor's thread so it answers while script code is
 * busy: /v1/status, /v1/metrics, /v1/groups, /v1/setup, and `ok` on /ping and any other path outside /v1/,
 * as k6's router does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getGroup, getGroups } from './groups.ts';
import { getMetric, getMetrics } from './metrics.ts';
import { getSetup, notAvailable } from './setup.ts';
import { getStatus, patchStatus, readBody } from './status.ts';
import type { RunApi } from './types.ts';

/** A listening API server. */
export interface ApiServer {
  close(): Promise<void>;
}

/** Why the server could not listen, in Go's words as k6 logs them (`listen tcp …`). */
export class ApiListenError extends Error {}

/** Splits `host:port` as Go's net.Listen does; throws Go's message for an address it refuses. */
export function parseAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  if (colon < 0) throw new ApiListenError(`listen tcp: address ${address}: missing port in address`);
  let host = address.slice(0, colon);
  const port = address.slice(colon + 1);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (!/^\d+$/.test(port) || Number(port) > 65535)
    throw new ApiListenError(`listen tcp: lookup tcp/${port}: unknown port`);
  return { host, port: Number(port) };
}

/** Listens on `address` and serves `api`; rejects with an ApiListenError when it cannot. */
export async function startApiServer(address: string, api: RunApi): Promise<ApiServer> {
  const { host, port } = parseAddress(address);
  const server = createServer((req, res) => {
    route(api, req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new ApiListenError(listenMessage(address, err))),
    );
    // An empty host listens on every interface, as Go's ":6565".
    server.listen(port, host === '' ? undefined : host, () => resolve());
  });
  // The API must not keep the process alive once the run is over.
  server.unref();
  return { close: () => closeServer(server) };
}

function listenMessage(address: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'EADDRINUSE') return `listen tcp ${address}: bind: address already in use`;
  if (err.code === 'EACCES') return `listen tcp ${address}: bind: permission denied`;
  if (err.code === 'EADDRNOTAVAIL') return `listen tcp ${address}: bind: cannot assign requested address`;
  return `listen tcp ${address}: ${err.message}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Requests in flight are answered (the link answers them from its last snapshot), then the sockets close.
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

const methodNotAllowed = (res: ServerResponse): void =>
  void res.writeHead(405, { 'Content-Length': 0 }).end();

async function route(api: RunApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://api').pathname);
  const method = req.method ?? 'GET';
  const only = (allowed: string, fn: () => Promise<void> | void) =>
    method === allowed ? fn() : methodNotAllowed(res);
  if (path === '/v1/status') {
    if (method === 'GET') return getStatus(api, res);
    if (method === 'PATCH') return patchStatus(api, await readBody(req), res);
    return methodNotAllowed(res);
  }
  if (path === '/v1/metrics') return only('GET', () => getMetrics(api, res));
  if (path.startsWith('/v1/metrics/'))
    return only('GET', () => getMetric(api, path.slice('/v1/metrics/'.length), res));
  if (path === '/v1/groups') return only('GET', () => getGroups(api, res));
  if (path.startsWith('/v1/groups/'))
    return only('GET', () => getGroup(api, path.slice('/v1/groups/'.length), res));
  if (path === '/v1/setup') {
    if (method === 'GET') return getSetup(api, res);
    if (method === 'POST') return notAvailable(res, 'running setup() from the REST API');
    if (method === 'PUT') return notAvailable(res, 'setting the setup data from the REST API');
    return methodNotAllowed(res);
  }
  if (path === '/v1/teardown')
    return only('POST', () => notAvailable(res, 'running teardown() from the REST API'));
  if (path.startsWith('/v1/')) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    return void res.end('404 page not found\n');
  }
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('ok');
}
