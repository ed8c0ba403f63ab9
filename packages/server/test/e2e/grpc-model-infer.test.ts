/**
 * ModelInfer on node:http2 (packages/server/src/grpc/model-infer.ts) against grpc-js's own answer: the same request bytes
 * sent to a server of each kind must come back with the same headers, message and trailers, for answers and
 * for every error the path produces itself (grpc-message compared decoded: this path encodes it as gRPC C++
 * does, grpc-js encodes more). Requests go over a bare node:http2 client, so malformed bodies can be sent as
 * they are.
 */
import { connect, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { MODEL_INFER_PATH } from '../../src/grpc/model-infer.ts';
import { inferenceService } from '../../src/grpc/server.ts';
import { gateBackend, int32Bytes, makeRepository, removeRepository, start, waitFor } from '../helpers.ts';
import { GATED, SIMPLE } from '../repo-fixtures.ts';

const MAX_BYTES = 4096;

/** What came back for one call: headers and trailers without `date`, and the DATA bytes. */
interface Answer {
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  data: Buffer;
}

/** Sends one ModelInfer stream of `body` with `extra` headers and reads the whole answer. */
function send(port: number, body: Buffer, extra: OutgoingHttpHeaders = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': MODEL_INFER_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...extra,
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    const data: Buffer[] = [];
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', (d: Buffer) => data.push(d));
    stream.on('error', reject);
    stream.on('close', () => {
      session.close();
      delete headers.date;
      resolve({ headers, trailers, data: Buffer.concat(data) });
    });
    stream.end(body);
  });
}

/** Headers with grpc-message percent-decoded. */
function decodedMessage(h: IncomingHttpHeaders): IncomingHttpHeaders {
  const m = h['grpc-message'];
  return typeof m === 'string' ? { ...h, 'grpc-message': decodeURIComponent(m) } : h;
}

/** An answer with its grpc-message decoded, for comparing the two encodings. */
const decoded = (a: Answer): Answer => ({
  ...a,
  headers: decodedMessage(a.headers),
  trailers: decodedMessage(a.trailers),
});

/** A message with its gRPC prefix (`flag` 1: compressed). */
function framed(message: Buffer, flag = 0): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out[0] = flag;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

const encode = (request: object) => inferenceService().ModelInfer!.requestSerialize(request);
const simpleRequest = (model = 'simple') =>
  encode({
    model_name: model,
    id: 'r1',
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
    ],
    raw_input_contents: [int32Bytes([...Array(16).keys()]), int32Bytes(Array(16).fill(2))],
  });

describe('gRPC ModelInfer on node:http2', () => {
  let repo: string;
  const gates = [gateBackend(), gateBackend()];
  let lean: RunningServer;
  let grpcJs: RunningServer;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE, gated: GATED });
    const common = {
      modelRepository: repo,
      modelControlMode: 'explicit' as const,
      loadModels: ['*'],
      maxBody_bytes: MAX_BYTES,
    };
    lean = await start({ ...common, grpcModelInfer: 'node-http2', backends: { gate: gates[0]!.factory } });
    grpcJs = await start({ ...common, grpcModelInfer: 'grpc-js', backends: { gate: gates[1]!.factory } });
  });
  afterAll(async () => {
    for (const g of gates) g.release();
    await Promise.all([lean.stop(), grpcJs.stop()]);
    removeRepository(repo);
  });

  /** Both servers' answers to the same bytes. */
  const both = (body: Buffer, extra?: OutgoingHttpHeaders) =>
    Promise.all([send(lean.grpcPort, body, extra), send(grpcJs.grpcPort, body, extra)]);

  it('answers a call with the same headers, message and trailers as grpc-js', async () => {
    const [a, b] = await both(framed(simpleRequest()));
    expect(a.trailers['grpc-status']).toBe('0');
    expect(a.data.length).toBeGreaterThan(5);
    const reply = inferenceService().ModelInfer!.responseDeserialize(a.data.subarray(5)) as {
      model_name: string;
      id: string;
      raw_output_contents: Buffer[];
    };
    expect([reply.model_name, reply.id, reply.raw_output_contents.length]).toEqual(['simple', 'r1', 2]);
    expect(a).toEqual(b);
  });

  it.each([
    ['an unknown model', () => framed(simpleRequest('nope')), {}],
    ['no message', () => Buffer.alloc(0), {}],
    ['a truncated message', () => framed(simpleRequest()).subarray(0, 12), {}],
    ['two messages', () => Buffer.concat([framed(simpleRequest()), framed(simpleRequest())]), {}],
    ['bytes that are not a ModelInferRequest', () => framed(Buffer.from([0xff, 0xff, 0xff])), {}],
    ['a message over the size limit', () => framed(Buffer.alloc(MAX_BYTES + 1)), {}],
    ['an invalid grpc-timeout', () => framed(simpleRequest()), { 'grpc-timeout': 'soon' }],
  ])('answers %s with the status and message grpc-js gives', async (_what, body, extra) => {
    const [a, b] = await both(body(), extra);
    expect(a.headers['grpc-status'] ?? a.trailers['grpc-status']).not.toBe('0');
    expect(decoded(a)).toEqual(decoded(b));
  });

  it('writes grpc-message as gRPC C++ does: printable ASCII as it is, the rest and % percent-encoded', async () => {
    const [a, b] = await both(framed(simpleRequest('nope\u00e9%')));
    expect(a.headers['grpc-message']).toBe("Request for unknown model: 'nope%C3%A9%25' is not found");
    expect(b.headers['grpc-message']).toBe(
      "Request%20for%20unknown%20model:%20'nope%C3%A9%25'%20is%20not%20found",
    );
  });

  it('leaves a gzip-compressed call to grpc-js, which answers it', async () => {
    const body = framed(gzipSync(simpleRequest()), 1);
    const [a, b] = await both(body, { 'grpc-encoding': 'gzip' });
    expect(a.trailers['grpc-status']).toBe('0');
    expect(a).toEqual(b);
  });

  it('refuses a message flagged compressed under identity encoding, as the gRPC protocol asks', async () => {
    // grpc-js reads such a message as if it were not compressed; gRPC C++ (Triton) refuses it.
    const body = framed(simpleRequest(), 1);
    const [a, b] = await both(body);
    expect(a.headers['grpc-status']).toBe('13');
    expect(b.trailers['grpc-status']).toBe('0');
  });

  it('answers DEADLINE_EXCEEDED when grpc-timeout passes while the request waits, as grpc-js does', async () => {
    const body = framed(
      encode({
        model_name: 'gated',
        inputs: [{ name: 'X', datatype: 'FP32', shape: [4] }],
        raw_input_contents: [Buffer.alloc(16)],
      }),
    );
    const [a, b] = await both(body, { 'grpc-timeout': '100m' });
    expect(a.headers['grpc-status']).toBe('4');
    expect(decoded(a)).toEqual(decoded(b));
    await waitFor(() => gates.every((g) => g.state.started === 1), 'both gated requests to start');
  });
});
