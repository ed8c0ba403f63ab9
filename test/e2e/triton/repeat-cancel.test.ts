/**
 * `bench repeat --request-cancellation-rate`: the generative scenario cancels half of its streams to Triton's
 * decoupled `repeat` model 30 ms into a 65 ms stream, on real Triton 2.60.0 and on the embedded server (same
 * repository), over gRPC ModelStreamInfer under the Node runtime and real k6. The run counts them apart and
 * scores only the streams that ended whole; each server sees every cancel: the embedded one counts it as a
 * failure of reason CANCELED on its metrics port (and frees the slot), real Triton's gRPC frontend logs
 * "Cancellation notification received for ModelStreamInferHandler" (its repeat backend does not check for
 * cancellation, which Triton leaves to each backend, so its metrics count the request a success). Counts only,
 * no timing. Skips what is absent, naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceTool } from '../tools/reference-tools.ts';
import { runRepeatBench } from './repeat-bench-run.ts';
import { REPEAT_MODEL, removeRepeatRepository, writeRepeatRepository } from './repeat-stream.ts';
import { startTritonserver } from '../../../measure/core/tritonserver.ts';
import { REAL_TRITON, startEmbeddedTarget, type Target } from './servers.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const OSL = 10;
const ASK = { osl: OSL, firstDelay_ms: 20, tokenDelay_ms: 5 };

/** The sum of nv_inference_request_failure{reason="CANCELED"} for the repeat model. */
async function canceledAt(target: Target): Promise<number> {
  const text = await (await fetch(target.metricsUrl)).text();
  return text
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('nv_inference_request_failure{') &&
        l.includes(`model="${REPEAT_MODEL}"`) &&
        l.includes('reason="CANCELED"'),
    )
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** A server under test, and how many cancels it has seen so far. */
interface Seen {
  target: Target;
  cancels(): Promise<number>;
}

/** The embedded server: cancels are CANCELED failures on its metrics port. */
async function embedded(repository: string): Promise<Seen> {
  const target = await startEmbeddedTarget(repository);
  return { target, cancels: () => canceledAt(target) };
}

/** Real Triton with verbose logs: cancels are its gRPC frontend's notifications. */
async function realTriton(repository: string): Promise<Seen> {
  let notices = 0;
  const real = await startTritonserver({
    binary: REAL_TRITON.path!,
    repository,
    args: ['--log-verbose=1'],
    log: (line) => {
      if (line.includes('Cancellation notification received for ModelStreamInferHandler')) notices += 1;
    },
  });
  const target: Target = {
    kind: 'triton',
    url: real.url,
    grpcUrl: real.grpcUrl,
    metricsUrl: real.metricsUrl,
    stop: real.stop,
  };
  return { target, cancels: async () => notices };
}

function onServer(start: (repository: string) => Promise<Seen>): void {
  let repository: string;
  let server: Seen;
  beforeAll(async () => {
    repository = writeRepeatRepository();
    server = await start(repository);
  }, 120_000);
  afterAll(async () => {
    await server?.target.stop();
    if (repository) removeRepeatRepository(repository);
  });

  const cancelRun = async (runtime: 'node' | 'k6') => {
    const { target } = server;
    const before = await server.cancels();
    const { levels, stdout } = await runRepeatBench(
      [
        ...['--runtime', runtime, '--concurrency', '1,2', '--step-duration', '2s', '--warmup', '1s'],
        ...['--url', target.url, '--grpc-url', target.grpcUrl, '--metrics-url', 'off'],
        ...['--request-cancellation-rate', '50', '--request-cancellation-delay', '30ms'],
      ],
      ASK,
      runtime === 'k6' ? { K6_BIN: k6.path! } : {},
    );
    // Logs reach the test a moment after the run ends.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const atServer = (await server.cancels()) - before;
    let cancelled = 0;
    for (const level of levels) {
      const g = level.genai!;
      const at = `${level.name}: ${JSON.stringify(g)}`;
      expect(level.errors, at).toBe(0);
      expect(level.requests, at).toBeGreaterThan(0);
      expect(g.cancelled_requests, at).toBeGreaterThan(0);
      // Each VU cancels every other send: as many cancelled as whole, give or take the window's edges.
      expect(Math.abs(g.cancelled_requests! - level.requests), at).toBeLessThanOrEqual(level.level + 2);
      expect(g.output_tokens, at).toBe(level.requests * OSL);
      cancelled += g.cancelled_requests!;
    }
    expect(stdout).toContain('requests cancelled on purpose');
    // Every cancel reached the server (the warm-up's as well, which no level counts).
    expect(atServer).toBeGreaterThanOrEqual(cancelled);
  };

  it(
    'Node runtime: half the streams cancelled on the wire, counted apart and by the server',
    () => cancelRun('node'),
    180_000,
  );

  it.skipIf(!k6.path)(`real k6: the same ${k6.skipReason}`, () => cancelRun('k6'), 180_000);
}

describe.skipIf(!REAL_TRITON.path)(
  `cancelling repeat streams on real Triton ${REAL_TRITON.skipReason}`,
  () => {
    onServer(realTriton);
  },
);

describe('cancelling repeat streams on the embedded server', () => {
  onServer(embedded);
});
