// k6/net/grpc through the engine: grpc_req_duration with k6's tags; proto paths relative to the script.
import { check } from 'k6';
import grpc from 'k6/net/grpc';
const client = new grpc.Client();
client.load(['../fixtures'], 'echo.proto');
export const options = { vus: 2, iterations: 4, thresholds: { grpc_req_duration: ['p(95)<5000'] } };
let connected = false;
export default async function () {
  if (!connected) {
    await client.connect(__ENV.GRPC_ADDR, { plaintext: true });
    connected = true;
  }
  const res = await client.asyncInvoke('k6t.echo.Echo/Echo', { textValue: 'hi', rawData: 'AAE=' });
  check(res, {
    'status is OK': (r) => r.status === grpc.StatusOK,
    'echoed in k6 JSON mapping': (r) => r.message.textValue === 'hi' && r.message.rawData === 'AAE=',
  });
}
