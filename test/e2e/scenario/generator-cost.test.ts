import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatorCost, levelsFromSummary } from '../../../lib/summary/from-summary.ts';
import { generatorWarning } from '../../../lib/summary/generator.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../../bin/k6-triton.js', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../scenario/scripts/generator-cost.js', import.meta.url));
/** How long the server waits before it answers. */
const REQUEST_MS = 100;

describe('generator cost', () => {
  it('is the iteration time beyond the request, bound above 10% of the iteration', () => {
    const lean = generatorCost(5.1, 5.0);
    expect(lean.overhead_us).toBeCloseTo(100, 6);
    expect(lean.bound).toBe(false);
    const heavy = generatorCost(1.5, 1.0);
    expect(heavy.overhead_pct).toBeCloseTo(33.33, 1);
    expect(heavy.bound).toBe(true);
    expect(generatorCost(5.1, 5.0, 95).bound).toBe(true);
  });
});

describe('the load-generator warning, end to end under the Node runtime', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Answers after 100 ms of waiting (no CPU), so the request dominates a lean iteration even on a busy
    // machine: the 10% bound leaves 10 ms of the generator's own time, far above what a loaded event loop adds
    // (with 20 ms, a loaded CI machine's few ms of scheduling crossed the 2 ms bound).
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.end('ok'), REQUEST_MS));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function level(busy_ms: number) {
    const out = join(mkdtempSync(join(tmpdir(), 'k6t-gen-')), 'summary.json');
    await run(
      process.execPath,
      [CLI, 'run', '-q', '-e', `URL=${url}`, '-e', `BUSY_MS=${busy_ms}`, '--summary-export', out, SCRIPT],
      { timeout: 60_000 },
    );
    const summary = JSON.parse(readFileSync(out, 'utf8'));
    const [result] = levelsFromSummary({
      summary,
      batch: 1,
      levels: [{ name: 'c1', mode: 'concurrency', level: 1, window_s: 2 }],
    });
    return result!;
  }

  it('stays quiet when the iteration is the request', async () => {
    const result = await level(0);
    expect(result.generator?.bound).toBe(false);
    expect(generatorWarning(result)).toBeUndefined();
  });

  it('fires when the generator is slowed on purpose', async () => {
    // 40 ms of busy work a 100 ms request: the generator's share is about 29%, well past the 10% bound.
    const result = await level(40);
    expect(result.generator?.bound).toBe(true);
    expect(generatorWarning(result)).toMatch(/^c1: load generator bound: .* the server may hold more$/);
  });
});
