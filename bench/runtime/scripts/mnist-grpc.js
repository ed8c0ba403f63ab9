// Benchmark script: MNIST ModelInfer over gRPC, the tensor in raw_input_contents (base64, k6's JSON mapping).
import encoding from 'k6/encoding';
import grpc from 'k6/net/grpc';
import { Counter } from 'k6/metrics';

const bad = new Counter('bad_responses');
const client = new grpc.Client();
client.load([__ENV.PROTO_DIR], 'grpc_service.proto');
const PIXELS = 28 * 28;
const tensor = encoding.b64encode(new Float32Array(PIXELS).fill(0.5).buffer);
const request = {
  model_name: 'onnx-mnist-cpu',
  inputs: [{ name: 'input.1', datatype: 'FP32', shape: [1, 1, 28, 28] }],
  outputs: [{ name: 'output' }],
  raw_input_contents: [tensor],
};
let connected = false;

export default async function () {
  if (!connected) {
    await client.connect(__ENV.TARGET, { plaintext: true });
    connected = true;
  }
  const res = await client.asyncInvoke('inference.GRPCInferenceService/ModelInfer', request);
  if (res.status !== grpc.StatusOK) bad.add(1);
}
