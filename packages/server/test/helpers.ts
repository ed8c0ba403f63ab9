/**
 * Test helpers: a temporary Triton-layout repository, the server on ephemeral ports, a gRPC client loaded from
 * proto/ (independent of the server's own code), and a "gate" backend whose executions wait for the test.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Backend, BackendFactory, TensorData } from '../src/backends/types.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer, ServerOptions } from '@k6-triton/server';

const PROTO_DIR = fileURLToPath(new URL('../../../proto/', import.meta.url));

/** Writes `<dir>/<model>/config.pbtxt` and `<dir>/<model>/1/` for each entry; returns the repository folder. */
export function makeRepository(models: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6t-repo-'));
  for (const [name, pbtxt] of Object.entries(models)) {
    mkdirSync(path.join(dir, name, '1'), { recursive: true });
    writeFileSync(path.join(dir, name, 'config.pbtxt'), pbtxt);
  }
  return dir;
}

/** Removes a repository made by makeRepository. */
export function removeRepository(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Starts the server on ephemeral ports of 127.0.0.1. */
export function start(options: ServerOptions = {}): Promise<RunningServer> {
  return startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: 0, ...options });
}

/** Parsed JSON of answers the tests index freely. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
export type Json = any;

/** HTTP answer: status, headers, body bytes. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  json(): Json;
}

/** One HTTP request to the server under test. */
export async function http(
  server: RunningServer,
  method: string,
  urlPath: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const res = await fetch(`http://127.0.0.1:${server.httpPort}${urlPath}`, {
    method,
    body: body === undefined ? undefined : typeof body === 'string' ? body : new Uint8Array(body),
    headers,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    body: bytes,
    json: () => JSON.parse(bytes.toString('utf8')),
  };
}

/** A binary-extension infer body built by hand: JSON header then raw tensor bytes. */
export function binaryBody(header: object, tensors: Buffer[]): { body: Buffer; headerLength: number } {
  const json = Buffer.from(JSON.stringify(header));
  return { body: Buffer.concat([json, ...tensors]), headerLength: json.length };
}

/** Little-endian bytes of numbers as INT32 / FP32. */
export function int32Bytes(values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) b.writeInt32LE(values[i]!, i * 4);
  return b;
}
export function fp32Bytes(values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) b.writeFloatLE(values[i]!, i * 4);
  return b;
}

/** A gRPC client of inference.GRPCInferenceService with promise-returning unary calls. */
export function grpcClient(server: RunningServer, options: grpc.ChannelOptions = {}) {
  const def = protoLoader.loadSync('grpc_service.proto', {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: [PROTO_DIR],
  });
  const pkg = grpc.loadPackageDefinition(def) as Json;
  const client = new pkg.inference.GRPCInferenceService(
    `127.0.0.1:${server.grpcPort}`,
    grpc.credentials.createInsecure(),
    options,
  ) as grpc.Client & Record<string, Json>;
  const call = (method: string, request: object): Promise<Json> =>
    new Promise((resolve, reject) => {
      client[method](request, (err: grpc.ServiceError | null, res: unknown) =>
        err ? reject(err) : resolve(res),
      );
    });
  return { client, call, close: () => client.close() };
}

/** Polls until `check` is true (bounded). */
export async function waitFor(check: () => boolean, what: string, limit_ms = 10_000): Promise<void> {
  const until = Date.now() + limit_ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * A backend whose executions block until the test opens the gate; it records batch sizes and the most
 * executions seen at once. Outputs echo the first input, truncated or zero-padded to each output's size.
 */
export function gateBackend() {
  let open = false;
  let waiters: (() => void)[] = [];
  const state = { running: 0, maxRunning: 0, batches: [] as number[], started: 0 };
  const factory: BackendFactory = async (ctx) => {
    const outputs = ctx.config.output;
    const backend: Backend = {
      async execute(inputs: TensorData[], names: string[]) {
        state.started += 1;
        state.running += 1;
        state.maxRunning = Math.max(state.maxRunning, state.running);
        state.batches.push(ctx.config.max_batch_size > 0 ? inputs[0]!.shape[0]! : 1);
        if (!open) await new Promise<void>((r) => waiters.push(r));
        state.running -= 1;
        const batch = ctx.config.max_batch_size > 0 ? [inputs[0]!.shape[0]!] : [];
        return names.map((name) => {
          const o = outputs.find((x) => x.name === name)!;
          const shape = [...batch, ...o.dims];
          const size = shape.reduce((a, b) => a * b, 1) * 4;
          const data = new Uint8Array(size);
          data.set(inputs[0]!.data.subarray(0, size));
          return { name, datatype: 'FP32', shape, data };
        });
      },
      async close() {},
    };
    return backend;
  };
  return {
    factory,
    state,
    release() {
      open = true;
      for (const w of waiters) w();
      waiters = [];
    },
    close() {
      open = false;
    },
  };
}
