/**
 * The gRPC benchmark's server side: inference.GRPCInferenceService/ModelInfer from the repo's KServe v2
 * proto, answering every call at once with a pre-encoded ModelInferResponse (request bytes are not decoded).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as grpcjs from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/** Directory of the repo's .proto files. */
export const PROTO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../proto');

/** The service definition with identity (de)serializers and a reply encoder. */
export function benchService(): {
  definition: grpcjs.ServiceDefinition;
  encodeReply: (output_bytes: number) => Buffer;
} {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync('grpc_service.proto', { keepCase: true });
  const response = root.lookupType('inference.ModelInferResponse');
  const identity = (b: Buffer): Buffer => b;
  const definition: grpcjs.ServiceDefinition = {
    Infer: {
      path: '/inference.GRPCInferenceService/ModelInfer',
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
  const encodeReply = (output_bytes: number): Buffer => {
    const n = Math.max(1, Math.floor(output_bytes / 4));
    const msg = {
      model_name: 'bench',
      model_version: '1',
      id: '1',
      outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [1, n] }],
      raw_output_contents: [Buffer.alloc(n * 4, 1)],
    };
    return Buffer.from(response.encode(response.fromObject(msg)).finish());
  };
  return { definition, encodeReply };
}
