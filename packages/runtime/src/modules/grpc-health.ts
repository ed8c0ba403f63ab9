/**
 * The gRPC health checking protocol (grpc.health.v1.Health/Check) behind k6's Client.healthCheck():
 * its method, built in as k6 has it (no proto to load), and k6's HealthCheck* constants.
 */
import protobuf from 'protobufjs';
import type { MethodDef } from './grpc-protos.ts';

export const HealthCheckUnknown = 0;
export const HealthCheckServing = 1;
export const HealthCheckNotServing = 2;
/** Spelled as k6 spells it. */
export const HealthCheckServiceUnkown = 3;

// The status is read as its number, which k6's constants compare with.
const root = protobuf.Root.fromJSON({
  nested: {
    HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
    HealthCheckResponse: { fields: { status: { type: 'int32', id: 1 } } },
  },
});

/** grpc.health.v1.Health/Check. */
export const HEALTH_CHECK: MethodDef = {
  path: '/grpc.health.v1.Health/Check',
  service: 'grpc.health.v1.Health',
  name: 'Check',
  requestType: root.lookupType('HealthCheckRequest'),
  responseType: root.lookupType('HealthCheckResponse'),
  clientStream: false,
  serverStream: false,
};

const CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

/** The error k6 throws for a failed health check, in grpc-go's words. */
export function healthCheckError(code: number, message: string): Error {
  return new Error(`rpc error: code = ${CODE_NAMES[code] ?? `Code(${code})`} desc = ${message}`);
}

/** The message of a sync-style read of healthCheck()'s result, which is a promise here. */
export const HEALTH_CHECK_IS_ASYNC =
  'k6/net/grpc Client.healthCheck() is asynchronous on the Node runtime (all VUs share one event loop); use "await client.healthCheck(service)", or run the script with k6';
