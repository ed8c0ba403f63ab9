/**
 * The sequence batcher on the embedded server against real Triton 2.60.0, on one repository: the catalog's
 * sequence model as `k6-triton repository` writes it (identity backend, Direct strategy) and a copy with a short
 * idle timeout. The same requests, in the same order, go to both servers over HTTP and over gRPC: missing,
 * zero and empty correlation ids, a request without START, START on a live id, END and what follows it, string
 * ids on the identity backend, badly typed flags, a batch of two, and a sequence left idle past its timeout.
 * Each answer is compared whole: HTTP status and error words, gRPC code and details, echoed outputs. Skipped where
 * tritonserver is absent.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEQUENCE_MODELS } from '../../../models/catalog.ts';
import { configFromCatalog } from '../../../measure/repository/catalog-config.ts';
import { pbtxtOf, writeCatalogRepository } from '../../../measure/repository/export.ts';
import { type GrpcAnswer, inferenceClient, type Msg, post } from './infer-clients.ts';
import { REAL_TRITON, startPair, type Target } from './servers.ts';

const ENTRY = SEQUENCE_MODELS['sequence-identity']!;
const IDLE_MODEL = 'sequence_idle';
const IDLE_US = 200_000;

type Params = Record<string, unknown>;

/** The HTTP steps, sent in this order (later steps depend on the sequences earlier ones opened). */
const HTTP_STEPS: [string, Params, number?][] = [
  ['no correlation id', {}],
  ['no START for an unknown id', { sequence_id: 5 }],
  ['START', { sequence_id: 5, sequence_start: true }],
  ['START again on the live id', { sequence_id: 5, sequence_start: true }],
  ['a middle request', { sequence_id: 5 }],
  ['END', { sequence_id: 5, sequence_end: true }],
  ['a request after END', { sequence_id: 5 }],
  ['END after END', { sequence_id: 5, sequence_end: true }],
  ['a string id with START (identity reads uint64 ids)', { sequence_id: 'abc', sequence_start: true }],
  ['the string sequence goes on', { sequence_id: 'abc' }],
  ['the string sequence ends', { sequence_id: 'abc', sequence_end: true }],
  ['an unknown string id without START', { sequence_id: 'abd' }],
  ['id 0 with START', { sequence_id: 0, sequence_start: true }],
  ['an empty id with START', { sequence_id: '', sequence_start: true }],
  ['START and END on one request', { sequence_id: 7, sequence_start: true, sequence_end: true }],
  ['a negative id', { sequence_id: -3, sequence_start: true }],
  ['sequence_start as a number', { sequence_id: 8, sequence_start: 1 }],
  ['a batch of two', { sequence_id: 9, sequence_start: true }, 2],
  ['the largest id a double holds exactly', { sequence_id: 9007199254740991n, sequence_start: true }],
  ['that sequence ends', { sequence_id: 9007199254740991n, sequence_end: true }],
];

/** The gRPC steps: the same cases with InferParameter values, plus the wrong parameter kinds. */
const GRPC_STEPS: [string, Record<string, Msg>, number?][] = [
  ['no correlation id', {}],
  ['no START for an unknown id', { sequence_id: { int64_param: 21 } }],
  ['START', { sequence_id: { int64_param: 21 }, sequence_start: { bool_param: true } }],
  ['START again on the live id', { sequence_id: { int64_param: 21 }, sequence_start: { bool_param: true } }],
  ['a middle request', { sequence_id: { int64_param: 21 } }],
  ['END', { sequence_id: { int64_param: 21 }, sequence_end: { bool_param: true } }],
  ['a request after END', { sequence_id: { int64_param: 21 } }],
  [
    'sequence_id as uint64_param',
    { sequence_id: { uint64_param: 22 }, sequence_start: { bool_param: true } },
  ],
  ['sequence_start as int64_param', { sequence_id: { int64_param: 23 }, sequence_start: { int64_param: 1 } }],
  ['a string id', { sequence_id: { string_param: 's1' }, sequence_start: { bool_param: true } }],
  ['a negative int64 id', { sequence_id: { int64_param: -5 }, sequence_start: { bool_param: true } }],
  ['the negative id ends', { sequence_id: { int64_param: -5 }, sequence_end: { bool_param: true } }],
  ['id 0', { sequence_id: { int64_param: 0 }, sequence_start: { bool_param: true } }],
  ['a batch of two', { sequence_id: { int64_param: 24 }, sequence_start: { bool_param: true } }, 2],
];

/** An HTTP JSON infer body; bigint ids are written as bare JSON numbers. */
function httpBody(parameters: Params, batch = 1): string {
  const body = {
    inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [batch, 2], data: Array(batch * 2).fill(3) }],
    ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
  };
  return JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? `@@${v}@@` : v)).replace(
    /"@@(\d+)@@"/g,
    '$1',
  );
}

