/**
 * A bench's own samples into Prometheus: `bench <model> -- --out experimental-prometheus-rw` hands the flag to
 * the runtime (the Node runtime always, real k6 when there is one), which writes the run's series to a real
 * Prometheus (test/prometheus.ts); the requests Prometheus counts cover the bench's measured level.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusAbsent, type Prometheus, startPrometheus } from '../../prometheus.ts';
import { findK6 } from '../agreement/harness.ts';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

const k6 = findK6();
if (prometheusAbsent) console.warn(`skipped: a bench's samples into Prometheus: ${prometheusAbsent}`);
const runtimes: { runtime: string; env: Record<string, string> }[] = [{ runtime: 'node', env: {} }];
if (k6.bin) runtimes.push({ runtime: 'k6', env: { K6_BIN: k6.bin } });

describe.skipIf(prometheusAbsent)("a bench's samples into Prometheus", () => {
  let prom: Prometheus;
  beforeAll(async () => {
    prom = await startPrometheus();
  });
  afterAll(async () => {
    await prom?.stop();
  });

  it.each(runtimes)(
    'bench -- --out experimental-prometheus-rw writes the run to Prometheus ($runtime)',
    async ({ runtime, env }) => {
      const results = resultsDir();
      const run = await runCli(
        [
          ...[
            'bench',
            'mnist',
            ...QUICK,
            '--runtime',
            runtime,
            '--concurrency',
            '1',
            '--step-duration',
            '2s',
          ],
          ...['--metrics-url', 'off', '--results-dir', results],
          ...['--', '--out', 'experimental-prometheus-rw', '--tag', `bench=${runtime}`],
        ],
        { ...env, K6_PROMETHEUS_RW_SERVER_URL: prom.writeUrl, P95_MS: '60000', P99_MS: '60000' },
      );
      expect(run.code, run.stderr).toBe(0);
      const level = JSON.parse(readFileSync(join(runFolder(results, 'mnist'), 'summary.json'), 'utf8')).report
        .results[0];
      const q = new URLSearchParams({ query: `sum(k6_http_reqs_total{bench="${runtime}"})` });
      const data = (await prom.api(`/api/v1/query?${q}`)) as { result: { value: [number, string] }[] };
      const counted = Number(data.result[0]?.value[1]);
      expect(level.requests).toBeGreaterThan(0);
      // Prometheus counts every request of the run: the measured window's and those around it.
      expect(counted).toBeGreaterThanOrEqual(level.requests);
      const names = (await prom.api(
        `/api/v1/label/__name__/values?${new URLSearchParams({ 'match[]': `{bench="${runtime}"}` })}`,
      )) as string[];
      expect(names).toEqual(expect.arrayContaining(['k6_http_req_duration_p99', 'k6_iterations_total']));
    },
    120_000,
  );
});
