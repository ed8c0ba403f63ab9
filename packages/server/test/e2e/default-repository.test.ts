import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, SEQUENCE_MODELS } from '../../../../models/catalog.ts';
import { GENERATIVE } from '../../../../models/generative.ts';
import type { RunningServer } from '@k6-triton/server';
import { binaryBody, http, start } from '../helpers.ts';

const BYTES: Record<string, number> = { FP32: 4, FP16: 2, INT32: 4, INT64: 8 };

describe('the built-in default repository (serve with no arguments)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start({ simulated: { timeScale: 0 } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves every catalog and generative model, READY, with the catalog tensors', async () => {
    const index = (await http(server, 'POST', '/v2/repository/index')).json();
    expect(index.map((r: { name: string }) => r.name).sort()).toEqual(
      [...Object.values(CATALOG), ...Object.values(SEQUENCE_MODELS), ...Object.values(GENERATIVE)]
        .map((m) => m.name)
        .sort(),
    );
    expect(index.every((r: { state: string }) => r.state === 'READY')).toBe(true);
    for (const entry of Object.values(CATALOG)) {
      const meta = (await http(server, 'GET', `/v2/models/${entry.name}`)).json();
      expect(meta.inputs.map((t: { name: string }) => t.name)).toEqual(entry.inputs.map((t) => t.name));
      const config = (await http(server, 'GET', `/v2/models/${entry.name}/config`)).json();
      expect(config.instance_group[0].count).toBe(entry.deployment.instanceCount);
    }
  });

  it('answers a binary request of the default batch on every catalog model', async () => {
    for (const entry of Object.values(CATALOG)) {
      const batch = entry.maxBatchSize > 0 ? [Math.min(entry.defaultBatch, 64)] : [];
      const tensors = entry.inputs.map((t) => {
        const shape = [...batch, ...t.dims];
        return {
          name: t.name,
          datatype: t.datatype,
          shape,
          size: shape.reduce((a, b) => a * b, 1) * BYTES[t.datatype]!,
        };
      });
      const { body, headerLength } = binaryBody(
        {
          inputs: tensors.map((t) => ({
            name: t.name,
            datatype: t.datatype,
            shape: t.shape,
            parameters: { binary_data_size: t.size },
          })),
          parameters: { binary_data_output: true },
        },
        tensors.map((t) => Buffer.alloc(t.size)),
      );
      const res = await http(server, 'POST', `/v2/models/${entry.name}/infer`, body, {
        'Inference-Header-Content-Length': String(headerLength),
      });
      expect(res.status, `${entry.id}: ${res.body.toString().slice(0, 200)}`).toBe(200);
      const hl = Number(res.headers.get('inference-header-content-length'));
      const head = JSON.parse(res.body.subarray(0, hl).toString());
      // Triton answers outputs by name, whatever their order in the config.
      const byName = entry.outputs.map((o) => o.name).sort();
      expect(head.outputs.map((o: { name: string }) => o.name)).toEqual(byName);
      const first = entry.outputs.find((o) => o.name === byName[0])!;
      expect(head.outputs[0].shape).toEqual([...batch, ...first.dims]);
    }
  });
});
