/**
 * A ModelStreamInfer client for generative tests and benches: writes requests on one stream and stamps every
 * message with its arrival time, plus the gpt2 request (models/generative.ts) in proto-loader's shape.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { GPT2 } from '../../../models/generative.ts';
import { PROTO_OPTIONS } from '../src/grpc/messages.ts';

// biome-ignore lint/suspicious/noExplicitAny: proto-loader messages are plain objects read field by field
export type Msg = any;

/** One gpt2 request. */
export interface Gpt2Ask {
  id: string;
  prompt: string;
  maxTokens: number;
  /** The `stream` input. @default true */
  stream?: boolean;
  /** Sets triton_enable_empty_final_response; absent: not sent. */
  emptyFinal?: boolean;
}

/** The ModelInferRequest of a gpt2 request. */
export function gpt2InferRequest(a: Gpt2Ask): object {
  const bytes = Buffer.from(a.prompt);
  return {
    model_name: GPT2.name,
    id: a.id,
    inputs: [
      { name: 'text_input', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [bytes] } },
      { name: 'max_tokens', datatype: 'INT32', shape: [1], contents: { int_contents: [a.maxTokens] } },
      { name: 'stream', datatype: 'BOOL', shape: [1], contents: { bool_contents: [a.stream ?? true] } },
    ],
    ...(a.emptyFinal === undefined
      ? {}
      : { parameters: { triton_enable_empty_final_response: { bool_param: a.emptyFinal } } }),
  };
}

/** A GRPCInferenceService client of one address. */
export function inferenceClient(grpcUrl: string): Msg {
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync('grpc_service.proto', PROTO_OPTIONS)) as Msg;
  return new pkg.inference.GRPCInferenceService(grpcUrl, grpc.credentials.createInsecure());
}

/** A stream message with its arrival time. */
export interface Arrived {
  at_ms: number;
  m: Msg;
}

/** Writes `requests` on one stream and collects messages until each id in `expected` has its count. */
export function streamMessages(
  client: Msg,
  requests: object[],
  expected: Record<string, number>,
): Promise<{ sent_ms: number; messages: Arrived[] }> {
  return new Promise((resolve, reject) => {
    const messages: Arrived[] = [];
    const call = client.ModelStreamInfer();
    const settled = () =>
      Object.entries(expected).every(
        ([id, n]) => messages.filter((x) => (x.m.infer_response?.id ?? '') === id).length >= n,
      );
    call.on('data', (m: Msg) => {
      messages.push({ at_ms: performance.now(), m });
      if (settled()) call.end();
    });
    call.on('error', reject);
    call.on('end', () => resolve({ sent_ms, messages }));
    const sent_ms = performance.now();
    for (const r of requests) call.write(r);
  });
}

/** The messages answering one request id. */
export function ofRequest<T extends { m: Msg }>(messages: T[], id: string): T[] {
  return messages.filter((x) => x.m.infer_response?.id === id);
}
