/**
 * Real Triton's decoupled `repeat` backend as the generative tests and bench drive it: a repository holding
 * one repeat model, a ModelStreamInfer client that stamps every message with its arrival time, and a
 * generate_stream client that keeps every body chunk as it arrived. Inputs (repeat backend): IN INT32 [n],
 * DELAY UINT32 [n] ms (response i is sent DELAY[i] ms after response i-1), WAIT UINT32 [1]; outputs OUT, IDX.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_OPTIONS } from '@k6-triton/server';

/** The repeat model's name in the repository. */
export const REPEAT_MODEL = 'repeat_int32';

const REPEAT_CONFIG = `name: "${REPEAT_MODEL}"
backend: "repeat"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [
  { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] },
  { name: "DELAY" data_type: TYPE_UINT32 dims: [ -1 ] },
  { name: "WAIT" data_type: TYPE_UINT32 dims: [ 1 ] }
]
output [
  { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] }
]
instance_group [ { kind: KIND_CPU } ]
`;

/** Writes a repository with the repeat model into a new temporary folder; returns it. */
export function writeRepeatRepository(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6t-repeat-'));
  mkdirSync(path.join(dir, REPEAT_MODEL, '1'), { recursive: true });
  writeFileSync(path.join(dir, REPEAT_MODEL, 'config.pbtxt'), REPEAT_CONFIG);
  return dir;
}

/** Removes a repository written by writeRepeatRepository. */
export function removeRepeatRepository(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A repeat request: values to echo, one delay (ms) before each. */
export interface RepeatRequest {
  id: string;
  values: number[];
  delays_ms: number[];
  /** Sets triton_enable_empty_final_response; absent: not sent. */
  emptyFinal?: boolean;
}

/** The ModelInferRequest (proto-loader shape) of a repeat request. */
export function repeatInferRequest(r: RepeatRequest): object {
  return {
    model_name: REPEAT_MODEL,
    id: r.id,
    inputs: [
      { name: 'IN', datatype: 'INT32', shape: [r.values.length], contents: { int_contents: r.values } },
      {
        name: 'DELAY',
        datatype: 'UINT32',
        shape: [r.delays_ms.length],
        contents: { uint_contents: r.delays_ms },
      },
      { name: 'WAIT', datatype: 'UINT32', shape: [1], contents: { uint_contents: [0] } },
    ],
    ...(r.emptyFinal === undefined
      ? {}
      : { parameters: { triton_enable_empty_final_response: { bool_param: r.emptyFinal } } }),
  };
}

/** The generate_stream JSON body of a repeat request (inputs by name, parameters beside them). */
export function repeatGenerateBody(r: RepeatRequest): string {
  return JSON.stringify({
    IN: r.values,
    DELAY: r.delays_ms,
    WAIT: [0],
    ...(r.emptyFinal === undefined
      ? {}
      : { parameters: { triton_enable_empty_final_response: r.emptyFinal } }),
  });
}

/** One ModelStreamInfer message, read, with its arrival time. */
export interface StreamMessage {
  at_ms: number;
  id: string;
  error: string;
  /** The triton_final_response parameter, if the message carries it. */
  final?: boolean;
  /** OUT and IDX when the message has outputs. */
  out?: number;
  idx?: number;
  outputCount: number;
  /** The message as grpc-js and proto-loader decoded it. */
  raw: Msg;
}

// biome-ignore lint/suspicious/noExplicitAny: proto-loader messages are plain objects read field by field
type Msg = any;

/** A ModelStreamInfer client for one gRPC address. */
export function streamClient(grpcUrl: string) {
  const def = protoLoader.loadSync('grpc_service.proto', PROTO_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as Msg;
  const client = new pkg.inference.GRPCInferenceService(grpcUrl, grpc.credentials.createInsecure());
  return {
    /**
     * Opens one stream, writes the requests, and collects every message until `settled` says the stream has
     * all it waits for (then half-closes) or the server ends it. Returns when each request was written.
     */
    run(
      requests: RepeatRequest[],
      settled: (messages: StreamMessage[]) => boolean,
    ): Promise<{ sent_ms: Map<string, number>; messages: StreamMessage[]; status?: string }> {
      return new Promise((resolve) => {
        const messages: StreamMessage[] = [];
        const sent_ms = new Map<string, number>();
        const call = client.ModelStreamInfer();
        let ended = false;
        const half = () => {
          if (!ended) {
            ended = true;
            call.end();
          }
        };
        call.on('data', (m: Msg) => {
          const at_ms = performance.now();
          const r = m.infer_response ?? {};
          const raw: Buffer[] = r.raw_output_contents ?? [];
          const outputs: { name: string }[] = r.outputs ?? [];
          const at = (name: string) => outputs.findIndex((o) => o.name === name);
          const read = (i: number, signed: boolean) =>
            i < 0 || !raw[i] ? undefined : signed ? raw[i]!.readInt32LE(0) : raw[i]!.readUInt32LE(0);
          messages.push({
            at_ms,
            id: r.id ?? '',
            error: m.error_message ?? '',
            final: r.parameters?.triton_final_response?.bool_param,
            out: read(at('OUT'), true),
            idx: read(at('IDX'), false),
            outputCount: outputs.length,
            raw: m,
          });
          if (settled(messages)) half();
        });
        call.on('error', (e: grpc.ServiceError) =>
          resolve({ sent_ms, messages, status: `${e.code} ${e.details}` }),
        );
        call.on('end', () => resolve({ sent_ms, messages }));
        for (const r of requests) {
          sent_ms.set(r.id, performance.now());
          call.write(repeatInferRequest(r));
        }
        if (settled(messages)) half();
      });
    },
    close: () => client.close(),
  };
}

/** A streamed HTTP answer: status, Content-Type, each body chunk with its arrival time. */
export interface StreamedAnswer {
  status: number;
  contentType?: string;
  sent_ms: number;
  chunks: { at_ms: number; bytes: Buffer }[];
}

/** POSTs a JSON body and keeps the answer's body chunks as they arrive. */
export function postStreamed(url: string, body: string): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    const sent_ms = performance.now();
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': bytes.length },
      },
      (res) => {
        const chunks: { at_ms: number; bytes: Buffer }[] = [];
        res.on('data', (c: Buffer) => chunks.push({ at_ms: performance.now(), bytes: c }));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], sent_ms, chunks }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}
