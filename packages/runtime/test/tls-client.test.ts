/** k6's TLS options as the Node runtime reads them: tlsAuth validation and matching, skip-verify. */
import { describe, expect, it } from 'vitest';
import { consolidateOptions } from '../src/options/index.ts';
import { parseTlsAuth, tlsAuthFor, tlsConnectOptions } from '../src/transport/tls-client.ts';
import { parseHeaderLines, readSettings } from '../../../scenarios/kit/settings.ts';
import { getModel } from '../../../models/index.ts';

const PEM = '-----BEGIN X-----';

describe('tlsAuth', () => {
  it('matches a domain exactly or by one wildcard label, case-insensitively', () => {
    const tls = {
      insecureSkipTLSVerify: false,
      tlsAuth: parseTlsAuth([
        { domains: ['Triton.example'], cert: `${PEM}a`, key: 'ka' },
        { domains: ['*.svc.local'], cert: `${PEM}b`, key: 'kb', password: 'pw' },
      ]),
    };
    expect(tlsAuthFor(tls, 'triton.example')?.key).toBe('ka');
    expect(tlsAuthFor(tls, 'a.svc.local')?.key).toBe('kb');
    expect(tlsAuthFor(tls, 'svc.local')).toBeUndefined();
    expect(tlsAuthFor(tls, 'other.example')).toBeUndefined();
    expect(tlsConnectOptions(tls, 'a.svc.local')).toMatchObject({
      rejectUnauthorized: true,
      cert: `${PEM}b`,
      key: 'kb',
      passphrase: 'pw',
    });
  });

  it('refuses an entry without cert or key, naming it', () => {
    expect(() => parseTlsAuth([{ domains: ['x'], cert: PEM }])).toThrow(/tlsAuth\[0\]\.key/);
    expect(() => parseTlsAuth({})).toThrow(/expected an array/);
  });

  it('insecureSkipTLSVerify comes from the script, and the CLI wins', () => {
    expect(consolidateOptions({ insecureSkipTLSVerify: true }).tls.insecureSkipTLSVerify).toBe(true);
    expect(consolidateOptions({}).tls.insecureSkipTLSVerify).toBe(false);
    expect(consolidateOptions({}, { insecureSkipTLSVerify: true }).tls.insecureSkipTLSVerify).toBe(true);
    expect(() => consolidateOptions({ insecureSkipTLSVerify: 'yes' })).toThrow(/insecureSkipTLSVerify/);
    expect(tlsConnectOptions({ insecureSkipTLSVerify: true, tlsAuth: [] }, 'h').rejectUnauthorized).toBe(
      false,
    );
  });
});

describe('scenario settings for TLS and auth', () => {
  it('grpcs:// selects gRPC over TLS', () => {
    const mnist = getModel('mnist');
    expect(readSettings({ TRITON_GRPC_URL: 'grpcs://h:8001' }, mnist)).toMatchObject({
      grpcUrl: 'h:8001',
      grpcTls: true,
    });
    expect(readSettings({ TRITON_GRPC_URL: 'h:8001' }, mnist).grpcTls).toBe(false);
  });

  it('reads a headers file and names the line, never the value, when one is wrong', () => {
    expect(parseHeaderLines('# token\n\nAuthorization: Bearer a:b\r\nX-K: v\n', 'h.txt')).toEqual({
      Authorization: 'Bearer a:b',
      'X-K': 'v',
    });
    const bad = () => parseHeaderLines('X: 1\nsecret-value-only\n', 'h.txt');
    expect(bad).toThrow('HEADERS_FILE h.txt line 2: expected "Name: value"');
    expect(bad).not.toThrow(/secret-value-only/);
  });
});
