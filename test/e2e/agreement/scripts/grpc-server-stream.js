// A server-streaming call: the one request is written without end(); k6 half-closes after it, so
// the server answers and the stream ends.
import { check } from 'k6';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load(['../../../../packages/runtime/test/fixtures'], 'echo.proto');

export const options = { vus: 1, iterations: 2, thresholds: { checks: ['rate==1'] } };

export default function () {
  if (__ITER === 0) client.connect(__ENV.GRPC_ADDR, { plaintext: true });
  const stream = new grpc.Stream(client, 'k6t.echo.Echo/Repeat');
  let got = 0;
  stream.on('data', (m) => {
    got += m.textValue === 'r' ? 1 : 0;
  });
  stream.on('end', () => {
    check(got, { 'server stream sent 3 and ended': (g) => g === 3 });
  });
  stream.write({ textValue: 'r', inner: { count: 3 } });
}
