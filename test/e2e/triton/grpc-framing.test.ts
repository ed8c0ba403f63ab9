/**
 * ModelInfer bodies that are not exactly one gRPC message, sent over a bare HTTP/2 client to the embedded server
 * (always) and to real Triton (where tritonserver is found; the answers must then be the same): no message, a cut
 * one or bytes that are no request answer INTERNAL "Unable to parse request", a second message is ignored.
 */
import { connect } from 'node:http2';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCatalogRepository } from '../../../measure/repository/export.ts';
import { observeEmbedded, REAL_TRITON, startRealTarget, type Target } from './servers.ts';

/** ModelInfer's codec, from the repository's copy of Triton's proto (independent of the server's code). */
const modelInfer = (() => {
  const def = protoLoader.loadSync('grpc_service.proto', {
    keepCase: true,
    longs: String,
    includeDirs: [fileURLToPath(new URL('../../../proto/', import.meta.url))],
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    inference: { GRPCInferenceService: { service: grpc.ServiceDefinition } };
  };
  return pkg.inference.GRPCInferenceService.service.ModelInfer!;
})();

if (!REAL_TRITON.path) console.warn(`gRPC framing against real Triton: ${REAL_TRITON.skipReason}`);

interface Answer {
  status: string | undefined;
  message: string | undefined;
  model: string | undefined;
}

/** One ModelInfer call whose body is `body` as it is; the status, its message (decoded) and the answer's model. */
function call(grpcUrl: string, body: Buffer, rpc = 'ModelInfer'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://${grpcUrl}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': `/inference.GRPCInferenceService/${rpc}`,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    const fields: Record<string, unknown> = {};
    const data: Buffer[] = [];
    stream.on('response', (h) => Object.assign(fields, h));
    stream.on('trailers', (t) => Object.assign(fields, t));
    stream.on('data', (d: Buffer) => data.push(d));
    stream.on('error', reject);
    stream.on('close', () => {
      session.close();
      const bytes = Buffer.concat(data);
      const reply =
        bytes.length > 5
          ? (modelInfer.responseDeserialize(bytes.subarray(5)) as { model_name: string })
          : undefined;
      const message = fields['grpc-message'];
      resolve({
        status: fields['grpc-status'] as string | undefined,
        message: typeof message === 'string' ? decodeURIComponent(message) : undefined,
        model: reply?.model_name,
      });
    });
    stream.end(body);
  });
}

function framed(message: Buffer, length = message.length): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(length, 1);
  return Buffer.concat([head, message]);
}

const request = modelInfer.requestSerialize({
  model_name: 'onnx-mnist-cpu',
  inputs: [{ name: 'input.1', datatype: 'FP32', shape: [1, 1, 28, 28] }],
  raw_input_contents: [Buffer.alloc(3136)],
});

/** A whole frame's bytes that are no request message (field 31, wire type 7: invalid). */
const GARBAGE = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

async function observe(target: Target): Promise<Record<string, Answer>> {
  return {
    one: await call(target.grpcUrl, framed(request)),
    none: await call(target.grpcUrl, Buffer.alloc(0)),
    cut: await call(target.grpcUrl, framed(request, request.length + 10)),
    shortPrefix: await call(target.grpcUrl, Buffer.from([0, 0, 0])),
    two: await call(target.grpcUrl, Buffer.concat([framed(request), framed(request)])),
    undecodable: await call(target.grpcUrl, framed(GARBAGE)),
    streamUndecodable: await call(target.grpcUrl, framed(GARBAGE), 'ModelStreamInfer'),
  };
}

describe('ModelInfer bodies without exactly one message', () => {
  let dir = '';
  let embedded: Record<string, Answer>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k6t-grpc-framing-'));
    await writeCatalogRepository(dir, { models: ['mnist'] });
    embedded = await observeEmbedded(dir, observe);
  }, 60_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers INTERNAL "Unable to parse request" without a whole message, and serves the first of two', () => {
    const unparsable = { status: '13', message: 'Unable to parse request', model: undefined };
    expect(embedded.none).toEqual(unparsable);
    expect(embedded.cut).toEqual(unparsable);
    expect(embedded.shortPrefix).toEqual(unparsable);
    expect(embedded.undecodable).toEqual(unparsable);
    // A stream stops reading there and closes OK with no answer.
    expect(embedded.streamUndecodable).toMatchObject({ status: '0', model: undefined });
    expect(embedded.two).toEqual(embedded.one);
    expect(embedded.one).toMatchObject({ status: '0', model: 'onnx-mnist-cpu' });
  });

  it.skipIf(!REAL_TRITON.path)(
    `answers as real Triton does${REAL_TRITON.path ? '' : ` (${REAL_TRITON.skipReason})`}`,
    async () => {
      const triton = await startRealTarget(dir);
      try {
        const seen = await observe(triton);
        // Triton sends no grpc-message with status 0, grpc-js sends "OK": compare statuses and models there.
        for (const key of ['one', 'two', 'streamUndecodable'] as const) {
          expect({ ...seen[key], message: undefined }).toEqual({ ...embedded[key], message: undefined });
        }
        const bad = ['none', 'cut', 'shortPrefix', 'undecodable'] as const;
        expect(Object.fromEntries(bad.map((k) => [k, seen[k]]))).toEqual(
          Object.fromEntries(bad.map((k) => [k, embedded[k]])),
        );
      } finally {
        await triton.stop();
      }
    },
    120_000,
  );
});
