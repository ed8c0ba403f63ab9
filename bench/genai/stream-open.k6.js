// One repeat request per iteration on a new k6/net/grpc Stream, as scenarios/llm.ts sends them; the time from
// the write to the first message is a Trend (bench/genai/stream-open.ts runs it and reads the summary export).
import grpc from 'k6/net/grpc';
import { Trend } from 'k6/metrics';

const client = new grpc.Client();
client.load(['../../proto'], 'grpc_service.proto');
const firstResponse = new Trend('first_response', true);
const now = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();
const DELAY_MS = Number(__ENV.DELAY_MS || 10);
const METHOD = 'inference.GRPCInferenceService/ModelStreamInfer';

export const options = {
  scenarios: { c1: { executor: 'constant-vus', vus: 1, duration: __ENV.DURATION || '3s' } },
};

const body = {
  model_name: 'repeat_int32',
  inputs: [
    { name: 'IN', datatype: 'INT32', shape: [1], contents: { int_contents: [1] } },
    { name: 'DELAY', datatype: 'UINT32', shape: [1], contents: { uint_contents: [DELAY_MS] } },
    { name: 'WAIT', datatype: 'UINT32', shape: [1], contents: { uint_contents: [0] } },
  ],
};

let connected = false;

export default function () {
  if (!connected) {
    client.connect(__ENV.GRPC_ADDR, { plaintext: true });
    connected = true;
  }
  const stream = new grpc.Stream(client, METHOD, { timeout: '10s' });
  let sent = 0;
  let first = false;
  stream.on('data', () => {
    const at = now();
    if (!first) firstResponse.add(at - sent);
    first = true;
    // One response, which is also the last (the repeat model marks it final).
    stream.end();
  });
  stream.on('error', (e) => console.error(`stream error: ${e.message}`));
  sent = now();
  stream.write(body);
}
