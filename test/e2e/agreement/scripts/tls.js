// HTTPS and gRPC over TLS against the embedded server's self-signed certificate: verified through the CA
// given to connect() (gRPC), skipped with insecureSkipTLSVerify (HTTP), or refused when neither.
import { check } from 'k6';
import http from 'k6/http';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load(['../../../../proto'], 'grpc_service.proto');
const ca = open(__ENV.CA_FILE);

export const options = { vus: 1, iterations: 2, insecureSkipTLSVerify: __ENV.SKIP_VERIFY === '1' };

export default async function () {
  const r = await http.asyncRequest('GET', `${__ENV.BASE}/v2/health/ready`);
  check(r, {
    'https ready': (x) => x.status === 200,
    'TLS 1.3': (x) => x.tls_version === http.TLS_1_3,
  });
  if (__ITER === 0) {
    await client.connect(__ENV.GRPC_ADDR, __ENV.SKIP_VERIFY === '1' ? {} : { tls: { cacerts: [ca] } });
  }
  const live = await client.asyncInvoke('inference.GRPCInferenceService/ServerLive', {});
  check(live, { 'grpc live': (x) => x.status === grpc.StatusOK && x.message.live === true });
}
