/** k6's TLS options as the Node runtime reads them: tlsAuth validation and matching, skip-verify. */
import { describe, expect, it } from 'vitest';
import { consolidateOptions } from '../src/options/index.ts';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { parseTlsAuth, readRoots, tlsAuthFor, tlsConnectOptions } from '../src/transport/tls-client.ts';
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

  it("offers an entry without domains (k6's recommended form) to every host a named entry does not claim", () => {
    const tls = {
      insecureSkipTLSVerify: false,
      tlsAuth: parseTlsAuth([
        { cert: `${PEM}any`, key: 'kany' },
        { domains: ['triton.example'], cert: `${PEM}t`, key: 'kt' },
      ]),
    };
    expect(tlsAuthFor(tls, 'triton.example')?.key).toBe('kt');
    expect(tlsAuthFor(tls, '127.0.0.1')?.key).toBe('kany');
    expect(tlsConnectOptions(tls, 'other.example')).toMatchObject({ cert: `${PEM}any`, key: 'kany' });
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

describe('trusted roots (as Go reads SSL_CERT_FILE and SSL_CERT_DIR)', () => {
  const cert = (n: number) => `-----BEGIN CERTIFICATE-----\nC${n}\n-----END CERTIFICATE-----`;

  it("SSL_CERT_FILE replaces Node's bundle; SSL_CERT_DIR adds each file's certificates once", () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6t-roots-'));
    try {
      writeFileSync(join(dir, 'bundle.pem'), `${cert(1)}\n${cert(2)}\n`);
      mkdirSync(join(dir, 'certs'));
      writeFileSync(join(dir, 'certs', 'a.pem'), `${cert(2)}\n${cert(3)}\n`);
      writeFileSync(join(dir, 'certs', 'README'), 'not a certificate');
      expect(readRoots({})).toBeUndefined();
      expect(readRoots({ SSL_CERT_FILE: join(dir, 'bundle.pem') })).toBe(`${cert(1)}\n${cert(2)}\n`);
      const both = readRoots({ SSL_CERT_FILE: join(dir, 'bundle.pem'), SSL_CERT_DIR: join(dir, 'certs') })!;
      expect(both.match(/BEGIN CERTIFICATE/g)).toHaveLength(3);
      expect(both).toContain('C3');
      const dirOnly = readRoots({ SSL_CERT_DIR: `${join(dir, 'none')}:${join(dir, 'certs')}` })!;
      expect(dirOnly).toContain('C3');
      expect(dirOnly.match(/BEGIN CERTIFICATE/g)!.length).toBe(rootCertificates.length + 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
