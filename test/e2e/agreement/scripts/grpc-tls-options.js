// tlsVersion and tlsCipherSuites (JSON in TLS_OPTIONS) on a gRPC connection over TLS: k6 applies them to
// gRPC as to HTTP, so a suite the server cannot use fails the connection in both runtimes.
import { check } from 'k6';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load(['../../../../proto'], 'grpc_service.proto');
const ca = open(__ENV.CA_FILE);

export const options = { vus: 1, iterations: 1, ...JSON.parse(__ENV.TLS_OPTIONS || '{}') };

export default function () {
  let connected = true;
  try {
    client.connect(__ENV.GRPC_ADDR, { tls: { cacerts: [ca] }, timeout: '5s' });
  } catch (_e) {
    connected = false;
  }
  check(connected, { connected: (c) => c });
  if (connected) {
    const live = client.invoke('inference.GRPCInferenceService/ServerLive', {});
    check(live, { 'grpc live': (x) => x.status === grpc.StatusOK });
    client.close();
  }
}
