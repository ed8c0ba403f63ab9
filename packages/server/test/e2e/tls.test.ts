/**
 * The embedded server on TLS: HTTPS on the HTTP port (trusted through its own certificate, refused to a
 * client that does not trust it), ModelInfer over TLS, and the connection cap counting HTTPS connections.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { connect } from 'node:http2';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../../measure/repository/built-in.ts';
import type { RunningServer, ServerOptions } from '@k6-triton/server';
import { selfSignedIdentity, type TlsIdentity, tlsIdentity } from '../../src/tls.ts';
import { binaryBody, makeRepository, removeRepository } from '../helpers.ts';

const MODEL_INFER_PATH = '/inference.GRPCInferenceService/ModelInfer';

let tls: TlsIdentity;
const servers: RunningServer[] = [];
async function serve(options: ServerOptions = {}): Promise<RunningServer> {
  const s = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: -1, tls, ...options });
  servers.push(s);
  return s;
}
beforeAll(async () => {
  tls = await selfSignedIdentity();
}, 30_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** A model with dlrm's shape of traffic: a 1 MiB request, an answer over the socket's 16 KiB high-water mark. */
const WIDE = `
name: "wide"
backend: "simulated"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 262144 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 8192 ] } ]
`;

/**
 * A client in its own process (the bug needs the server's event loop to see the next request before its
 * answer drained, which a client sharing that loop never lets happen): `count` POSTs of `bodyFile` one after
 * another on one keep-alive HTTPS connection; prints {"statuses": [...], "errors": [...]}.
 */
const SEQUENTIAL_CLIENT = `
import https from 'node:https';
import { readFileSync } from 'node:fs';
const [port, bodyFile, headerLength, count, caFile] = process.argv.slice(1);
const body = readFileSync(bodyFile);
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(caFile) });
const statuses = [];
const errors = [];
for (let i = 0; i < Number(count); i++) {
  await new Promise((resolve) => {
    const req = https.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v2/models/wide/infer', agent,
        headers: { 'Content-Length': body.length, 'Inference-Header-Content-Length': headerLength } },
      (res) => { res.resume(); res.on('end', () => { statuses.push(res.statusCode); resolve(); }); },
    );
    req.on('error', (err) => { errors.push(err.code ?? err.message); resolve(); });
    req.end(body);
  });
}
agent.destroy();
console.log(JSON.stringify({ statuses, errors }));
`;

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

  it('answers ModelInfer over TLS', async () => {
    const s = await serve({ httpPort: 0 });
    const a = await inferOverTls(s.grpcPort);
    expect(a.status).toBe(200);
    expect(a.grpcStatus).toBeDefined();
    expect(a.grpcStatus).not.toBe('0');
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

  it('keeps a keep-alive connection whose 1 MiB requests arrive while the last answer still drains', async () => {
    const repo = makeRepository({ wide: WIDE });
    try {
      // Answers sent from a timer, as a model's compute time sends them: the next request then often comes in
      // before the answer's drain (answers sent at once drained first in every try).
      const s = await serve({
        grpcPort: -1,
        modelRepository: repo,
        simulated: { timeScale: 0, extraDelay_ms: 5 },
      });
      const header = {
        parameters: { binary_data_output: true },
        inputs: [{ name: 'X', shape: [262144], datatype: 'FP32', parameters: { binary_data_size: 1 << 20 } }],
      };
      const { body, headerLength } = binaryBody(header, [Buffer.alloc(1 << 20)]);
      const bodyFile = join(repo, 'body.bin');
      const caFile = join(repo, 'ca.pem');
      writeFileSync(bodyFile, body);
      writeFileSync(caFile, tls.cert);
      const args = [String(s.httpPort), bodyFile, String(headerLength), '100', caFile];
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--input-type=module', '-e', SEQUENTIAL_CLIENT, ...args],
          { timeout: 90_000 },
          (err, stdout) => (err ? reject(err) : resolve(stdout)),
        ),
      );
      const { statuses, errors } = JSON.parse(out) as { statuses: number[]; errors: string[] };
      // Without parseFromSocketEvents about a third were cut off (ECONNRESET): the paused parser refused them (HPE_PAUSED).
      expect(errors).toEqual([]);
      expect(statuses).toEqual(Array(100).fill(200));
    } finally {
      removeRepository(repo);
    }
  }, 120_000);

  it('wants both --tls-cert and --tls-key, or neither', async () => {
    await expect(tlsIdentity({ certFile: '/nonexistent.pem' })).rejects.toThrow(
      /--tls-key is missing: give both --tls-cert and --tls-key/,
    );
  });
});
