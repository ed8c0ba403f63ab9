/**
 * The catalog exported as a Triton repository (`k6-triton repository`, writeCatalogRepository): every model READY in
 * real Triton and in the embedded server, each answering a catalog request with outputs the suite's checks accept,
 * and both servers giving the same numbers (the same ONNX graphs on the same ONNX Runtime release).
 * Real Triton parts skip with REAL_TRITON.skipReason where tritonserver is absent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBinaryInferRequest, parseBinaryInferResponse } from '../../../lib/kserve/binary.ts';
import { outputProblems } from '../../../lib/kserve/outputs.ts';
import type { InferResult } from '../../../lib/kserve/types.ts';
import { CATALOG } from '../../../models/catalog.ts';
import type { ModelEntry } from '../../../models/types.ts';
import { writeCatalogRepository } from '../../../measure/repository/export.ts';
import { catalogInputs } from '../../onnx/catalog-inputs.ts';
import { REAL_TRITON, startEmbeddedTarget, startRealTarget, type Target } from './servers.ts';

const ENTRIES = Object.values(CATALOG);
if (!REAL_TRITON.path) console.warn(`catalog repository in real Triton: ${REAL_TRITON.skipReason}`);
/** The precision variants the catalog has beyond its default datatypes, exported into a second repository. */
const VARIANTS: Record<string, string> = { 'resnext101-32x4d': 'FP16', dlrm: 'INT32' };

interface IndexRow {
  name: string;
  version?: string;
  state?: string;
  reason?: string;
}

async function readyModels(target: Target): Promise<string[]> {
  const res = await fetch(`${target.url}/v2/repository/index`, { method: 'POST', body: '{}' });
  const rows = (await res.json()) as IndexRow[];
  return rows.filter((r) => r.state === 'READY').map((r) => r.name);
}

/** One request for `entry` (two items where it batches), answered and parsed. */
async function infer(target: Target, entry: ModelEntry, precision?: string): Promise<InferResult> {
  const batch = entry.maxBatchSize > 0 ? 2 : 1;
  const request = buildBinaryInferRequest(catalogInputs(entry, { precision, batch }), {
    binaryOutputs: true,
  });
  const res = await fetch(`${target.url}/v2/models/${entry.name}/infer`, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
  });
  const body = new Uint8Array(await res.arrayBuffer());
  expect(res.status, `${target.kind} ${entry.name}: ${new TextDecoder().decode(body.subarray(0, 300))}`).toBe(
    200,
  );
  const headerLength = res.headers.get('inference-header-content-length');
  const result = parseBinaryInferResponse(body, headerLength === null ? undefined : Number(headerLength));
  expect(
    outputProblems(entry.outputs, result, { batchSize: batch, maxBatchSize: entry.maxBatchSize }),
  ).toEqual([]);
  return result;
}

/** Each output's values, in output-name order (servers may list outputs in any order). */
function numbers(result: InferResult): number[][] {
  return [...result.outputs]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((o) => Array.from(o.data as ArrayLike<number>, Number));
}

describe('the catalog as a Triton model repository', () => {
  let dir = '';
  let variantsDir = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'k6t-catalog-repo-'));
    variantsDir = mkdtempSync(join(tmpdir(), 'k6t-catalog-variants-'));
    await writeCatalogRepository(dir);
    await writeCatalogRepository(variantsDir, { models: Object.keys(VARIANTS), precisions: VARIANTS });
  });
  afterAll(() => {
    for (const d of [dir, variantsDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  /** Every model READY and answering on one target; returns each model's numbers. */
  async function serveAll(target: Target, entries: ModelEntry[], precisions: Record<string, string> = {}) {
    expect((await readyModels(target)).sort()).toEqual(entries.map((e) => e.name).sort());
    const answers = new Map<string, number[][]>();
    for (const entry of entries)
      answers.set(entry.name, numbers(await infer(target, entry, precisions[entry.id])));
    return answers;
  }

  it('is served by the embedded server: every catalog model READY on onnxruntime, outputs as the catalog says', async () => {
    const embedded = await startEmbeddedTarget(dir);
    try {
      await serveAll(embedded, ENTRIES);
      const config = (await (await fetch(`${embedded.url}/v2/models/dlrm/config`)).json()) as {
        backend: string;
      };
      expect(config.backend).toBe('onnxruntime');
    } finally {
      await embedded.stop();
    }
  });

  it.skipIf(!REAL_TRITON.path)(
    `is served by real Triton: every catalog model READY, the same answers as the embedded server${REAL_TRITON.path ? '' : ` (${REAL_TRITON.skipReason})`}`,
    async () => {
      for (const [repo, entries, precisions] of [
        [dir, ENTRIES, {}],
        [variantsDir, Object.keys(VARIANTS).map((id) => CATALOG[id]!), VARIANTS],
      ] as const) {
        const [embedded, triton] = await Promise.all([startEmbeddedTarget(repo), startRealTarget(repo)]);
        try {
          const fromTriton = await serveAll(triton, entries, precisions);
          const fromEmbedded = await serveAll(embedded, entries, precisions);
          for (const entry of entries) {
            const a = fromTriton.get(entry.name)!.flat();
            const b = fromEmbedded.get(entry.name)!.flat();
            expect(a.length).toBe(b.length);
            const worst = Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
            expect(worst, `${entry.name}: largest difference between the servers`).toBeLessThan(1e-5);
          }
        } finally {
          await Promise.all([embedded.stop(), triton.stop()]);
        }
      }
    },
    180_000,
  );
});
