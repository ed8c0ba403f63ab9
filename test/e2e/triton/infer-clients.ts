/**
 * Clients for the inference differential tests, sending exactly the bytes a test gives: HTTP over node:http
 * (no Accept-Encoding unless asked, nothing inflated on the way in) and gRPC over grpc-js with proto-loader,
 * both reducing an answer to what is compared.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_OPTIONS } from '@k6-triton/server';
import type { Target } from './servers.ts';

/** An HTTP answer: status, the headers that matter, the body as sent. */
export interface HttpAnswer {
  status: number;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** Inference-Header-Content-Length */
  headerLength: string | undefined;
  acceptEncoding: string | undefined;
  body: Buffer;
}

/** POSTs `body` to `path` with exactly `headers` (plus Host and Content-Length). */
export function post(
  target: Target,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const url = new URL(path, target.url);
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent: false, headers: { ...headers, 'Content-Length': bytes.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const one = (name: string) => {
            const v = res.headers[name];
            return Array.isArray(v) ? v.join(', ') : v;
          };
          resolve({
            status: res.statusCode ?? 0,
            contentType: one('content-type'),
            contentEncoding: one('content-encoding'),
            headerLength: one('inference-header-content-length'),
            acceptEncoding: one('accept-encoding'),
            body: Buffer.concat(chunks),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

/** An error answer as compared: status, Content-Type and the error message. */
export function httpError(a: HttpAnswer): { status: number; contentType?: string; error: unknown } {
  let error: unknown;
  try {
    error = JSON.parse(a.body.toString('utf8')).error;
  } catch {
    error = `not JSON: ${a.body.toString('utf8').slice(0, 200)}`;
  }
  return { status: a.status, contentType: a.contentType, error };
}

/** Triton's JSON writes NaN and ±Infinity bare (rapidjson): quoted here so that JSON.parse reads them. */
const NON_FINITE = /(?<=[[,])(-?Infinity|NaN)(?=[,\]])/g;

/** A successful infer answer, inflated: its JSON part (NaN and ±Infinity as strings) and the binary data after it. */
export function inferBody(a: HttpAnswer): { json: InferJson; binary: Buffer } {
  const raw =
    a.contentEncoding === 'gzip'
      ? zlib.gunzipSync(a.body)
      : a.contentEncoding === 'deflate'
        ? zlib.inflateSync(a.body)
        : a.body;
  const jsonEnd = a.headerLength === undefined ? raw.length : Number(a.headerLength);
  const text = raw.toString('utf8', 0, jsonEnd).replace(NON_FINITE, '"$1"');
  return { json: JSON.parse(text), binary: raw.subarray(jsonEnd) };
}

/** An infer response's JSON. */
export interface InferJson {
  id?: string;
  model_name: string;
  model_version: string;
  outputs: {
    name: string;
    datatype: string;
    shape: number[];
    data?: unknown[];
    parameters?: Record<string, unknown>;
  }[];
}

// biome-ignore lint/suspicious/noExplicitAny: proto-loader messages are plain objects the tests read freely
export type Msg = any;

/** A gRPC answer: the response, or the status code and details. */
export type GrpcAnswer = { ok: true; response: Msg } | { ok: false; code: number; details: string };

/** A GRPCInferenceService client with a promise per unary call and a whole-stream helper. */
export function inferenceClient(target: Target) {
  const def = protoLoader.loadSync('grpc_service.proto', PROTO_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as Msg;
  const client = new pkg.inference.GRPCInferenceService(target.grpcUrl, grpc.credentials.createInsecure());
  return {
    call(method: string, request: object): Promise<GrpcAnswer> {
      return new Promise((resolve) =>
        client[method](request, (err: grpc.ServiceError | null, response: Msg) =>
          resolve(err ? { ok: false, code: err.code, details: err.details } : { ok: true, response }),
        ),
      );
    },
    /** Writes every request on one ModelStreamInfer stream, half-closes, and collects every message. */
    stream(requests: object[]): Promise<{ messages: Msg[]; error?: { code: number; details: string } }> {
      return new Promise((resolve) => {
        const messages: Msg[] = [];
        const call = client.ModelStreamInfer();
        call.on('data', (m: Msg) => messages.push(m));
        call.on('error', (e: grpc.ServiceError) =>
          resolve({ messages, error: { code: e.code, details: e.details } }),
        );
        call.on('end', () => resolve({ messages }));
        for (const r of requests) call.write(r);
        call.end();
      });
    },
    close: () => client.close(),
  };
}
