/**
 * Fuzzing the server: a few thousand seeded mutations of valid HTTP and gRPC requests (framing, headers, JSON,
 * binary sizes, content encodings, protobuf bytes), bounded in time. No answer may be a 500 of the server's own
 * (Triton answers its JSON library's refusals with 500, and so does this server; nothing else), nor a stack
 * overflow, no connection may hang, errors stay one line, and afterwards the server answers health and a
 * valid inference over both protocols.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { type GrpcCase, grpcCorpus, httpCorpus } from '../fuzz-corpus.ts';
import { grpcClient, http, int32Bytes, makeRepository, removeRepository, start } from '../helpers.ts';
import { rawHttp } from '../raw-http.ts';
import { NOBATCH, SIMPLE, STRINGS } from '../repo-fixtures.ts';

/** FUZZ_SEED=n explores another corpus; the default one is what CI runs. */
const SEED = Number(process.env.FUZZ_SEED ?? 11);
const HTTP_CASES = 3000;
const GRPC_CASES = 1200;
/** Wall-clock budget of each protocol's run; cases left when it is spent are skipped (and counted). */
const BUDGET_MS = 45_000;
const CONCURRENCY = 16;

const PROTO_DIR = fileURLToPath(new URL('../../../../proto/', import.meta.url));

/**
 * The 500s Triton answers too: a body its JSON library refuses (unparsable text, a field of the wrong type), and
 * a repository load whose config it cannot read.
 */
const TRITON_500 =
  /^\{"error":"(failed to parse the request JSON buffer: |failed to get request params\.: |Unable to (parse|set) '[a-z_]+': |Unable to parse JSON bytes array: |attempt to (access JSON non-|get members for non-object)|unexpected error on creating Triton parameter|failed to load '[^']*', failed to poll from model repository)/;

function inferEncoder(): (msg: Record<string, unknown>) => Buffer {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync('grpc_service.proto', { keepCase: false });
  const type = root.lookupType('inference.ModelInferRequest');
  return (msg) => Buffer.from(type.encode(type.fromObject(msg)).finish());
}

/** Runs `tasks` `CONCURRENCY` at a time until done or the budget is spent; returns how many ran. */
async function pool<T>(items: T[], task: (item: T) => Promise<void>): Promise<number> {
  const until = Date.now() + BUDGET_MS;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length && Date.now() < until) await task(items[next++]!);
    }),
  );
  return next;
}

