/**
 * The gRPC benchmark's proto side: where the repo's KServe v2 protos are, and the ModelInferResponse the
 * benchmark server answers every call with, encoded once (request bytes are not decoded).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** Directory of the repo's .proto files. */
export const PROTO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../proto');

/** A ModelInferResponse with one FP32 output of about `output_bytes`, encoded. */
export function encodeReply(output_bytes: number): Buffer {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync('grpc_service.proto', { keepCase: true });
  const response = root.lookupType('inference.ModelInferResponse');
  const n = Math.max(1, Math.floor(output_bytes / 4));
  const msg = {
    model_name: 'bench',
    model_version: '1',
    id: '1',
    outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [1, n] }],
    raw_output_contents: [Buffer.alloc(n * 4, 1)],
  };
  return Buffer.from(response.encode(response.fromObject(msg)).finish());
}
