/**
 * What the transport libraries cost alone at concurrency 1 (issue 40, item 5): a server that answers
 * perf_analyzer's MNIST inference with a fixed answer, after a real onnxruntime-node run on the main thread, and
 * nothing else (no decoding, no scheduling, no statistics but the count perf_analyzer reads). Not the embedded
 * server: bench/server/c1-triton.ts sets these beside it to see how much of its round trip is the library's.
 * `node --import tsx bench/server/c1-floors.ts --kind http|grpc-js|http2|http2-core --port N --upstream URL
 *   --model-file F` (`upstream`: an embedded server on the same repository, asked once for the model's metadata
 * and config). `http2-core` is the bare node:http2 framing around the embedded server's own ModelInfer work
 * (protobufjs decoding, its core with the same ONNX model, encoding): what serving ModelInfer on node:http2
 * instead of grpc-js would reach at best.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as ort from 'onnxruntime-node';
import path from 'node:path';
import { startServer } from '../../packages/server/src/index.ts';
import { toInferResponseMsg, type InferRequestMsg } from '../../packages/server/src/grpc/convert.ts';
import { inferRequestOf, PROTO_OPTIONS } from '../../packages/server/src/grpc/messages.ts';
import { Cancellation } from '../../packages/server/src/infer/cancel.ts';
import { firstMessage, frameMessage } from '../../packages/runtime/src/wire/grpc-frame.ts';

const arg = (name: string, fallback?: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  const value = i > 0 ? process.argv[i + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
};
const kind = arg('kind');
const port = Number(arg('port'));
const upstream = arg('upstream');
const MODEL = 'onnx-mnist-cpu';

const session = await ort.InferenceSession.create(arg('model-file'), {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
});
const image = new ort.Tensor('float32', new Float32Array(784), [1, 1, 28, 28]);
const fetchJson = async (p: string) => (await fetch(upstream + p)).json() as Promise<Record<string, unknown>>;
const metadata = await fetchJson(`/v2/models/${MODEL}`);
const config = await fetchJson(`/v2/models/${MODEL}/config`);
const serverMetadata = await fetchJson('/v2');

let served = 0;
/** Statistics in Triton's form with every count at `served` (perf_analyzer checks that they move). */
function statistics(): Record<string, unknown> {
  const d = { count: served, ns: served * 1000 };
  return {
    model_stats: [
      {
        name: MODEL,
        version: '1',
        last_inference: Date.now(),
        inference_count: served,
        execution_count: served,
        inference_stats: {
          success: d,
          fail: { count: 0, ns: 0 },
          queue: d,
          compute_input: d,
          compute_infer: d,
          compute_output: d,
          cache_hit: { count: 0, ns: 0 },
          cache_miss: { count: 0, ns: 0 },
        },
        batch_stats: [{ batch_size: 1, compute_input: d, compute_infer: d, compute_output: d }],
      },
    ],
  };
}

/** The run every answer waits for, as the embedded server's in-process lane makes it. */
async function infer(): Promise<void> {
  await session.run({ 'input.1': image });
  served++;
}

if (kind === 'http') {
  // The answer the embedded server gives to perf_analyzer's binary request (its JSON header, then 40 bytes).
  const header = Buffer.from(
    JSON.stringify({
      model_name: MODEL,
      model_version: '1',
      outputs: [{ name: 'output', datatype: 'FP32', shape: [1, 10], parameters: { binary_data_size: 40 } }],
    }),
  );
  const answer = Buffer.concat([header, Buffer.alloc(40)]);
  const json = (res: http.ServerResponse, value: unknown) => {
    const body = JSON.stringify(value);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  http
    .createServer({ noDelay: true, keepAlive: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST') {
          void infer().then(() => {
            res.writeHead(200, {
              'Content-Type': 'application/octet-stream',
              'Inference-Header-Content-Length': header.length,
              'Content-Length': answer.length,
            });
            res.end(answer);
          });
        } else if (req.url?.endsWith('/stats')) json(res, statistics());
        else if (req.url?.endsWith('/config')) json(res, config);
        else if (req.url === '/v2') json(res, serverMetadata);
        else json(res, metadata);
      });
    })
    .listen(port, '127.0.0.1');
} else {
  const definition = protoLoader.loadSync('grpc_service.proto', PROTO_OPTIONS);
  const service = (
    grpc.loadPackageDefinition(definition) as unknown as {
      inference: { GRPCInferenceService: { service: grpc.ServiceDefinition } };
    }
  ).inference.GRPCInferenceService.service;
  const answers: Record<string, () => unknown> = {
    ServerLive: () => ({ live: true }),
    ServerReady: () => ({ ready: true }),
    ModelReady: () => ({ ready: true }),
    ServerMetadata: () => serverMetadata,
    ModelMetadata: () => metadata,
    ModelConfig: () => ({ config }),
    ModelStatistics: statistics,
  };
  const inferAnswer = service.ModelInfer!.responseSerialize({
    model_name: MODEL,
    model_version: '1',
    outputs: [{ name: 'output', datatype: 'FP32', shape: [1, 10] }],
    raw_output_contents: [Buffer.alloc(40)],
  });
  if (kind === 'grpc-js') {
    const server = new grpc.Server();
    // ModelInfer's bytes are neither decoded nor encoded: what is left is grpc-js's own cost per call.
    const raw = {
      ...service.ModelInfer!,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
    };
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const name of Object.keys(service)) {
      implementation[name] = ((_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
        callback(null, answers[name]?.() ?? {})) as never;
    }
    implementation.ModelInfer = ((_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
      void infer().then(() => callback(null, inferAnswer))) as never;
    server.addService({ ...service, ModelInfer: raw } as grpc.ServiceDefinition, implementation);
    const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    net
      .createServer({ noDelay: true }, (socket) => injector.injectConnection(socket))
      .listen(port, '127.0.0.1');
  } else {
    // Bare node:http2: each call's answer framed by hand, grpc-status in the trailers.
    // http2-core: the embedded server's core on the same repository, only its ModelInfer work used.
    const core =
      kind === 'http2-core'
        ? (
            await startServer({
              modelRepository: path.resolve(arg('model-file'), '../../..'),
              httpPort: 0,
              grpcPort: -1,
              metricsPort: -1,
            })
          ).core
        : undefined;
    const modelInfer = service.ModelInfer!;
    /** One ModelInfer as the embedded server's gRPC frontend does it, past grpc-js: decode, core, encode. */
    const coreInfer = async (frames: Buffer[]): Promise<Buffer> => {
      const bytes = firstMessage(Buffer.concat(frames))!;
      const msg = modelInfer.requestDeserialize(bytes) as InferRequestMsg;
      const result = await core!.infer(inferRequestOf(core!, msg, new Cancellation()));
      served++;
      return modelInfer.responseSerialize(toInferResponseMsg(result));
    };
    const h2 = http2.createServer();
    h2.on('stream', (stream, headers) => {
      const method = String(headers[':path']).split('/').pop() ?? '';
      const frames: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => frames.push(chunk));
      stream.on('end', async () => {
        let body: Buffer;
        if (method === 'ModelInfer' && core) body = await coreInfer(frames);
        else if (method === 'ModelInfer') {
          await infer();
          body = inferAnswer;
        } else body = service[method]!.responseSerialize(answers[method]?.() ?? {});
        const frame = frameMessage(body);
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frame);
      });
    });
    net.createServer({ noDelay: true }, (socket) => h2.emit('connection', socket)).listen(port, '127.0.0.1');
  }
}
console.log(`floor ${kind} listening on 127.0.0.1:${port}`);
