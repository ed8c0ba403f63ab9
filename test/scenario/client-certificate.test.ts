/** The client certificate a run offers: k6's tlsAuth, read from the PEM files named. */
import { describe, expect, it } from 'vitest';
import { withClientCertificate } from '../../scenarios/kit/client-certificate.ts';

describe('withClientCertificate', () => {
  const read = (path: string) => `pem of ${path}`;

  it("offers the files' certificate and key without domains, as k6 recommends", () => {
    const options = withClientCertificate(
      { vus: 1 },
      { TLS_CLIENT_CERT: '/c.pem', TLS_CLIENT_KEY: '/k.pem' },
      read,
    );
    // Real k6 warns when tlsAuth.domains is set ("tlsAuth.domains option could be removed ...").
    expect(options).toEqual({ vus: 1, tlsAuth: [{ cert: 'pem of /c.pem', key: 'pem of /k.pem' }] });
  });

  it('leaves the options alone without a certificate and refuses half of one', () => {
    expect(withClientCertificate({ vus: 1 }, {}, read)).toEqual({ vus: 1 });
    expect(() => withClientCertificate({}, { TLS_CLIENT_CERT: '/c.pem' }, read)).toThrow(
      'TLS_CLIENT_KEY is missing: a client certificate needs both TLS_CLIENT_CERT and TLS_CLIENT_KEY (PEM files)',
    );
  });
});
