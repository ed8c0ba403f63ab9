import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCatalog } from '../../../../measure/repository/built-in.ts';
import { type RunningServer, startServer } from '@k6-triton/server';

describe('built-in repository at a precision', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(
      await withCatalog(
        { httpPort: 0, grpcPort: -1, metricsPort: -1 },
        { 'resnext101-32x4d': 'FP16', dlrm: 'INT32' },
      ),
    );
  });
  afterAll(() => server.stop());

  async function config(model: string): Promise<{
    input: { name: string; data_type: string }[];
    parameters: Record<string, { string_value: string }>;
  }> {
    const res = await fetch(`http://127.0.0.1:${server.httpPort}/v2/models/${model}/config`);
    expect(res.status).toBe(200);
    return res.json() as never;
  }

  it('serves the inputs in the datatypes the precision gives them, with the matching latency profile', async () => {
    const resnext = await config('resnext101-32x4d');
    expect(resnext.input.map((t) => t.data_type)).toEqual(['TYPE_FP16']);
    expect(resnext.parameters['latency_profile']?.string_value).toBe('resnext101-32x4d-fp16');
    const dlrm = await config('dlrm');
    expect(dlrm.input.map((t) => t.data_type)).toEqual(['TYPE_FP32', 'TYPE_INT32']);
  });

  it('leaves the other models at their catalog datatypes', async () => {
    const bert = await config('bert-base');
    expect(bert.input.map((t) => t.data_type)).toEqual(['TYPE_INT32', 'TYPE_INT32', 'TYPE_INT32']);
  });
});
