/**
 * --log-verbose 1 logs gRPC calls as Triton 2.60.0 does (its grpc_server.cc and infer_handler.cc lines, without
 * the glog prefix): START, COMPLETE and Done per call, the ModelInfer handler's "New request handler" line, and
 * "Infer failed" with the request id for a failed inference; HTTP requests as its http_server.cc does, the method
 * by libevhtp's number and the path without its query (checked against tritonserver 2.60.0: GET 0, HEAD 1, POST 2,
 * PUT 3, DELETE 4, OPTIONS 8, PATCH 15, any other 16).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { grpcClient, int32Bytes, makeRepository, removeRepository, start } from '../helpers.ts';
import { SIMPLE } from '../repo-fixtures.ts';

describe('gRPC calls in the verbose log', () => {
  let repo: string;
  let server: RunningServer;
  const lines: string[] = [];
  beforeAll(async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo, log: (line) => lines.push(line) });
  });
  afterAll(async () => {
    await server.stop();
    removeRepository(repo);
  });

  it('logs each call with Triton handler names, and a failed inference with its request id', async () => {
    const client = grpcClient(server);
    try {
      await client.call('ServerLive', {});
      const inputs = [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
      ];
      const raw = [int32Bytes(Array(16).fill(1)), int32Bytes(Array(16).fill(2))];
      await client.call('ModelInfer', { model_name: 'simple', inputs, raw_input_contents: raw });
      await expect(
        client.call('ModelInfer', { model_name: 'simple', id: 'bad-1', inputs: [], raw_input_contents: [] }),
      ).rejects.toThrow();
    } finally {
      client.close();
    }
    const grpcLines = lines.filter(
      (l) => !l.startsWith('HTTP request') && !l.startsWith('successfully loaded'),
    );
    const numbered = (line: string) => line.replace(/, \d+( step|$)/, ', N$1');
    expect(grpcLines.map(numbered)).toEqual([
      'Process for ServerLive, rpc_ok=1, N step START',
      'Process for ServerLive, rpc_ok=1, N step COMPLETE',
      'Done for ServerLive, N',
      'Process for ModelInferHandler, rpc_ok=1, N step START',
      'New request handler for ModelInferHandler, N',
      'Process for ModelInferHandler, rpc_ok=1, N step COMPLETE',
      'Done for ModelInferHandler, N',
      'Process for ModelInferHandler, rpc_ok=1, N step START',
      'New request handler for ModelInferHandler, N',
      expect.stringMatching(
        /^\[request id: bad-1\] Infer failed: \[request id: bad-1\] expected 2 inputs but got 0/,
      ),
      'Process for ModelInferHandler, rpc_ok=1, N step COMPLETE',
      'Done for ModelInferHandler, N',
    ]);
  });

  it('logs HTTP requests with the method as libevhtp numbers it and the path without its query', async () => {
    const base = `http://127.0.0.1:${server.httpPort}`;
    const before = lines.length;
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND'])
      await (await fetch(`${base}/v2/health/ready?probe=1`, { method })).arrayBuffer();
    const http = lines.slice(before).filter((l) => l.startsWith('HTTP request'));
    expect(http).toEqual([0, 2, 3, 4, 8, 15, 9].map((n) => `HTTP request: ${n} /v2/health/ready`));
  });
});
