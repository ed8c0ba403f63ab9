/**
 * Agreement on k6's tlsVersion and tlsCipherSuites: scripts/tls-options.js runs under real k6 and the Node
 * runtime with each set of options against local HTTPS servers; both must negotiate the same version and
 * cipher suite (res.tls_version, res.tls_cipher_suite), or fail with the same error code.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, selfSignedIdentity } from '@k6-triton/server';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import { checkCounts, findK6, runBoth } from './harness.ts';
import { type Listening, startH1Tls } from './protocol-servers.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`TLS options agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** Server kind, options, and (where fixed by k6's semantics) the check k6 must report. */
const CASES: Array<{ server: 'modern' | 'old' | 'tls13'; options: object; k6?: string }> = [
  // k6's tlsconfig example's options.
  {
    server: 'modern',
    options: {
      tlsCipherSuites: ['TLS_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_AES_128_GCM_SHA256'],
      tlsVersion: { min: 'tls1.0', max: 'tls1.2' },
    },
    k6: 'status 200 version "tls1.2" cipher "TLS_RSA_WITH_AES_128_GCM_SHA256" error 0 ',
  },
  {
    server: 'modern',
    options: { tlsVersion: 'tls1.2', tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305'] },
    k6: 'status 200 version "tls1.2" cipher "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305" error 0 ',
  },
  {
    server: 'modern',
    options: { tlsVersion: 'tls1.2', tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA'] },
  },
  // Go's TLS 1.3 suites are not configurable: the list does not stop a TLS 1.3 handshake.
  {
    server: 'modern',
    options: { tlsVersion: 'tls1.3', tlsCipherSuites: ['TLS_RSA_WITH_AES_128_GCM_SHA256'] },
  },
  { server: 'modern', options: { tlsVersion: { max: 'tls1.2' } } },
  { server: 'modern', options: {} },
  // A server that stops at TLS 1.1: refused by default (Go's minimum is 1.2), accepted with min tls1.0.
  {
    server: 'old',
    options: {},
    k6: 'status 0 version "" cipher "" error 1010 remote error: tls: protocol version not supported',
  },
  { server: 'old', options: { tlsVersion: { min: 'tls1.0' } } },
  { server: 'tls13', options: { tlsVersion: { max: 'tls1.2' } } },
];

describe.skipIf(!K6)('TLS options agreement with real k6', () => {
  let modern: Listening;
  let old: Listening;
  let tls13: Listening;
  let catalog: RunningServer;
  let dir = '';

  beforeAll(async () => {
    const id = await selfSignedIdentity();
    modern = await startH1Tls(id, undefined, { ciphers: 'ALL:@SECLEVEL=0' });
    old = await startH1Tls(id, undefined, {
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1.1',
      ciphers: 'ALL:@SECLEVEL=0',
    });
    tls13 = await startH1Tls(id, undefined, { minVersion: 'TLSv1.3' });
    catalog = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: -1, tls: id });
    dir = mkdtempSync(join(tmpdir(), 'k6t-tls-options-'));
    writeFileSync(join(dir, 'ca.pem'), id.cert);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([modern?.close(), old?.close(), tls13?.close(), catalog?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(CASES)(
    '$server server, options $options',
    async ({ server, options, k6 }) => {
      const url = { modern, old, tls13 }[server].url;
      const { k6: k, node: n } = await runBoth(K6 ?? '', 'tls-options.js', {
        env: { URL: url, TLS_OPTIONS: JSON.stringify(options) },
      });
      expect(k.code, k.stderr).toBe(0);
      expect(n.code, n.stderr).toBe(0);
      const want = checkCounts(k.summary?.root_group);
      if (k6) expect(want[`::${k6}`], JSON.stringify(want)).toEqual([1, 0]);
      expect(checkCounts(n.summary?.root_group)).toEqual(want);
    },
    90_000,
  );

  it('an unknown cipher suite or TLS version fails the start as in k6 (exit 104, k6 words)', async () => {
    for (const [options, words] of [
      [{ tlsCipherSuites: ['TLS_NOPE'] }, "unknown cipher suite 'TLS_NOPE'"],
      [{ tlsVersion: { min: 'tls1.9' } }, "unknown TLS version 'tls1.9'"],
    ] as const) {
      const { k6: k, node: n } = await runBoth(K6 ?? '', 'tls-options.js', {
        env: { URL: modern.url, TLS_OPTIONS: JSON.stringify(options) },
      });
      expect(k.code).toBe(104);
      expect(n.code).toBe(104);
      expect(k.stderr).toContain(words);
      expect(n.stderr).toContain(words);
    }
  }, 90_000);

  it.each([
    [{}, [1, 0]],
    [{ tlsVersion: 'tls1.2', tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] }, [1, 0]],
    // An ECDSA suite against the RSA certificate: no handshake, in k6 as here.
    [{ tlsVersion: 'tls1.2', tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'] }, [0, 1]],
  ])(
    'gRPC over TLS with options %j: connected %j',
    async (options, connected) => {
      const { k6: k, node: n } = await runBoth(K6 ?? '', 'grpc-tls-options.js', {
        env: {
          GRPC_ADDR: `127.0.0.1:${catalog.grpcPort}`,
          CA_FILE: join(dir, 'ca.pem'),
          TLS_OPTIONS: JSON.stringify(options),
        },
      });
      const want = checkCounts(k.summary?.root_group);
      expect(want['::connected']).toEqual(connected);
      expect(checkCounts(n.summary?.root_group)).toEqual(want);
    },
    90_000,
  );
});