/** What is compared of an HTTP answer: status and error, or status and the echoed outputs. */
async function httpStep(target: Target, model: string, parameters: Params, batch?: number) {
  const answer = await post(target, `/v2/models/${model}/infer`, httpBody(parameters, batch), {
    'Content-Type': 'application/json',
  });
  const json = JSON.parse(answer.body.toString('utf8')) as { error?: string; outputs?: unknown };
  return { status: answer.status, error: json.error, outputs: json.outputs };
}

/** What is compared of a gRPC answer: code and details, or the echoed raw output. */
function grpcResult(answer: GrpcAnswer) {
  if (!answer.ok) return { code: answer.code, details: answer.details };
  const out = answer.response.outputs?.[0];
  return {
    code: 0,
    output: out?.name,
    shape: out?.shape?.map(Number),
    data: answer.response.raw_output_contents?.[0]?.toString('hex'),
  };
}

describe.skipIf(!REAL_TRITON.path)(
  `sequence batcher: embedded server vs real Triton ${REAL_TRITON.skipReason}`,
  () => {
    let repository: string;
    let pair: Awaited<ReturnType<typeof startPair>>;

    beforeAll(async () => {
      repository = mkdtempSync(path.join(tmpdir(), 'k6t-seq-'));
      await writeCatalogRepository(repository, { models: [ENTRY.id] });
      const idle = {
        ...ENTRY,
        name: IDLE_MODEL,
        deployment: {
          ...ENTRY.deployment,
          sequenceBatching: { strategy: 'direct' as const, maxSequenceIdleMicroseconds: IDLE_US },
        },
      };
      const dir = path.join(repository, IDLE_MODEL);
      mkdirSync(path.join(dir, '1'), { recursive: true });
      writeFileSync(path.join(dir, 'config.pbtxt'), pbtxtOf(configFromCatalog(idle, 'onnxruntime')));
      pair = await startPair(repository);
    }, 240_000);

    afterAll(async () => {
      await pair?.stop();
      if (repository) rmSync(repository, { recursive: true, force: true });
    });

    it('answers every HTTP step as Triton does', async () => {
      for (const [what, parameters, batch] of HTTP_STEPS) {
        const [embedded, triton] = await Promise.all(
          [pair.embedded, pair.triton].map((t) => httpStep(t, ENTRY.name, parameters, batch)),
        );
        expect(embedded, what).toEqual(triton);
      }
    });

    it('answers every gRPC step as Triton does', async () => {
      const clients = [pair.embedded, pair.triton].map(inferenceClient);
      try {
        for (const [what, parameters, batch = 1] of GRPC_STEPS) {
          const request = {
            model_name: ENTRY.name,
            inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [batch, 2] }],
            raw_input_contents: [Buffer.from(Int32Array.from(Array(batch * 2).fill(3)).buffer)],
            parameters,
          };
          const [embedded, triton] = await Promise.all(
            clients.map(async (c) => grpcResult(await c.call('ModelInfer', request))),
          );
          expect(embedded, what).toEqual(triton);
        }
      } finally {
        for (const c of clients) c.close();
      }
    });

    it('differs on purpose: an HTTP id past 2^53 (packages/server/README.md)', async () => {
      // JSON numbers are doubles in the embedded server: 2^64 - 1 reads as 2^64, which is no uint64.
      const parameters = { sequence_id: 18446744073709551615n, sequence_start: true };
      const [embedded, triton] = await Promise.all(
        [pair.embedded, pair.triton].map((t) => httpStep(t, ENTRY.name, parameters)),
      );
      expect(triton.status).toBe(200);
      expect(embedded).toEqual({
        status: 500,
        error: "Unable to parse 'sequence_id': attempt to access JSON non-string as string",
        outputs: undefined,
      });
    });

    it('ends a sequence left idle past max_sequence_idle_microseconds on both servers', async () => {
      const step = (parameters: Params) =>
        Promise.all([pair.embedded, pair.triton].map((t) => httpStep(t, IDLE_MODEL, parameters)));
      const [startE, startT] = await step({ sequence_id: 11, sequence_start: true });
      expect(startE.status).toBe(200);
      expect(startT.status).toBe(200);
      // Well past the 200 ms timeout on both (Triton's reaper wakes at the deadline).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const [afterE, afterT] = await step({ sequence_id: 11 });
      expect(afterT.status).toBe(400);
      expect(afterT.error).toContain('must specify the START flag');
      expect(afterE).toEqual(afterT);
    });
  },
);
