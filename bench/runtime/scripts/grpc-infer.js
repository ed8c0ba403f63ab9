// Benchmark script: KServe v2 ModelInfer with raw_input_contents in k6's JSON mapping (base64).
import encoding from 'k6/encoding';
import grpc from 'k6/net/grpc';

const client = new grpc.Client();
client.load([__ENV.PROTO_DIR], 'grpc_service.proto');
const tensor = encoding.b64encode(open(__ENV.PAYLOAD, 'b'));
const bytes = Number(__ENV.PAYLOAD_BYTES);
let connected = false;

export default async function () {
  if (!connected) {
    await client.connect(__ENV.TARGET, { plaintext: true });
    connected = true;
  }
  await client.asyncInvoke('inference.GRPCInferenceService/ModelInfer', {
    model_name: 'bench',
    inputs: [{ name: 'INPUT0', datatype: 'UINT8', shape: [1, bytes] }],
    raw_input_contents: [tensor],
  });
}
