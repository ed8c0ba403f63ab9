// The floor for real k6 over gRPC: a blocking ModelInfer of the same tensor as raw_input_contents.
import grpc from 'k6/net/grpc';
import { grpcRequest, mark, options as base } from './common.js';

export const options = base('grpc_req_duration');
const client = new grpc.Client();
client.load(['../../../proto'], 'grpc_service.proto');
const message = grpcRequest();
let connected = false;

function send() {
  if (!connected) {
    client.connect(__ENV.GRPC_URL, { plaintext: true });
    connected = true;
  }
  client.invoke('inference.GRPCInferenceService/ModelInfer', message);
}

export function warm() {
  send();
}

export function measure() {
  mark();
  send();
}
