/**
 * What Triton reads from a model's folder besides config.pbtxt, and how it reads model names in URLs, checked on the
 * embedded server (always) and on real Triton (where tritonserver is found; the answers must then be the same):
 * an output's label_filename adds labels to classification results, a missing label file fails the load in Triton's
 * words, default_model_filename names the ONNX file, and a percent-encoded name is not decoded.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCatalogRepository } from '../../../measure/repository/export.ts';
import { observeEmbedded, REAL_TRITON, startRealTarget, type Target } from './servers.ts';

const MNIST = 'onnx-mnist-cpu';

if (!REAL_TRITON.path) console.warn(`model files against real Triton: ${REAL_TRITON.skipReason}`);

/** A copy of MNIST named `name`, its config changed by `edit`, with one instance and no batcher. */
function copyMnist(dir: string, name: string, edit: (pbtxt: string) => string): void {
  mkdirSync(join(dir, name, '1'), { recursive: true });
  copyFileSync(join(dir, MNIST, '1', 'model.onnx'), join(dir, name, '1', 'model.onnx'));
  const pbtxt = readFileSync(join(dir, MNIST, 'config.pbtxt'), 'utf8')
    .replace(`name: "${MNIST}"`, `name: "${name}"`)
    .replace(/dynamic_batching \{[^}]*\{ \}\s*\}/, '')
    .replace('count: 5', 'count: 1');
  writeFileSync(join(dir, name, 'config.pbtxt'), edit(pbtxt));
}

const withLabels = (file: string) => (pbtxt: string) =>
  pbtxt.replace('dims: [ 1, 10 ]', `dims: [ 1, 10 ]\n    label_filename: "${file}"`);

/** An MNIST-shaped request asking the top 3 classes of "output". */
const CLASSIFY = {
  inputs: [
    {
      name: 'input.1',
      datatype: 'FP32',
      shape: [1, 1, 28, 28],
      data: Array.from({ length: 784 }, (_, i) => (i % 7) / 10),
    },
  ],
  outputs: [{ name: 'output', parameters: { classification: 3 } }],
};

interface Observed {
  labelled: unknown;
  custom: unknown;
  missingLabels: { state?: string; reason?: string };
  encoded: { status: number; body: unknown }[];
}

async function answer(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

async function observe(target: Target): Promise<Observed> {
  const infer = async (model: string) =>
    (
      await answer(`${target.url}/v2/models/${model}/infer`, {
        method: 'POST',
        body: JSON.stringify(CLASSIFY),
      })
    ).body;
  const index = (await answer(`${target.url}/v2/repository/index`, { method: 'POST' })).body as {
    name: string;
    state?: string;
    reason?: string;
  }[];
  const missing = index.find((row) => row.name === 'missing-labels');
  // "%6E" is "n": a server that decoded would find onnx-mnist-cpu.
  const encoded = 'o%6Enx-mnist-cpu';
  return {
    labelled: await infer('labelled'),
    custom: await infer('custom-file'),
    missingLabels: { state: missing?.state, reason: missing?.reason },
    encoded: [
      await answer(`${target.url}/v2/models/${encoded}`),
      await answer(`${target.url}/v2/models/${encoded}/infer`, {
        method: 'POST',
        body: JSON.stringify(CLASSIFY),
      }),
    ],
  };
}

describe("a model's label file, model file name and URL name", () => {
  let dir = '';
  let embedded: Observed;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k6t-model-files-'));
    await writeCatalogRepository(dir, { models: ['mnist'] });
    copyMnist(dir, 'labelled', withLabels('labels.txt'));
    // Index 2 has an empty line and 5 and above have none: those results carry no label.
    writeFileSync(join(dir, 'labelled', 'labels.txt'), 'zero\none\n\nthree\nfour\n');
    copyMnist(dir, 'missing-labels', withLabels('absent.txt'));
    copyMnist(dir, 'custom-file', (pbtxt) => `${pbtxt}default_model_filename: "custom.onnx"\n`);
    renameSync(join(dir, 'custom-file', '1', 'model.onnx'), join(dir, 'custom-file', '1', 'custom.onnx'));
    embedded = await observeEmbedded(dir, observe);
  }, 60_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('labels classification results, reads default_model_filename, and leaves URL names encoded', () => {
    const top = (embedded.labelled as { outputs: { data: string[] }[] }).outputs[0]!.data;
    expect(top).toHaveLength(3);
    for (const entry of top) {
      const [, index, label] = entry.split(':');
      const expected = ['zero', 'one', '', 'three', 'four'][Number(index)] || undefined;
      expect(label).toBe(expected);
    }
    expect(top.some((entry) => entry.split(':').length === 3)).toBe(true);
    const custom = (embedded.custom as { outputs: { data: string[] }[] }).outputs[0]!.data;
    expect(custom.map((entry) => entry.split(':').length)).toEqual([2, 2, 2]);
    expect(embedded.missingLabels).toEqual({
      state: 'UNAVAILABLE',
      reason: `Internal: failed to open text file for read ${join(dir, 'missing-labels', 'absent.txt')}: No such file or directory`,
    });
    const unknown = { error: "Request for unknown model: 'o%6Enx-mnist-cpu' is not found" };
    expect(embedded.encoded).toEqual([
      { status: 404, body: unknown },
      { status: 404, body: unknown },
    ]);
  });

  it.skipIf(!REAL_TRITON.path)(
    `answers as real Triton does${REAL_TRITON.path ? '' : ` (${REAL_TRITON.skipReason})`}`,
    async () => {
      const triton = await startRealTarget(dir, {
        tritonArgs: ['--exit-on-error=false', '--strict-readiness=false'],
      });
      try {
        expect(await observe(triton)).toEqual(embedded);
      } finally {
        await triton.stop();
      }
    },
    120_000,
  );
});
