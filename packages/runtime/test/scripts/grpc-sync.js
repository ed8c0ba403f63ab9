// k6/net/grpc's synchronous form, as k6 scripts write it: connect() and invoke() without await.
import { check } from 'k6';
import grpc from 'k6/net/grpc';
const client = new grpc.Client();
client.load(['../fixtures'], 'echo.proto');
export const options = { vus: 2, iterations: 4 };
let connected = false;
export default function () {
  if (!connected) {
    client.connect(__ENV.GRPC_ADDR, { plaintext: true });
    connected = true;
  }
  const res = client.invoke('k6t.echo.Echo/Echo', { textValue: 'hi', rawData: 'AAE=' });
  check(res, {
    'status is OK': (r) => r.status === grpc.StatusOK,
    'echoed in k6 JSON mapping': (r) => r.message.textValue === 'hi',
  });
}
