/**
 * A config whose output dims the ONNX model does not have is refused at load, in Triton's words, by the embedded
 * server (always) and by real Triton (where tritonserver is found; the two answers must then be the same): from the
 * repository on disk, and through the repository API's config override, after which the loaded config keeps serving.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getModel } from '../../../models/index.ts';
import { configFromCatalog } from '../../../measure/repository/catalog-config.ts';
import { pbtxtOf, writeCatalogRepository } from '../../../measure/repository/export.ts';
import { standInModel } from '../../../measure/repository/stand-in.ts';
import { REAL_TRITON, startEmbeddedTarget, startRealTarget, type Target } from './servers.ts';

/** DLRM's stand-in under a config that says output__0 is [2] per item; the model gives [1]. */
const WRONG = 'dlrm-wrong-dim';
const WRONG_DIM_REASON =
  "Invalid argument: model 'dlrm-wrong-dim', tensor 'output__0': the model expects 2 dimensions (shape [-1,1]) but the model configuration specifies 2 dimensions (an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape [-1,2])";
const OVERRIDE_REASON =
  "Invalid argument: model 'onnx-mnist-cpu', tensor 'output': the model expects 2 dimensions (shape [1,10]) but the model configuration specifies 2 dimensions (shape [-1,10])";

if (!REAL_TRITON.path) console.warn(`config checks against real Triton: ${REAL_TRITON.skipReason}`);

interface Observed {
  diskLoad: { status: number; body: unknown };
  diskIndex: { state?: string; reason?: string };
  overrideLoad: { status: number; body: unknown };
  afterOverride: { ready: number; outputDims: number[] };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Loads the wrong model from disk, then overrides MNIST's output dims with -1 where its model has 1. */
async function observe(target: Target): Promise<Observed> {
  const repo = `${target.url}/v2/repository`;
  const diskLoad = await post(`${repo}/models/${WRONG}/load`, {});
  const index = (await post(`${repo}/index`, {})).body as { name: string; state?: string; reason?: string }[];
  const row = index.find((r) => r.name === WRONG);
  const config = (await (await fetch(`${target.url}/v2/models/onnx-mnist-cpu/config`)).json()) as {
    output: { dims: number[] }[];
  };
  const changed = { ...config, output: config.output.map((o) => ({ ...o, dims: [-1, 10] })) };
  const overrideLoad = await post(`${repo}/models/onnx-mnist-cpu/load`, {
    parameters: { config: JSON.stringify(changed) },
  });
  const ready = (await fetch(`${target.url}/v2/models/onnx-mnist-cpu/ready`)).status;
  const after = (await (await fetch(`${target.url}/v2/models/onnx-mnist-cpu/config`)).json()) as {
    output: { dims: number[] }[];
  };
  return {
    diskLoad,
    diskIndex: { state: row?.state, reason: row?.reason },
    overrideLoad,
    afterOverride: { ready, outputDims: after.output[0]!.dims },
  };
}

describe('a config whose output dims the model does not have', () => {
  let dir = '';
  let embedded: Observed;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k6t-config-check-'));
    await writeCatalogRepository(dir, { models: ['mnist'] });
    const dlrm = getModel('dlrm');
    const config = configFromCatalog(dlrm, 'onnxruntime');
    const outputs = config.output as Record<string, unknown>[];
    const wrong = { ...config, name: WRONG, output: outputs.map((o) => ({ ...o, dims: [2] })) };
    mkdirSync(join(dir, WRONG, '1'), { recursive: true });
    writeFileSync(join(dir, WRONG, 'config.pbtxt'), pbtxtOf(wrong));
    writeFileSync(join(dir, WRONG, '1', 'model.onnx'), standInModel(dlrm));
    const target = await startEmbeddedTarget(dir, {
      modelControl: 'explicit',
      loadModels: ['onnx-mnist-cpu'],
    });
    try {
      embedded = await observe(target);
    } finally {
      await target.stop();
    }
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is refused by the embedded server with the reason Triton gives, and an override keeps the loaded config', () => {
    expect(embedded.diskLoad).toEqual({
      status: 400,
      body: {
        error: `load failed for model '${WRONG}': version 1 is at UNAVAILABLE state: ${WRONG_DIM_REASON};\n`,
      },
    });
    expect(embedded.diskIndex).toEqual({ state: 'UNAVAILABLE', reason: WRONG_DIM_REASON });
    expect(embedded.overrideLoad).toEqual({
      status: 400,
      body: {
        error: `load failed for model 'onnx-mnist-cpu': version 1 is at UNAVAILABLE state: ${OVERRIDE_REASON};\n`,
      },
    });
    expect(embedded.afterOverride).toEqual({ ready: 200, outputDims: [1, 10] });
  });

  it.skipIf(!REAL_TRITON.path)(
    `is refused by real Triton in the same words${REAL_TRITON.path ? '' : ` (${REAL_TRITON.skipReason})`}`,
    async () => {
      const triton = await startRealTarget(dir, { modelControl: 'explicit', loadModels: ['onnx-mnist-cpu'] });
      try {
        expect(await observe(triton)).toEqual(embedded);
      } finally {
        await triton.stop();
      }
    },
    120_000,
  );
});
