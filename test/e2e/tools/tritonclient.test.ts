/**
 * Triton's own Python client (tritonclient.http and .grpc) against the embedded server: health, metadata,
 * config, repository index and load/unload, infer (binary and JSON tensors, typed gRPC contents, streaming)
 * for every catalog model, statistics deltas and error cases. The checks are asserted in
 * tritonclient_check.py; this test starts the server, runs the script and asserts on its JSON summary.
 * Runs only where the reference python exists (CI has ../shared/tools); elsewhere it is skipped with the reason.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../../models/index.ts';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import type { RunningServer } from '@k6-triton/server';
import { REPO_ROOT, referenceTool } from './reference-tools.ts';

const run = promisify(execFile);
const python = referenceTool('triton-python', 'TRITON_PYTHON');
const SCRIPT = path.join(REPO_ROOT, 'test', 'e2e', 'tools', 'tritonclient_check.py');
const suiteName = `tritonclient checks the embedded server${python.path ? '' : ` (${python.skipReason})`}`;

/** The script's JSON summary. */
interface Summary {
  passed: string[];
  failed: { check: string; error: string; trace: string }[];
  facts: {
    models: string[];
    stat_deltas: Record<string, { requests: number; success: number; inferences: number }>;
  };
}

if (!python.path) console.warn(`tritonclient: ${python.skipReason}`);

describe.skipIf(!python.path)(suiteName, () => {
  const models = Object.values(CATALOG).map((m) => ({
    name: m.name,
    maxBatchSize: m.maxBatchSize,
    inputs: m.inputs,
    outputs: m.outputs,
  }));
  let server: RunningServer;
  let dir: string;
  let summary: Summary;
  let stderr = '';

  beforeAll(async () => {
    // Explicit mode so the client may unload and load; zero compute time keeps the run short.
    server = await startCatalogServer({
      httpPort: 0,
      grpcPort: 0,
      metricsPort: -1,
      modelControlMode: 'explicit',
      loadModels: ['*'],
      simulated: { timeScale: 0 },
    });
    dir = mkdtempSync(path.join(tmpdir(), 'k6t-tritonclient-'));
    const plan = path.join(dir, 'models.json');
    writeFileSync(plan, JSON.stringify({ models, reload: 'bert-base', streamOrder: 'bert-base' }));
    const args = [SCRIPT, plan, `127.0.0.1:${server.httpPort}`, `127.0.0.1:${server.grpcPort}`];
    // Async: the server answers from this process while the script runs. Exit 1 means a failed check.
    const result = await run(python.path as string, args, { timeout: 150_000, maxBuffer: 16 << 20 }).catch(
      (err: { code?: number; stdout?: string; stderr?: string }) => {
        if (err.code === 1 && err.stdout) return { stdout: err.stdout, stderr: err.stderr ?? '' };
        throw new Error(`tritonclient_check.py failed (${err.code}): ${err.stderr}`);
      },
    );
    stderr = result.stderr;
    summary = JSON.parse(result.stdout.trim().split('\n').at(-1) as string) as Summary;
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes every check', () => {
    const failures = summary.failed.map((f) => `${f.check}: ${f.error}\n${f.trace}`).join('\n');
    expect(failures || 'none', stderr).toBe('none');
    expect(summary.passed.length).toBeGreaterThan(0);
  });

  it('covers the server, health, repository index and load/unload over both protocols', () => {
    expect(summary.passed).toEqual(
      expect.arrayContaining([
        'health live/ready http+grpc',
        'server metadata http+grpc',
        'repository index http+grpc',
        'unload/load http bert-base',
        'unload/load grpc bert-base',
        'load with config override http bert-base',
        'load with config override grpc bert-base',
        'unknown model not ready http+grpc',
        'error load unknown model http+grpc',
        'stream answers in request order grpc bert-base',
        'error unknown model http',
        'error unknown model grpc',
        'error unknown model metadata http+grpc',
      ]),
    );
  });

  it.each(models.map((m) => m.name))('covers every infer path and error case of %s', (name) => {
    const expected = [
      'model ready',
      'model metadata http',
      'model metadata grpc',
      'model config http',
      'model config grpc',
      'infer http binary',
      'infer http json',
      'infer grpc',
      'infer grpc typed contents',
      'stream infer grpc',
      'statistics delta',
      'error wrong shape http',
      'error wrong shape grpc',
      'error wrong datatype http',
      'error wrong datatype grpc',
    ].map((check) => `${check} ${name}`);
    expect(summary.passed).toEqual(expect.arrayContaining(expected));
  });

  it('sees success counts grow by the number of inferences', () => {
    expect(Object.keys(summary.facts.stat_deltas).sort()).toEqual(models.map((m) => m.name).sort());
    for (const [name, delta] of Object.entries(summary.facts.stat_deltas)) {
      // At least 4 unary paths, 3 streamed requests and the gzip/version pair; classification adds 2.
      expect(delta.requests, name).toBeGreaterThanOrEqual(9);
      expect(delta.success, name).toBe(delta.requests);
      const batch = models.find((m) => m.name === name)?.maxBatchSize ?? 0;
      expect(delta.inferences, name).toBe(delta.requests * (batch >= 2 ? 2 : 1));
    }
  });
});
