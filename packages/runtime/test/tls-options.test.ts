import { describe, expect, it } from 'vitest';
import { goCipherName, parseTlsProtocol } from '../src/transport/tls-options.ts';
import { k6ErrorFor } from '../src/modules/http-errors.ts';

describe('parseTlsProtocol (k6 tlsVersion, tlsCipherSuites)', () => {
  it('a version string pins both ends; {min, max} sets either', () => {
    expect(parseTlsProtocol('tls1.2', undefined)).toEqual({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
    expect(parseTlsProtocol({ max: 'tls1.2' }, undefined)).toEqual({ maxVersion: 'TLSv1.2' });
    expect(parseTlsProtocol(undefined, undefined)).toEqual({});
  });
  it('below TLS 1.2 lowers OpenSSL security level, as Go allows what is asked', () => {
    expect(parseTlsProtocol({ min: 'tls1.0' }, undefined)).toEqual({
      minVersion: 'TLSv1',
      ciphers: 'DEFAULT:@SECLEVEL=0',
    });
  });
  it("Go's suite names become OpenSSL's; TLS 1.3 names are accepted and left out", () => {
    expect(
      parseTlsProtocol(undefined, ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'])
        .ciphers,
    ).toBe('ECDHE-RSA-AES128-GCM-SHA256');
    expect(parseTlsProtocol(undefined, ['TLS_AES_128_GCM_SHA256']).ciphers).toBe('!ALL');
  });
  it("fails in k6's words", () => {
    expect(() => parseTlsProtocol('tls1.4', undefined)).toThrow("unknown TLS version 'tls1.4'");
    expect(() => parseTlsProtocol(undefined, ['NOPE'])).toThrow("unknown cipher suite 'NOPE'");
    expect(() => parseTlsProtocol(12, undefined)).toThrow('invalid option tlsVersion');
  });
  it('names a negotiated suite as Go does', () => {
    expect(goCipherName('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256')).toBe(
      'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
    );
    expect(goCipherName('TLS_CHACHA20_POLY1305_SHA256')).toBe('TLS_CHACHA20_POLY1305_SHA256');
  });
});

describe('a TLS alert from the server', () => {
  it("is k6's 1010 in Go's words", () => {
    const err = Object.assign(new Error('...:tlsv1 alert protocol version:...:SSL alert number 70\n'), {
      code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
    });
    expect(k6ErrorFor(err)).toEqual({
      code: 1010,
      message: 'remote error: tls: protocol version not supported',
    });
  });
});
