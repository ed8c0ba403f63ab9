/**
 * Every scenario end to end: the bench command bundles it, runs it on the Node runtime over each
 * protocol, and writes results that parse, one row per level, with the server's statistics columns
 * filled. One embedded server (as the bench starts it) serves every case, given as TRITON_URL: a
 * server per case cost seconds each; the bench starting its own is tested in closed-loop and errors.
 * Cases run a few at a time (most of a case is waiting on its levels), never two of one model at once:
 * on the one shared server they would queue on the same model instances and read each other's requests
 * in the model's statistics (each bench's bundle is its own, dist/<scenario>-<hash>.js).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type EmbeddedServer, startEmbedded } from '../../../measure/core/embedded.ts';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

const MODELS = ['resnext101-32x4d', 'dlrm', 'bert-base', 'bert-large', 'mnist', 'resnet50'];
const PROTOCOLS = ['http', 'http-json', 'grpc'];
const CASES = PROTOCOLS.flatMap((protocol) => MODELS.map((model) => [model, protocol] as const));
/** Bench runs at once; the machine has two cores. */
const PARALLEL = 3;

/** Runs tasks at most `limit` at a time, and tasks with the same key one after another. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  readonly #keys = new Map<string, Promise<void>>();
  constructor(limit: number) {
    this.#free = limit;
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.#keys.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.#keys.set(
      key,
      before.then(() => mine),
    );
    await before;
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
      release();
    }
  }
}

function readCsv(path: string): Record<string, string>[] {
  const parsed = Papa.parse<Record<string, string>>(readFileSync(path, 'utf8').trim(), { header: true });
  if (parsed.errors.length > 0) throw new Error(`${path} does not parse: ${JSON.stringify(parsed.errors)}`);
  return parsed.data;
}

let server: EmbeddedServer;
beforeAll(async () => {
  server = await startEmbedded();
});
afterAll(async () => {
  await server?.stop();
});

const slots = new Slots(PARALLEL);

describe('bench', () => {
  it.concurrent.for(CASES)(
    '%s over %s runs without errors and writes parseable results',
    // Waiting for a slot counts too: up to a few cases ahead of this one.
    { timeout: 300_000 },
    async ([model, protocol], { expect }) => {
      const results = resultsDir();
      // 16 images as JSON numbers are ~25 MB a request: too slow to finish within a one-second level.
      const batch = model === 'resnet50' && protocol === 'http-json' ? ['--batch', '2'] : [];
      // The image models' requests are the largest: on a loaded machine a one-second level finished none
      // of them (exit 96, or a row with no server compute); two seconds hold some.
      const window = model.startsWith('res') ? ['--step-duration', '2s'] : [];
      const run = await slots.run(model, () =>
        runCli(
          [
            'bench',
            model,
            ...QUICK,
            ...batch,
            ...window,
            '--protocol',
            protocol,
            '--concurrency',
            '1,2',
            '--results-dir',
            results,
          ],
          // Budgets are about speed, which tests do not judge: generous ones keep the run's verdict about errors.
          { P95_MS: '60000', P99_MS: '60000', TRITON_URL: server.url, TRITON_GRPC_URL: server.grpcUrl },
        ),
      );
      expect(run.stderr).not.toMatch(/level=error/);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Concurrency: 1, throughput: [\d.]+ infer\/sec, latency \d+ usec/);
      const dir = runFolder(results, model);
      const rows = readCsv(join(dir, 'perf_analyzer.csv'));
      expect(rows.map((r) => r['Concurrency']).sort()).toEqual(['1', '2']);
      for (const row of rows) {
        expect(Number(row['Inferences/Second'])).toBeGreaterThan(0);
        expect(Number(row['Server Compute Infer'])).toBeGreaterThan(0);
        expect(Number(row['p99 latency'])).toBeGreaterThanOrEqual(Number(row['p50 latency']));
      }
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
      expect(summary.report.results).toHaveLength(2);
      expect(summary.report.protocol).toBe(protocol);
      const checks = summary.k6.root_group.checks as { name: string; fails: number; passes: number }[];
      expect(checks.find((c) => c.name === 'outputs match the model')).toMatchObject({ fails: 0 });
      expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(
        /\| Concurrency \| Throughput \(infer\/s\) \|/,
      );
    },
  );
});
