/**
 * An HTTP proxy that counts inference requests in flight, so a test can tell when a level of
 * concurrency 2 has started without reading the clock. A response is counted out before it is
 * forwarded, so one VU's next request can never overlap its previous one in the count. With `require`, it
 * is also a gateway that answers 401 to a request lacking any of those headers, as an authenticating one does.
 */
import http from 'node:http';

/** A running proxy: its URL, the most POSTs seen in flight at once, and how to close it. */
export interface InflightProxy {
  url: string;
  peak(): number;
  /** Requests answered 401 for a missing or wrong header, and POSTs that carried them all. */
  refused(): number;
  admittedPosts(): number;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:<ephemeral> to `target` (http://host:port); `require` maps lower-case names to values. */
export async function startInflightProxy(
  target: string,
  require: Readonly<Record<string, string>> = {},
): Promise<InflightProxy> {
  const upstream = new URL(target);
  let inflight = 0;
  let peak = 0;
  let refused = 0;
  let admittedPosts = 0;
  const server = http.createServer((req, res) => {
    if (Object.entries(require).some(([name, value]) => req.headers[name] !== value)) {
      refused++;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"unauthorized"}');
      return;
    }
    const counted = req.method === 'POST';
    if (counted) admittedPosts++;
    if (counted) peak = Math.max(peak, ++inflight);
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          if (counted) inflight--;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => {
      if (counted) inflight--;
      res.destroy();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    peak: () => peak,
    refused: () => refused,
    admittedPosts: () => admittedPosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
