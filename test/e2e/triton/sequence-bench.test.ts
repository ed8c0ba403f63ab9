/**
 * `bench sequence` against real Triton 2.60.0 (TRITONSERVER: the bench starts it on the catalog's sequence model,
 * identity backend behind the Direct sequence batcher): the client's sequences — ids, START and END flags, one
 * request at a time — hold on Triton's own batcher over HTTP and gRPC, under the Node runtime and, where present,
 * real k6, in closed-loop levels and at a request rate (--num-of-sequences): every sequence completes, none is out
 * of order or orphaned, no request fails. Skipped where tritonserver is absent.
 */
import { describe, expect, it } from 'vitest';
import { resultsDir, runCli } from '../bench/run-cli.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { REAL_TRITON } from './servers.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const LINE = /^sequences: (\d+) started, (\d+) completed, (\d+) out of order, (\d+) orphaned$/m;

const CLOSED = ['--concurrency', '1,4'];
/** perf_analyzer's request-rate mode on a sequence model: live sequences share each level's sends. */
const RATE = ['--request-rate', '10,20', '--num-of-sequences', '3'];

async function benchOnTriton(
  runtime: string,
  protocol: string,
  env: Record<string, string> = {},
  load = CLOSED,
) {
  const run = await runCli(
    [
      ...['bench', 'sequence', '--runtime', runtime, '--protocol', protocol, ...load],
      ...['--step-duration', '2s', '--warmup', '1s', '--sequence-length', '8', '--results-dir', resultsDir()],
    ],
    // Latency budgets far off: the test is about order on Triton's batcher, not speed on shared cores.
    { TRITONSERVER: REAL_TRITON.path ?? '', P95_MS: '60000', P99_MS: '60000', ...env },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.code, output).toBe(0);
  expect(run.stdout, output).toMatch(/^tritonserver on http:\/\/127\.0\.0\.1:\d+/m);
  const match = LINE.exec(run.stdout);
  expect(match, output).not.toBeNull();
  const [started, completed, outOfOrder, orphaned] = match!.slice(1).map(Number);
  expect(started).toBeGreaterThan(0);
  expect(completed).toBe(started);
  expect(outOfOrder).toBe(0);
  expect(orphaned).toBe(0);
}

describe.skipIf(!REAL_TRITON.path)(`bench sequence on real Triton ${REAL_TRITON.skipReason}`, () => {
  it('keeps every sequence in order under the Node runtime over HTTP', async () => {
    await benchOnTriton('node', 'http');
  }, 240_000);

  it('keeps every sequence in order under the Node runtime over gRPC', async () => {
    await benchOnTriton('node', 'grpc');
  }, 240_000);

  it('keeps every sequence in order at a request rate under the Node runtime over HTTP and gRPC', async () => {
    await benchOnTriton('node', 'http', {}, RATE);
    await benchOnTriton('node', 'grpc', {}, RATE);
  }, 480_000);

  it.skipIf(!k6.path)(
    `keeps every sequence in order at a request rate under real k6 over gRPC ${k6.skipReason}`,
    async () => {
      await benchOnTriton('k6', 'grpc', { K6_BIN: k6.path! }, RATE);
    },
    240_000,
  );

  it.skipIf(!k6.path)(
    `keeps every sequence in order under real k6 over HTTP ${k6.skipReason}`,
    async () => {
      await benchOnTriton('k6', 'http', { K6_BIN: k6.path! });
    },
    240_000,
  );
});
