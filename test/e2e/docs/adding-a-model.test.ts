/**
 * Follows the steps of docs/adding-a-model.md ("Adding a model") in a copy of the repository: a
 * catalog entry, a budget file and a three-line scenario, nothing else; then benches the new model
 * with the copy's bin/k6-triton.js against the embedded server.
 * If a per-model fact had to be stated anywhere else, the bench would fail here.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

const ENTRY = `
const tinyMlp: ModelEntry = {
  id: 'tiny-mlp',
  name: 'tiny-mlp',
  platform: 'onnxruntime_onnx',
  maxBatchSize: 8,
  inputs: [{ name: 'x', datatype: 'FP32', dims: [16] }],
  outputs: [{ name: 'y', datatype: 'FP32', dims: [4] }],
  precisions: { FP32: {} },
  defaultBatch: 1,
  payload: { kind: 'random' },
  load: closedLoop([1, 2], 'a test model: two levels'),
  scenario: 'tiny',
  deployment: { instanceCount: 1 },
  source: { seed: 'test', note: 'added by test/docs/adding-a-model.test.ts' },
  latency: { points: [[1, 0.5]], source: 'a flat 0.5 ms' },
};

`;

describe('the guide "Adding a model" (docs/adding-a-model.md)', () => {
  let copy: string;
  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'k6t-add-model-'));
    // The tracked files as they are in the working tree, and the installed packages.
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    for (const file of files) {
      if (!existsSync(join(ROOT, file))) continue;
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(ROOT, file), join(copy, file));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('benches a model added by a catalog entry, a budget file and a scenario file alone', async () => {
    // Step 1: the catalog entry, listed with the others.
    const catalogPath = join(copy, 'models', 'catalog.ts');
    const catalog = readFileSync(catalogPath, 'utf8')
      .replace('export const CATALOG', `${ENTRY}export const CATALOG`)
      .replace(/\n {4}resnet50,\n {2}\]\.map/, '\n    resnet50,\n    tinyMlp,\n  ].map');
    expect(catalog).toContain('tinyMlp,\n');
    writeFileSync(catalogPath, catalog);
    // The scenario the entry names, three lines like scenarios/mnist.ts.
    writeFileSync(
      join(copy, 'scenarios', 'tiny.ts'),
      readFileSync(join(copy, 'scenarios', 'mnist.ts'), 'utf8').replace(
        "getModel('mnist')",
        "getModel('tiny-mlp')",
      ),
    );
    // Step 2: the budget file.
    writeFileSync(
      join(copy, 'thresholds', 'tiny-mlp.json'),
      JSON.stringify({ p95_ms: 500, p99_ms: 1000, error_rate: 0.01, levels: 'all', source: 'test' }),
    );
    // Step 4: run it.
    const results = join(copy, 'results');
    const bench = await run(
      process.execPath,
      [
        join(copy, 'bin', 'k6-triton.js'),
        ...['bench', 'tiny-mlp', '--runtime', 'node', '--step-duration', '1s', '--warmup', '1s'],
        // One-second windows carry no p99: the step checks the model runs, not its verdict.
        ...['--results-dir', results, '--allow-inconclusive'],
      ],
      { cwd: copy, timeout: 120_000 },
    );
    const dir = bench.stdout.match(/^results: (.*)$/m)?.[1];
    expect(dir).toBeDefined();
    const { report } = JSON.parse(readFileSync(join(dir!, 'summary.json'), 'utf8'));
    expect(report.model).toBe('tiny-mlp');
    expect(report.results.map((r: { name: string }) => r.name)).toEqual(['c1', 'c2']);
    for (const level of report.results) {
      expect(level.requests).toBeGreaterThan(0);
      expect(level.errors).toBe(0);
      expect(level.server.request_count).toBeGreaterThan(0);
    }
  });
});
