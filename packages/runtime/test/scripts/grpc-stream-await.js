// A k6/net/grpc Stream through the engine; the iteration awaits the 'end' event (valid k6 too).
import { check } from 'k6';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load(['../fixtures'], 'echo.proto');

export const options = { vus: 1, iterations: 2 };

export default async function () {
  await client.connect(__ENV.ADDR, { plaintext: true });
  const received = [];
  await new Promise((resolve) => {
    const stream = new grpc.Stream(client, 'k6t.echo.Echo/Chat');
    stream.on('data', (m) => received.push(m.textValue));
    stream.on('end', resolve);
    stream.write({ text_value: 'a' });
    stream.write({ text_value: 'b' });
    stream.end();
  });
  check(received, { 'echoed both': (r) => r.join() === 'a,b' });
  client.close();
}
