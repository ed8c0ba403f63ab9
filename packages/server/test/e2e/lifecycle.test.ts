import type * as grpc from '@grpc/grpc-js';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@k6-triton/server';
import { grpcClient, type Json, int32Bytes, makeRepository, removeRepository, start } from '../helpers.ts';
import { SIMPLE } from '../repo-fixtures.ts';

describe('stopping the server', () => {
  let server: RunningServer | undefined;
  let repo: string | undefined;
  afterEach(async () => {
    await server?.stop();
    if (repo) removeRepository(repo);
  });

  it('stops although a client keeps a gRPC stream and an HTTP keep-alive connection open', async () => {
    repo = makeRepository({ simple: SIMPLE });
    server = await start({ modelRepository: repo });
    const s = server;
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const res = await request(`http://127.0.0.1:${s.httpPort}/v2/health/live`, { dispatcher: agent });
    await res.body.arrayBuffer();
    expect(res.statusCode).toBe(200);
    const client = grpcClient(s);
    const stream = client.client.ModelStreamInfer() as grpc.ClientDuplexStream<object, Json>;
    const first = new Promise<Json>((resolve) => stream.once('data', resolve));
    const closed = new Promise<void>((resolve) => {
      stream.on('error', () => resolve());
      stream.on('end', () => resolve());
    });
    stream.write({
      model_name: 'simple',
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
      ],
      raw_input_contents: [int32Bytes(new Array(16).fill(1)), int32Bytes(new Array(16).fill(2))],
    });
    expect((await first).error_message).toBe('');
    await s.stop();
    await closed;
    client.close();
    await agent.close();
    await expect(fetch(`http://127.0.0.1:${s.httpPort}/v2/health/live`)).rejects.toThrow();
  });
});
