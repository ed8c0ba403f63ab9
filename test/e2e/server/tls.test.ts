/**
 * The embedded server on TLS: HTTPS on the HTTP port (trusted through its own certificate, refused to a
 * client that does not trust it), ModelInfer over TLS answered alike by the node:http2 path and grpc-js,
 * and the connection cap counting HTTPS connections.
 */
import https from 'node:https';
import { connect } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_INFER_PATH } from '../../../server/grpc/model-infer.ts';
import { type RunningServer, startServer } from '../../../server/index.ts';
import { selfSignedIdentity, type TlsIdentity, tlsIdentity } from '../../../server/tls.ts';

let tls: TlsIdentity;
const servers: RunningServer[] = [];
async function serve(options: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const s = await startServer({ httpPort: 0, grpcPort: 0, metricsPort: -1, tls, ...options });
  servers.push(s);
  return s;
}
beforeAll(async () => {
  tls = await selfSignedIdentity();
}, 30_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** GET over HTTPS with `agent`; the status, or the error's code. */
function get(port: number, path: string, options: https.RequestOptions): Promise<number | string> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path, ...options }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** One ModelInfer over TLS with an empty request; the status headers and trailers without dates. */
function inferOverTls(port: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const session = connect(`https://127.0.0.1:${port}`, { ca: tls.cert });
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': MODEL_INFER_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    const out: Record<string, unknown> = {};
    // An error comes trailers-only: its grpc-status is in the headers.
    stream.on('response', (h) => Object.assign(out, { status: h[':status'], grpcStatus: h['grpc-status'] }));
    stream.on('trailers', (t) => Object.assign(out, { grpcStatus: t['grpc-status'] ?? out.grpcStatus }));
    stream.on('error', reject);
    stream.resume();
    stream.on('close', () => {
      session.close();
      resolve(out);
    });
    stream.end(Buffer.from([0, 0, 0, 0, 0]));
  });
}

describe('embedded server on TLS', () => {
  it('serves HTTPS to a client trusting its certificate, and refuses one that does not', async () => {
    const s = await serve({ grpcPort: -1 });
    expect(s.tlsCert).toBe(tls.cert);
    expect(await get(s.httpPort, '/v2/health/ready', { ca: tls.cert })).toBe(200);
    expect(await get(s.httpPort, '/v2/health/ready', {})).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it('answers ModelInfer over TLS the same on node:http2 and on grpc-js', async () => {
    const fast = await serve({ httpPort: 0 });
    const grpcJs = await serve({ grpcModelInfer: 'grpc-js' });
    const a = await inferOverTls(fast.grpcPort);
    expect(a.status).toBe(200);
    expect(a.grpcStatus).toBeDefined();
    expect(a.grpcStatus).not.toBe('0');
    expect(a).toEqual(await inferOverTls(grpcJs.grpcPort));
  });

  it('counts HTTPS connections against the cap', async () => {
    const s = await serve({ grpcPort: -1, limits: { maxConnections: 1 } });
    const first = new https.Agent({ keepAlive: true, maxSockets: 1, ca: tls.cert });
    const second = new https.Agent({ keepAlive: true, maxSockets: 1, ca: tls.cert });
    try {
      expect(await get(s.httpPort, '/v2/models/x/infer', { agent: first, method: 'GET' })).not.toBe(503);
      expect(await get(s.httpPort, '/v2', { agent: second })).toBe(503);
    } finally {
      first.destroy();
      second.destroy();
    }
  });

  it('wants both --tls-cert and --tls-key, or neither', async () => {
    await expect(tlsIdentity({ certFile: '/nonexistent.pem' })).rejects.toThrow(
      /--tls-key is missing: give both --tls-cert and --tls-key/,
    );
  });
});
