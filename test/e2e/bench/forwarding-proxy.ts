/**
 * An HTTP proxy on 127.0.0.1:<ephemeral> for tests and benches that need to see what a bench sends: each
 * request is forwarded to the target as it is, with hooks when it arrives and when its answer is back (before
 * that answer is forwarded, so a client's next request can never overtake the hook).
 */
import http from 'node:http';

/** What the proxy calls per request. */
export interface ProxyHooks {
  /** The request arrived (before it is forwarded). */
  onRequest?(req: http.IncomingMessage): void;
  /** A status to answer with instead of forwarding (a gateway refusing it), or undefined to forward it. */
  refuse?(req: http.IncomingMessage): number | undefined;
  /**
   * An answer of the proxy's own instead of forwarding (after the request body is read), 'hang' to read the
   * request and never answer (close() ends the socket), or undefined to forward it.
   */
  answer?(req: http.IncomingMessage): ProxyAnswer | 'hang' | undefined;
  /** The target answered in full, or failed (`status` undefined); called before the answer is forwarded. */
  onAnswered?(req: http.IncomingMessage, status: number | undefined): void;
}

/** What the proxy answers by itself. */
export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** A running proxy: its URL and how to close it. */
export interface ForwardingProxy {
  url: string;
  close(): Promise<void>;
}

/** Proxies to `target` (http://host:port) over keep-alive connections, calling `hooks` per request. */
export async function startForwardingProxy(target: string, hooks: ProxyHooks = {}): Promise<ForwardingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const server = http.createServer((req, res) => {
    hooks.onRequest?.(req);
    const refused = hooks.refuse?.(req);
    if (refused !== undefined) {
      res.writeHead(refused, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `refused with ${refused}` }));
      return;
    }
    const own = hooks.answer?.(req);
    if (own !== undefined) {
      req.resume();
      if (own !== 'hang') req.once('end', () => res.writeHead(own.status, own.headers).end(own.body));
      return;
    }
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
        agent,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          hooks.onAnswered?.(req, answer.statusCode);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => {
      hooks.onAnswered?.(req, undefined);
      res.destroy();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
