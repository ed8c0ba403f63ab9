// gRPC unary and bidirectional stream against the test's echo server.
import { check } from 'k6';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load(['../../../../packages/runtime/test/fixtures'], 'echo.proto');

export const options = { vus: 1, iterations: 2 };

export default async function () {
  if (__ITER === 0) await client.connect(__ENV.GRPC_ADDR, { plaintext: true });
  const r = await client.asyncInvoke('k6t.echo.Echo/Echo', { textValue: 'hi' });
  check(r, { 'unary OK': (x) => x.status === grpc.StatusOK && x.message.textValue === 'hi' });
  const stream = new grpc.Stream(client, 'k6t.echo.Echo/Chat');
  let got = 0;
  stream.on('data', () => {
    got++;
  });
  stream.on('end', () => {
    check(got, { 'stream echoed 2': (g) => g === 2 });
  });
  stream.write({ textValue: 'a' });
  stream.write({ textValue: 'b' });
  stream.end();
}
