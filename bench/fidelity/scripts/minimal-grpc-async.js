// The floor for the Node runtime over gRPC: the same ModelInfer through asyncInvoke.
import grpc from 'k6/net/grpc';
import { grpcRequest, mark, options as base } from './common.js';

export const options = base('grpc_req_duration');
const client = new grpc.Client();
client.load(['../../../proto'], 'grpc_service.proto');
const message = grpcRequest();
let connected = false;

async function send() {
  if (!connected) {
    client.connect(__ENV.GRPC_URL, { plaintext: true });
    connected = true;
  }
  await client.asyncInvoke('inference.GRPCInferenceService/ModelInfer', message);
}

export async function warm() {
  await send();
}

export async function measure() {
  mark();
  await send();
}
