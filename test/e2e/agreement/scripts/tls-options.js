// k6's tlsVersion and tlsCipherSuites options (given as JSON in TLS_OPTIONS) against one HTTPS server: the
// check's name carries what the connection negotiated, so both runtimes must agree on every value.
import { check } from 'k6';
import http from 'k6/http';

export const options = {
  vus: 1,
  iterations: 1,
  insecureSkipTLSVerify: true,
  ...JSON.parse(__ENV.TLS_OPTIONS || '{}'),
};

export default function () {
  const r = http.get(`${__ENV.URL}/`);
  check(r, {
    [`status ${r.status} version "${r.tls_version}" cipher "${r.tls_cipher_suite}" error ${r.error_code} ${r.error}`]:
      () => true,
    'version constant': (x) =>
      x.status === 0 || [http.TLS_1_1, http.TLS_1_2, http.TLS_1_3].includes(x.tls_version),
  });
}
