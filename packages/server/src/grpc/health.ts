/**
 * grpc.health.v1.Health (proto/health.proto), the service Kubernetes gRPC probes call, as Triton serves it:
 * Check answers SERVING while the server is ready and NOT_SERVING otherwise, whatever service it names; Watch is
 * not served.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { InferenceCore } from '../core.ts';
import { PROTO_OPTIONS } from './messages.ts';

let loaded: grpc.ServiceDefinition | undefined;

function healthService(): grpc.ServiceDefinition {
  if (loaded) return loaded;
  const def = protoLoader.loadSync('health.proto', PROTO_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: { health: { v1: { Health: { service: grpc.ServiceDefinition } } } };
  };
  loaded = pkg.grpc.health.v1.Health.service;
  return loaded;
}

/** Adds the health service to a gRPC server; `unimplemented` answers the RPCs Triton does not serve. */
export function addHealthService(
  server: grpc.Server,
  core: InferenceCore,
  unimplemented: grpc.handleUnaryCall<unknown, unknown>,
): void {
  server.addService(healthService(), {
    Check: ((_call, callback) =>
      callback(null, { status: core.ready() ? 'SERVING' : 'NOT_SERVING' })) as grpc.handleUnaryCall<
      unknown,
      unknown
    >,
    Watch: unimplemented as never,
  });
}
