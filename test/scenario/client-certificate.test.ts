/** The client certificate a run offers: k6's tlsAuth for the endpoints' hosts, read from the PEM files named. */
import { describe, expect, it } from 'vitest';
import { endpointHost, withClientCertificate } from '../../scenarios/kit/client-certificate.ts';

describe('withClientCertificate', () => {
  const read = (path: string) => `pem of ${path}`;

  it("offers the files' certificate and key to every endpoint's host once", () => {
    const options = withClientCertificate(
      { vus: 1 },
      ['https://127.0.0.1:8000', 'grpcs://127.0.0.1:8001', 'triton.example:8001'],
      { TLS_CLIENT_CERT: '/c.pem', TLS_CLIENT_KEY: '/k.pem' },
      read,
    );
    expect(options).toEqual({
      vus: 1,
      tlsAuth: [{ domains: ['127.0.0.1', 'triton.example'], cert: 'pem of /c.pem', key: 'pem of /k.pem' }],
    });
  });

  it('leaves the options alone without a certificate and refuses half of one', () => {
    expect(withClientCertificate({ vus: 1 }, ['h:1'], {}, read)).toEqual({ vus: 1 });
    expect(() => withClientCertificate({}, ['h:1'], { TLS_CLIENT_CERT: '/c.pem' }, read)).toThrow(
      'TLS_CLIENT_KEY is missing: a client certificate needs both TLS_CLIENT_CERT and TLS_CLIENT_KEY (PEM files)',
    );
  });

  it('reads the host of a URL, a gRPC address and an IPv6 one', () => {
    expect(endpointHost('https://triton:8000/v2')).toBe('triton');
    expect(endpointHost('127.0.0.1:8001')).toBe('127.0.0.1');
    expect(endpointHost('grpcs://[::1]:8001')).toBe('::1');
  });
});
