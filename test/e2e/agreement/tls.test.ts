/**
 * Agreement over TLS: scripts/tls.js runs under real k6 and the Node runtime against the embedded server
 * serving a self-signed certificate. With insecureSkipTLSVerify both pass every check and tag requests
 * with the same tls_version; without it both fail HTTPS with the same error code, while gRPC still
 * connects through the CA handed to connect({ tls: { cacerts } }).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import { type RunningServer, selfSignedIdentity } from '@k6-triton/server';
import { findK6, groupTree, type Outcome, runBoth, tagNames } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6) console.log(`TLS agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** The values one tag takes on a metric's points, sorted. */
function tagValues(o: Outcome, metric: string, tag: string): string[] {
  const values = new Set<string>();
  for (const r of o.records)
    if (r.type === 'Point' && r.metric === metric) values.add(r.data.tags?.[tag] ?? '(none)');
  return [...values].sort();
}

describe.skipIf(!K6)('TLS agreement with real k6', () => {
  const k6 = K6 ?? '';
  let server: RunningServer;
  let dir = '';
  let env: Record<string, string> = {};

  beforeAll(async () => {
    const tls = await selfSignedIdentity();
    dir = mkdtempSync(join(tmpdir(), 'k6t-tls-'));
    writeFileSync(join(dir, 'ca.pem'), tls.cert);
    server = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: -1, tls });
    env = {
      BASE: `https://127.0.0.1:${server.httpPort}`,
      GRPC_ADDR: `127.0.0.1:${server.grpcPort}`,
      CA_FILE: join(dir, 'ca.pem'),
    };
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('insecureSkipTLSVerify: every check passes, requests carry the same tls_version', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'tls.js', { env: { ...env, SKIP_VERIFY: '1' } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    expect(tagValues(k, 'http_reqs', 'tls_version')).toEqual(['tls1.3']);
    expect(tagValues(n, 'http_reqs', 'tls_version')).toEqual(tagValues(k, 'http_reqs', 'tls_version'));
    expect(tagNames(n.records)['http_reqs']).toEqual(tagNames(k.records)['http_reqs']);
  }, 90_000);

  it('a self-signed certificate unverified: HTTPS fails with the same error code, gRPC trusts its cacerts', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'tls.js', { env: { ...env, SKIP_VERIFY: '0' } });
    expect(groupTree(n.summary?.root_group)).toEqual(groupTree(k.summary?.root_group));
    expect(k.summary?.root_group.checks['grpc live']?.passes).toBe(2);
    expect(k.summary?.root_group.checks['https ready']?.fails).toBe(2);
    expect(tagValues(n, 'http_reqs', 'error_code')).toEqual(tagValues(k, 'http_reqs', 'error_code'));
  }, 90_000);
});
