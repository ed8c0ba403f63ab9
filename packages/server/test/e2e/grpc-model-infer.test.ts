/**
 * ModelInfer on the wire (grpc-js answers every RPC): answers and the errors of malformed calls, over a bare
 * node:http2 client, so malformed bodies can be sent as they are.
 */
import { connect, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferenceService } from '../../src/grpc/server.ts';
import type { RunningServer } from '@k6-triton/server';
import { gateBackend, int32Bytes, makeRepository, removeRepository, start, waitFor } from '../helpers.ts';
import { GATED, SIMPLE } from '../repo-fixtures.ts';

const MAX_BYTES = 4096;
const MODEL_INFER_PATH = '/inference.GRPCInferenceService/ModelInfer';

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

describe('gRPC ModelInfer on the wire', () => {
  let repo: string;
  const gate = gateBackend();
  let server: RunningServer;
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE, gated: GATED });
    server = await start({
      modelRepository: repo,
      modelControlMode: 'explicit',
      loadModels: ['*'],
      maxBody_bytes: MAX_BYTES,
      backends: { gate: gate.factory },
    });
  });
  afterAll(async () => {
    gate.release();
    await server.stop();
    removeRepository(repo);
  });

  const status = (a: Answer) => a.headers['grpc-status'] ?? a.trailers['grpc-status'];

  it('answers a call with its outputs and status 0', async () => {
    const a = await send(server.grpcPort, framed(simpleRequest()));
    expect(status(a)).toBe('0');
    const reply = inferenceService().ModelInfer!.responseDeserialize(a.data.subarray(5)) as {
      model_name: string;
      id: string;
      raw_output_contents: Buffer[];
    };
    expect([reply.model_name, reply.id, reply.raw_output_contents.length]).toEqual(['simple', 'r1', 2]);
  });

  it.each([
    ['an unknown model', () => framed(simpleRequest('nope')), {}, '5'],
    ['no message', () => Buffer.alloc(0), {}, '13'],
    ['a truncated message', () => framed(simpleRequest()).subarray(0, 12), {}, '13'],
    ['bytes that are not a ModelInferRequest', () => framed(Buffer.from([0xff, 0xff, 0xff])), {}, '13'],
    ['a message over the size limit', () => framed(Buffer.alloc(MAX_BYTES + 1)), {}, '8'],
  ])('answers %s with an error status', async (_what, body, extra, code) => {
    const a = await send(server.grpcPort, body(), extra);
    expect(status(a)).toBe(code);
  });

  // Triton 2.60.0's answers, seen with a bare HTTP/2 client: INTERNAL "Unable to parse request" for a body without
  // a whole message; a second message is ignored, the call served from the first.
  it.each([
    ['no message', Buffer.alloc(0)],
    ['a truncated message', framed(simpleRequest()).subarray(0, 12)],
    ['a length prefix longer than the body', framed(simpleRequest()).subarray(0, 40)],
  ])('answers %s with INTERNAL "Unable to parse request", as Triton', async (_what, body) => {
    const a = await send(server.grpcPort, body);
    expect([
      status(a),
      decodeURIComponent(String(a.trailers['grpc-message'] ?? a.headers['grpc-message'])),
    ]).toEqual(['13', 'Unable to parse request']);
  });

  it('serves two messages in one call from the first, as Triton', async () => {
    const second = framed(simpleRequest('nope'));
    const a = await send(server.grpcPort, Buffer.concat([framed(simpleRequest()), second]));
    expect(status(a)).toBe('0');
    const reply = inferenceService().ModelInfer!.responseDeserialize(a.data.subarray(5)) as {
      model_name: string;
    };
    expect(reply.model_name).toBe('simple');
  });

  it('answers a gzip-compressed call', async () => {
    const a = await send(server.grpcPort, framed(gzipSync(simpleRequest()), 1), { 'grpc-encoding': 'gzip' });
    expect(status(a)).toBe('0');
  });

  it('answers DEADLINE_EXCEEDED when grpc-timeout passes while the request waits', async () => {
    const body = framed(
      encode({
        model_name: 'gated',
        inputs: [{ name: 'X', datatype: 'FP32', shape: [4] }],
        raw_input_contents: [Buffer.alloc(16)],
      }),
    );
    const a = await send(server.grpcPort, body, { 'grpc-timeout': '100m' });
    expect(status(a)).toBe('4');
    await waitFor(() => gate.state.started === 1, 'the gated request to start');
  });
});
