// k6/net/grpc through the engine: load in init (paths relative to this script), connect, asyncInvoke.
import { check } from 'k6';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load(['../fixtures'], 'echo.proto');

export const options = {
  vus: 2,
  iterations: 6,
  thresholds: { 'grpc_req_duration{status:0}': ['max<10000'] },
};

export default async function () {
  await client.connect(__ENV.ADDR, { plaintext: true });
  const res = await client.asyncInvoke('k6t.echo.Echo/Echo', {
    text_value: 'x',
    raw_data: 'AAE=',
    big_number: 7,
  });
  check(res, {
    'status is OK': (r) => r.status === grpc.StatusOK,
    'message in k6 JSON': (r) =>
      r.message.textValue === 'x' && r.message.rawData === 'AAE=' && r.message.bigNumber === '7',
  });
  client.close();
}
