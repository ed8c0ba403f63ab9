/**
 * perf_analyzer's --ssl-* flags end to end against the embedded server serving TLS with a self-signed
 * certificate: its CA given by --ssl-https-ca-certificates-file (HTTPS) or --ssl-grpc-root-certifications-file
 * with --ssl-grpc-use-ssl (gRPC to a host:port without scheme), verification off by --ssl-https-verify-peer 0,
 * and verify-peer 1 without the CA stopping the bench before any load. Under the Node runtime and, where
 * present, real k6.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedServer, startEmbedded } from '../../../measure/embedded.ts';
import { selfSignedIdentity } from '../../../server/tls.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

/** Generous budgets: these tests judge errors, not speed. */
const BUDGET = { P95_MS: '60000', P99_MS: '60000' };
const K6 = referenceTool('k6', 'K6_BIN');
const RUNTIMES = K6.path ? ['node', 'k6'] : ['node'];

let server: EmbeddedServer;
let dir = '';
let caFile = '';
beforeAll(async () => {
  const tls = await selfSignedIdentity();
  dir = mkdtempSync(join(tmpdir(), 'k6t-ssl-flags-'));
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, tls.cert);
  server = await startEmbedded({ tls });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Benches mnist at concurrency 1 on the TLS server with `flags`. */
async function bench(runtime: string, flags: string[]) {
  const results = resultsDir();
  const run = await runCli(
    [
      ...['bench', 'mnist', ...QUICK, '--concurrency', '1', '--metrics-url', 'off'],
      ...['--runtime', runtime, '--results-dir', results, ...flags],
    ],
    { ...BUDGET, TRITON_URL: server.url, ...(K6.path ? { K6_BIN: K6.path } : {}) },
  );
  return { run, results };
}

/** The run passed with requests and no errors. */
function expectClean(out: { run: { code: number; stdout: string; stderr: string }; results: string }): void {
  expect(out.run.code, `${out.run.stdout}\n${out.run.stderr}`).toBe(0);
  expect(out.run.stderr).not.toMatch(/ERRO|WARN/);
  const summary = JSON.parse(readFileSync(join(runFolder(out.results, 'mnist'), 'summary.json'), 'utf8'));
  expect(summary.report.results[0].requests).toBeGreaterThan(0);
  expect(summary.report.results[0].errors).toBe(0);
}

describe("perf_analyzer's --ssl-* flags on a TLS server", () => {
  it.for(RUNTIMES)(
    'trusts the CA of --ssl-https-ca-certificates-file over HTTPS (%s)',
    { timeout: 120_000 },
    async (runtime) => {
      expect(server.url).toMatch(/^https:\/\//);
      expectClean(
        await bench(runtime, [
          ...['--ssl-https-ca-certificates-file', caFile],
          ...['--ssl-https-verify-peer', '1', '--ssl-https-verify-host', '2'],
        ]),
      );
    },
  );

  it.for(RUNTIMES)(
    'sends gRPC over TLS to a bare host:port with --ssl-grpc-use-ssl and its root file (%s)',
    { timeout: 120_000 },
    async (runtime) => {
      const hostPort = server.grpcUrl.replace(/^grpcs:\/\//, '');
      expectClean(
        await bench(runtime, [
          ...['--protocol', 'grpc', '--grpc-url', hostPort, '--ssl-grpc-use-ssl'],
          ...['--ssl-grpc-root-certifications-file', caFile],
        ]),
      );
    },
  );

  it('verifies nothing with --ssl-https-verify-peer 0 --ssl-https-verify-host 0', async () => {
    expectClean(await bench('node', ['--ssl-https-verify-peer', '0', '--ssl-https-verify-host', '0']));
  }, 120_000);

  it('stops before any load when verify-peer 1 meets an untrusted certificate, naming the fix', async () => {
    const { run } = await bench('node', ['--ssl-https-verify-peer', '1']);
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/not trusted.*--insecure-skip-tls-verify.*--tls-ca/);
  }, 60_000);

  it('refuses a DER client certificate type in one line', async () => {
    const { run } = await bench('node', ['--ssl-https-client-certificate-type', 'DER']);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toMatch(
      /^k6-triton: --ssl-https-client-certificate-type DER is not supported: k6 reads PEM only;/,
    );
  }, 60_000);
});
