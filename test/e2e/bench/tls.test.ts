/**
 * TLS and auth end to end: one catalog model per kind of request benches over HTTPS and over gRPC with TLS against the
 * embedded server serving a self-signed certificate (trusted through TLS_CA), the bench's own --tls server
 * runs under the Node runtime and real k6, an untrusted certificate stops the bench before any load with
 * one line naming the fix, and a secret header from HEADERS_FILE reaches the server but no output. perf_analyzer's
 * --ssl-* flags bench the same server: its CA by --ssl-https-ca-certificates-file or, with --ssl-grpc-use-ssl
 * to a bare host:port, --ssl-grpc-root-certifications-file; nothing verified with --ssl-https-verify-peer 0.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedServer, startEmbedded } from '../../../measure/core/embedded.ts';
import { selfSignedIdentity } from '@k6-triton/server';
import { referenceTool } from '../tools/reference-tools.ts';
import { startForwardingProxy } from './forwarding-proxy.ts';
import { clientIdentity, type MtlsProxy, startMtlsProxy } from './mtls-proxy.ts';
import { QUICK, resultsDir, runCli, runFolder } from './run-cli.ts';

/** Generous budgets: these tests judge errors, not speed. */
const BUDGET = { P95_MS: '60000', P99_MS: '60000' };
const K6 = referenceTool('k6', 'K6_BIN');

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let server: EmbeddedServer;
let dir = '';
let caFile = '';
beforeAll(async () => {
  const tls = await selfSignedIdentity();
  dir = mkdtempSync(join(tmpdir(), 'k6t-tls-bench-'));
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, tls.cert);
  server = await startEmbedded({ tls });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * One model per kind of request over TLS: mnist's one 28x28 image (3 KiB), bert-base's token ids, dlrm's
 * 4096 samples (~1 MiB: the requests the server once dropped over HTTPS, HPE_PAUSED) and resnet50's 16
 * images (~9 MiB). resnext101-32x4d's one image (~0.6 MiB) lies between mnist's and dlrm's, bert-large sends
 * bert-base's kind of tensors; every model benches over each protocol without TLS in scenarios.test.ts.
 */
const TLS_MODELS = ['mnist', 'bert-base', 'resnet50', 'dlrm'];

describe('bench over TLS', () => {
  const cases = TLS_MODELS.flatMap((model) => [
    [model, 'http'],
    [model, 'grpc'],
  ]);
  it.for(cases)(
    '%s over %s with TLS runs without errors',
    { timeout: 120_000 },
    async ([model, protocol]) => {
      expect(server.url).toMatch(/^https:\/\//);
      expect(server.grpcUrl).toMatch(/^grpcs:\/\//);
      const results = resultsDir();
      const run = await runCli(
        ['bench', model!, ...QUICK, '--protocol', protocol!, '--concurrency', '1', '--results-dir', results],
        { ...BUDGET, TRITON_URL: server.url, TRITON_GRPC_URL: server.grpcUrl, TLS_CA: caFile },
      );
      expect(run.stderr).not.toMatch(/level=(error|warning)/);
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(readFileSync(join(runFolder(results, model!), 'summary.json'), 'utf8'));
      expect(summary.report.results).toHaveLength(1);
      expect(summary.report.results[0].throughput_infer_s).toBeGreaterThan(0);
      expect(summary.report.results[0].errors).toBe(0);
    },
  );

  it('an untrusted self-signed certificate stops the bench before any load, naming the fix', async () => {
    const results = resultsDir();
    const run = await runCli(['bench', 'mnist', ...QUICK, '--concurrency', '1', '--results-dir', results], {
      ...BUDGET,
      TRITON_URL: server.url,
    });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/not trusted.*--insecure-skip-tls-verify.*--tls-ca/);
  }, 60_000);

  it('--insecure-skip-tls-verify benches the same server without its CA', async () => {
    const results = resultsDir();
    const run = await runCli(
      [
        'bench',
        'mnist',
        ...QUICK,
        '--concurrency',
        '1',
        '--insecure-skip-tls-verify',
        '--results-dir',
        results,
      ],
      { ...BUDGET, TRITON_URL: server.url },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/level=(error|warning)/);
  }, 60_000);

  it.for(['http', 'grpc'])(
    '--tls starts the embedded server on TLS and trusts it (%s)',
    { timeout: 120_000 },
    async (protocol) => {
      const results = resultsDir();
      const run = await runCli(
        [
          'bench',
          'mnist',
          ...QUICK,
          '--tls',
          '--protocol',
          protocol,
          '--concurrency',
          '1',
          '--results-dir',
          results,
        ],
        BUDGET,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/embedded server on https:\/\/127\.0\.0\.1:\d+ \(gRPC grpcs:\/\//);
    },
  );

  it.skipIf(!K6.path)('real k6 benches over HTTPS and gRPC with TLS', { timeout: 180_000 }, async () => {
    // dlrm's ~1 MiB requests over HTTPS were the ones the server dropped (HPE_PAUSED).
    for (const [model, protocol] of [
      ['mnist', 'http'],
      ['mnist', 'grpc'],
      ['dlrm', 'http'],
    ] as const) {
      const results = resultsDir();
      const run = await runCli(
        [
          'bench',
          model,
          ...QUICK,
          '--runtime',
          'k6',
          '--protocol',
          protocol,
          '--concurrency',
          '1',
          '--results-dir',
          results,
        ],
        {
          ...BUDGET,
          K6_BIN: K6.path ?? '',
          TRITON_URL: server.url,
          TRITON_GRPC_URL: server.grpcUrl,
          TLS_CA: caFile,
        },
      );
      expect(run.code, `${model} ${protocol}: ${run.stderr}`).toBe(0);
      expect(run.stderr, `${model} ${protocol}`).not.toMatch(/level=(error|warning)/);
      const summary = JSON.parse(readFileSync(join(runFolder(results, model), 'summary.json'), 'utf8'));
      expect(summary.report.results[0].errors, `${model} ${protocol}`).toBe(0);
    }
  });
});

describe('auth headers', () => {
  it('a secret from HEADERS_FILE reaches the server and no output, log or results file', async () => {
    const secret = `s3cr3t-${process.pid}-token`;
    const seen: string[] = [];
    // Plain HTTP between bench and a recording proxy, so the test can see what was sent.
    const plain = await startEmbedded();
    const proxy = await startForwardingProxy(plain.url, {
      onRequest: (req) => {
        if (req.headers.authorization) seen.push(req.headers.authorization);
      },
    });
    try {
      const headersFile = join(dir, 'headers.txt');
      writeFileSync(headersFile, `# bearer token\nAuthorization: Bearer ${secret}\n`);
      const results = resultsDir();
      const run = await runCli(
        [
          'bench',
          'mnist',
          ...QUICK,
          '--concurrency',
          '1',
          '--headers-file',
          headersFile,
          '--results-dir',
          results,
        ],
        { ...BUDGET, TRITON_URL: proxy.url },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set([`Bearer ${secret}`]));
      expect(run.stdout + run.stderr).not.toContain(secret);
      const files = filesUnder(results);
      expect(files.some((f) => f.endsWith('summary.json'))).toBe(true);
      for (const file of files) expect(readFileSync(file, 'latin1'), file).not.toContain(secret);
    } finally {
      await proxy.close();
      await plain.stop();
    }
  }, 120_000);
});

const RUNTIMES = K6.path ? ['node', 'k6'] : ['node'];

/** Benches mnist at concurrency 1 on the TLS server with perf_analyzer's --ssl-* `flags`. */
async function benchSsl(runtime: string, flags: string[]) {
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
  expect(out.run.stderr).not.toMatch(/level=(error|warning)/);
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
        await benchSsl(runtime, [
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
        await benchSsl(runtime, [
          ...['--protocol', 'grpc', '--grpc-url', hostPort, '--ssl-grpc-use-ssl'],
          ...['--ssl-grpc-root-certifications-file', caFile],
        ]),
      );
    },
  );

  it('verifies nothing with --ssl-https-verify-peer 0 --ssl-https-verify-host 0', async () => {
    expectClean(await benchSsl('node', ['--ssl-https-verify-peer', '0', '--ssl-https-verify-host', '0']));
  }, 120_000);

  it('stops before any load when verify-peer 1 meets an untrusted certificate, naming the fix', async () => {
    const { run } = await benchSsl('node', ['--ssl-https-verify-peer', '1']);
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/not trusted.*--insecure-skip-tls-verify.*--tls-ca/);
  }, 60_000);

  it('refuses a DER client certificate type in one line', async () => {
    const { run } = await benchSsl('node', ['--ssl-https-client-certificate-type', 'DER']);
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toMatch(
      /^k6-triton: --ssl-https-client-certificate-type DER is not supported: k6 reads PEM only;/,
    );
  }, 60_000);
});

describe("perf_analyzer's client certificate flags on a server that requires one", () => {
  let proxies: MtlsProxy[] = [];
  let certFile = '';
  let keyFile = '';
  let proxyCa = '';
  beforeAll(async () => {
    const client = await clientIdentity();
    const front = await selfSignedIdentity();
    certFile = join(dir, 'client.pem');
    keyFile = join(dir, 'client-key.pem');
    proxyCa = join(dir, 'front-ca.pem');
    writeFileSync(certFile, client.cert);
    writeFileSync(keyFile, client.key);
    writeFileSync(proxyCa, front.cert);
    const port = (url: string) => Number(url.slice(url.lastIndexOf(':') + 1));
    proxies = await Promise.all([
      startMtlsProxy(port(server.url), 'http/1.1', front, client.cert),
      startMtlsProxy(port(server.grpcUrl), 'h2', front, client.cert),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
  });

  /** Benches mnist through the mutual-TLS fronts with `flags`. */
  async function benchMtls(runtime: string, protocol: string, flags: string[]) {
    const results = resultsDir();
    const run = await runCli(
      [
        ...['bench', 'mnist', ...QUICK, '--concurrency', '1', '--metrics-url', 'off', '--protocol', protocol],
        ...['--runtime', runtime, '--results-dir', results, '--ssl-https-ca-certificates-file', proxyCa],
        ...['--grpc-url', `127.0.0.1:${proxies[1]!.port}`, '--ssl-grpc-use-ssl', ...flags],
      ],
      {
        ...BUDGET,
        TRITON_URL: `https://127.0.0.1:${proxies[0]!.port}`,
        ...(K6.path ? { K6_BIN: K6.path } : {}),
      },
    );
    return { run, results };
  }

  it.for(
    RUNTIMES.flatMap((runtime) => [
      [runtime, 'http'],
      [runtime, 'grpc'],
    ]),
  )(
    'offers the client certificate of --ssl-https-client-certificate-file (%s, %s)',
    { timeout: 120_000 },
    async ([runtime, protocol]) => {
      expectClean(
        await benchMtls(runtime!, protocol!, [
          ...['--ssl-https-client-certificate-file', certFile, '--ssl-https-private-key-file', keyFile],
          ...['--ssl-https-client-certificate-type', 'PEM', '--ssl-https-private-key-type', 'PEM'],
        ]),
      );
    },
  );

  it('fails without a client certificate', async () => {
    const { run } = await benchMtls('node', 'http', []);
    expect(run.code).not.toBe(0);
  }, 120_000);
});
