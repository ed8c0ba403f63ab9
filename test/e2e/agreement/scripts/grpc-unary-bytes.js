// gRPC unary calls only: data_sent and data_received count the connection's wire bytes (HTTP/2 preface,
// settings, headers and frames), as k6 counts them, not only the messages.
import { check } from 'k6';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load(['../../../../packages/runtime/test/fixtures'], 'echo.proto');

export const options = { vus: 1, iterations: 5 };

export default async function () {
  if (__ITER === 0) await client.connect(__ENV.GRPC_ADDR, { plaintext: true });
  const r = await client.asyncInvoke('k6t.echo.Echo/Echo', { textValue: 'hi' });
  check(r, { 'unary OK': (x) => x.status === grpc.StatusOK });
}
