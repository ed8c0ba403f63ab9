// A gRPC stream keeps its iteration alive until it ends, as in k6 (its 'end' handler runs inside).
import { check } from 'k6';
import grpc from 'k6/net/grpc';
import { Counter } from 'k6/metrics';
const ended = new Counter('streams_ended');
const client = new grpc.Client();
client.load(['../fixtures'], 'echo.proto');
export const options = { vus: 1, iterations: 3 };
let connected = false;
export default async function () {
  if (!connected) {
    await client.connect(__ENV.GRPC_ADDR, { plaintext: true });
    connected = true;
  }
  let got = 0;
  const stream = new grpc.Stream(client, 'k6t.echo.Echo/Chat');
  stream.on('data', () => {
    got++;
  });
  stream.on('end', () => {
    ended.add(1);
    check(got, { 'both messages echoed': (g) => g === 2 });
  });
  stream.write({ textValue: 'a', delayMs: 50 });
  stream.write({ textValue: 'b' });
  stream.end();
}
