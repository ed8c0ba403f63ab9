/**
 * perf_analyzer's --ssl-* flags mapped onto the run's TLS settings: what each sets, and the one-line refusals of
 * values and combinations the runtimes cannot honour.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sslSettings } from '../../cli/ssl-options.ts';

const dir = mkdtempSync(join(tmpdir(), 'k6t-ssl-flags-'));
const ca = join(dir, 'ca.pem');
const other = join(dir, 'other.pem');
writeFileSync(ca, 'pem');
writeFileSync(other, 'pem');

describe('sslSettings', () => {
  it('maps verify-peer 0 to skipping verification and both CA flags to the one TLS_CA', () => {
    expect(sslSettings({ sslHttpsVerifyPeer: '0', sslHttpsVerifyHost: '0' }, {})).toEqual({
      INSECURE_SKIP_TLS_VERIFY: '1',
    });
    expect(sslSettings({ sslHttpsVerifyPeer: '1', sslHttpsVerifyHost: '2' }, {})).toEqual({});
    expect(sslSettings({ sslHttpsCaCertificatesFile: ca }, {})).toEqual({ TLS_CA: ca });
    expect(sslSettings({ sslHttpsCaCertificatesFile: ca, sslGrpcRootCertificationsFile: ca }, {})).toEqual({
      TLS_CA: ca,
    });
    expect(sslSettings({ sslHttpsClientCertificateType: 'PEM', sslHttpsPrivateKeyType: 'PEM' }, {})).toEqual(
      {},
    );
  });

  it('hands the client certificate and key to the run, from the HTTPS or the gRPC flags', () => {
    expect(sslSettings({ sslHttpsClientCertificateFile: ca, sslHttpsPrivateKeyFile: other }, {})).toEqual({
      TLS_CLIENT_CERT: ca,
      TLS_CLIENT_KEY: other,
    });
    expect(sslSettings({ sslGrpcCertificateChainFile: ca, sslGrpcPrivateKeyFile: other }, {})).toEqual({
      TLS_CLIENT_CERT: ca,
      TLS_CLIENT_KEY: other,
    });
  });

  it('sends gRPC over TLS: the given endpoint as grpcs://, else the embedded server with TLS', () => {
    expect(sslSettings({ sslGrpcUseSsl: true }, { TRITON_GRPC_URL: 'h:8001' })).toEqual({
      TRITON_GRPC_URL: 'grpcs://h:8001',
    });
    expect(sslSettings({ sslGrpcUseSsl: true }, { TRITON_GRPC_URL: 'grpc://h:8001' }).TRITON_GRPC_URL).toBe(
      'grpcs://h:8001',
    );
    expect(sslSettings({ sslGrpcUseSsl: true }, {})).toEqual({ TLS: '1' });
    expect(() => sslSettings({ sslGrpcUseSsl: true }, { TRITON_URL: 'https://h:8000' })).toThrow(
      '--ssl-grpc-use-ssl needs the gRPC endpoint: give --grpc-url host:port (TRITON_GRPC_URL)',
    );
  });

  it('refuses what the runtimes cannot honour, in one line naming the fix', () => {
    const refused = (flags: Record<string, unknown>, env: Record<string, string> = {}) => {
      try {
        sslSettings(flags, env);
      } catch (err) {
        const line = (err as Error).message;
        expect(line).not.toContain('\n');
        return line;
      }
      throw new Error('not refused');
    };
    expect(refused({ sslHttpsVerifyPeer: '2' })).toBe(
      "invalid --ssl-https-verify-peer 2; expected 0 or 1 (perf_analyzer's values)",
    );
    expect(refused({ sslHttpsVerifyHost: '3' })).toBe(
      "invalid --ssl-https-verify-host 3; expected 0, 1 or 2 (perf_analyzer's values)",
    );
    expect(refused({ sslHttpsVerifyHost: '0' })).toMatch(
      /^--ssl-https-verify-host 0 cannot be honoured alone/,
    );
    expect(sslSettings({ sslHttpsVerifyHost: '0' }, { INSECURE_SKIP_TLS_VERIFY: 'true' })).toEqual({});
    expect(refused({ sslHttpsVerifyPeer: '1' }, { INSECURE_SKIP_TLS_VERIFY: '1' })).toBe(
      '--ssl-https-verify-peer 1 and --insecure-skip-tls-verify disagree; give one',
    );
    expect(refused({ sslHttpsClientCertificateType: 'DER' })).toMatch(
      /^--ssl-https-client-certificate-type DER is not supported: k6 reads PEM only/,
    );
    expect(refused({ sslHttpsPrivateKeyType: 'pem' })).toBe(
      "invalid --ssl-https-private-key-type pem; expected PEM or DER (perf_analyzer's values)",
    );
    expect(refused({ sslHttpsCaCertificatesFile: join(dir, 'missing.pem') })).toMatch(
      /missing\.pem: no such file/,
    );
    expect(refused({ tlsCa: ca, sslGrpcRootCertificationsFile: other }, { TLS_CA: ca })).toMatch(
      /^--tls-ca and --ssl-grpc-root-certifications-file name different files; the run has one for HTTP and gRPC/,
    );
    expect(refused({ sslHttpsClientCertificateFile: ca })).toMatch(
      /^a client private key is missing: give both/,
    );
    expect(
      refused({
        sslHttpsClientCertificateFile: ca,
        sslHttpsPrivateKeyFile: other,
        sslGrpcPrivateKeyFile: ca,
      }),
    ).toMatch(/^--ssl-https-private-key-file and --ssl-grpc-private-key-file name different files/);
  });
});