describe('fuzz', () => {
  let server: RunningServer;
  let repo: string;
  beforeAll(async () => {
    repo = makeRepository({
      simple: SIMPLE,
      nobatch: NOBATCH,
      strings: STRINGS,
      loadme: SIMPLE.replace('name: "simple"', 'name: "loadme"'),
    });
    server = await start({
      modelRepository: repo,
      modelControlMode: 'explicit',
      loadModels: ['*'],
      maxBody_bytes: 256 * 1024,
      limits: { requestTimeout_ms: 1000, headersTimeout_ms: 1000 },
    });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  it('survives a few thousand malformed HTTP requests without a 500 of its own or a hung connection', async () => {
    const corpus = httpCorpus(SEED, HTTP_CASES);
    const statuses = new Map<number, number>();
    const bad: string[] = [];
    const ran = await pool(corpus, async (c) => {
      // Not half-closed: Node drops a request whose client half-closes. Every request asks Connection: close.
      const answer = await rawHttp(server.httpPort, c.bytes, 5000);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      // 501 (an unsupported Content-Encoding) and 503 are answers; 500 is the server's own failure, unless it
      // is one Triton answers too: a repository request whose JSON or config it cannot read.
      if (answer.status === 500 && !TRITON_500.test(answer.body))
        bad.push(`${c.what}: ${answer.status} ${answer.body}`);
      if (/call stack/i.test(answer.body)) bad.push(`${c.what}: stack overflow ${answer.body}`);
      if (!answer.closed) bad.push(`${c.what}: connection still open after 5 s`);
      if (answer.status === 0) bad.push(`${c.what}: closed without an answer`);
      if (answer.status >= 400 && answer.body.includes('\n'))
        bad.push(`${c.what}: multi-line error ${answer.status} ${JSON.stringify(answer.body)}`);
    });
    console.log(
      `HTTP fuzz: ${ran} of ${corpus.length} cases; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(bad.slice(0, 10)).toEqual([]);
    expect(ran).toBeGreaterThanOrEqual(500);
    // Many mutations keep the request valid and most break it: both sides must have been exercised.
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);
  }, 120_000);

  it('survives a thousand malformed gRPC messages without INTERNAL errors of its own', async () => {
    const corpus = grpcCorpus(SEED, GRPC_CASES, inferEncoder());
    const client = new grpc.Client(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
    const codes = new Map<string, number>();
    const bad: string[] = [];
    const identity = (b: Buffer) => b;
    const callOne = (c: GrpcCase) =>
      new Promise<void>((resolve) => {
        const done = (code: grpc.status, details: string) => {
          const name = grpc.status[code]!;
          codes.set(name, (codes.get(name) ?? 0) + 1);
          // Bytes that are no message answer INTERNAL "Unable to parse request", as Triton; any other INTERNAL
          // is a fault of ours.
          if (code === grpc.status.INTERNAL && details !== 'Unable to parse request')
            bad.push(`${c.what}: INTERNAL ${details}`);
          if (process.env.FUZZ_SHOW === name) console.log(c.what, details);
          if (/call stack/i.test(details)) bad.push(`${c.what}: stack overflow ${details}`);
          resolve();
        };
        if (c.method === 'ModelInfer' && c.bytes.length % 7 === 0) {
          // Now and then the same bytes go down ModelStreamInfer, three times on one stream.
          const stream = client.makeBidiStreamRequest(
            '/inference.GRPCInferenceService/ModelStreamInfer',
            identity,
            identity,
          );
          stream.on('data', () => {});
          stream.on('error', (e: grpc.ServiceError) => done(e.code, e.details));
          stream.on('status', (s: grpc.StatusObject) => s.code === grpc.status.OK && done(s.code, s.details));
          for (let i = 0; i < 3; i++) stream.write(c.bytes);
          stream.end();
          return;
        }
        client.makeUnaryRequest(
          `/inference.GRPCInferenceService/${c.method}`,
          identity,
          identity,
          c.bytes,
          { deadline: Date.now() + 5000 },
          (err: grpc.ServiceError | null) => (err ? done(err.code, err.details) : done(grpc.status.OK, '')),
        );
      });
    try {
      const ran = await pool(corpus, callOne);
      console.log(
        `gRPC fuzz: ${ran} of ${corpus.length} cases; codes ${JSON.stringify(Object.fromEntries(codes))}`,
      );
      expect(bad.slice(0, 10)).toEqual([]);
      expect(codes.get('DEADLINE_EXCEEDED') ?? 0).toBe(0);
      expect(ran).toBeGreaterThanOrEqual(300);
      expect(codes.get('OK')).toBeGreaterThan(0);
      expect(codes.get('INVALID_ARGUMENT')).toBeGreaterThan(0);
    } finally {
      client.close();
    }
  }, 120_000);

  it('still answers health and a valid inference over both protocols afterwards', async () => {
    expect((await http(server, 'GET', '/v2/health/live')).status).toBe(200);
    const seq = Array.from({ length: 16 }, (_, i) => i);
    const res = await http(
      server,
      'POST',
      '/v2/models/simple/infer',
      JSON.stringify({
        inputs: ['INPUT0', 'INPUT1'].map((name) => ({ name, shape: [1, 16], datatype: 'INT32', data: seq })),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.json().outputs.map((o: { name: string }) => o.name)).toEqual(['OUTPUT0', 'OUTPUT1']);
    const client = grpcClient(server);
    try {
      const answer = await client.call('ModelInfer', {
        model_name: 'simple',
        inputs: ['INPUT0', 'INPUT1'].map((name) => ({ name, datatype: 'INT32', shape: [1, 16] })),
        raw_input_contents: [int32Bytes(seq), int32Bytes(seq)],
      });
      expect(answer.raw_output_contents).toHaveLength(2);
    } finally {
      client.close();
    }
  });
});
