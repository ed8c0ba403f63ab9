/**
 * `k6-triton sweep` end to end on 127.0.0.1: an embedded server in explicit model-control mode (started here,
 * so the test can read its config afterwards), two configs x one level with 1 s windows, through --url.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedServer, startEmbedded } from '../../../measure/core/embedded.ts';
import { appliedConfig } from '../../../measure/sweep/override.ts';
import type { SweepRecord } from '../../../measure/sweep/sweep-report.ts';
import { runCli } from '../bench/run-cli.ts';

const SERVED = 'onnx-mnist-cpu';

/** The swept fields as the server holds them now. */
async function config(url: string) {
  return appliedConfig(
    (await (await fetch(`${url}/v2/models/${SERVED}/config`)).json()) as Record<string, unknown>,
  );
}

describe('k6-triton sweep', () => {
  let server: EmbeddedServer;
  beforeAll(async () => {
    server = await startEmbedded({ modelControlMode: 'explicit', loadModels: [SERVED] });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('applies each config through the load API, ranks them and loads the original back', async () => {
    const before = await config(server.url);
    expect(before.instances).toBe(5);
    const results = mkdtempSync(join(tmpdir(), 'sweep-'));
    const run = await runCli([
      'sweep',
      'mnist',
      '--url',
      server.url,
      '--grpc-url',
      server.grpcUrl,
      '--instances',
      '1,2',
      '--max-queue-delay-us',
      '300',
      '--concurrency',
      '1',
      '--step-duration',
      '1s',
      '--warmup',
      '0s',
      '--count',
      '2',
      // A loose budget: the test is about applying and restoring configs, not this busy machine's p99.
      '--p95-ms',
      '5000',
      '--p99-ms',
      '10000',
      '--runtime',
      'node',
      '--results-dir',
      results,
    ]);
    // MNIST cannot batch (max_batch_size 0): the swept queue delay is warned about in one line, and nothing else.
    expect(run.stderr.split('\n').filter((l) => l.startsWith('k6-triton: sweep'))).toEqual([
      'k6-triton: sweep: onnx-mnist-cpu has max_batch_size 0, so Triton cannot batch its requests: --max-queue-delay-us (300) change nothing in 2 of 2 configurations; sweep --instances, or --max-batch-size above 0 if the model takes a batch dimension',
    ]);
    expect(run.code).toBe(0);
    const [sweepDir] = readdirSync(join(results, 'mnist'));
    const record: SweepRecord = JSON.parse(
      readFileSync(join(results, 'mnist', String(sweepDir), 'sweep.json'), 'utf8'),
    );
    // What the server reported after each load, read back by the sweep: each config really took.
    expect(record.applied.map((a) => [a.applied?.instances, a.applied?.max_queue_delay_us])).toEqual([
      [1, 300],
      [2, 300],
    ]);
    expect(record.ranking).toHaveLength(2);
    expect(
      record.ranking.every((r) => r.levels.length === 1 && (r.levels[0]?.throughput_infer_s ?? 0) > 0),
    ).toBe(true);
    expect(record.restored).toBe(true);
    expect(run.stdout).toMatch(/config\.pbtxt:\ninstance_group \[\n {2}\{\n {4}count: [12]\n/);
    // A line per config and level; each config's bench report stays in its folder.
    expect(run.stdout).not.toContain('execution: local');
    expect(run.stdout).not.toContain('## Budgets');
    expect(run.stdout.split('\n').filter((l) => /^ {2}c1: [\d,]+ infer\/s/.test(l))).toHaveLength(2);
    const md = readFileSync(join(results, 'mnist', String(sweepDir), 'report.md'), 'utf8');
    expect(md).toContain('| Rank |');
    // The Pareto plot of the two configs' levels, embedded in report.md.
    expect(md).toContain('](pareto.svg)');
    expect(readFileSync(join(results, 'mnist', String(sweepDir), 'pareto.svg'), 'utf8')).toContain(
      '1 instance, delay 300 us',
    );
    // The server holds the original again.
    const after = await config(server.url);
    expect(after.instances).toBe(5);
    expect(after.max_queue_delay_us).toBe(before.max_queue_delay_us);
  }, 120_000);

  it('rejects a bad list in one line naming the flag', async () => {
    const run = await runCli(['sweep', 'mnist', '--instances', '1,x']);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split('\n')[0]).toMatch(/--instances "1,x": .*e\.g\. --instances 1,2,4/);
  }, 30_000);
});
