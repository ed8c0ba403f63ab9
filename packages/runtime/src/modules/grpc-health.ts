/**
 * The gRPC health checking protocol (grpc.health.v1.Health/Check) behind k6's Client.healthCheck():
 * its method, built in as k6 has it (no proto to load), and k6's HealthCheck* constants.
 */
import protobuf from 'protobufjs';
import type { MethodDef } from './grpc-protos.ts';

/**
 * One grpc.health.v1 serving status as k6 exposes it: a Go enum value, so an object (not `===` a number
 * literal) that prints its name (`${status}` is "SERVING"), serializes to its number, and is the very
 * constant a result's `status` is (one object per status, so `===` holds).
 */
export class HealthCheckStatus {
  constructor(
    readonly number: number,
    readonly name: string,
  ) {}
  valueOf(): number {
    return this.number;
  }
  toString(): string {
    return this.name;
  }
  toJSON(): number {
    return this.number;
  }
}

export const HealthCheckUnknown = new HealthCheckStatus(0, 'UNKNOWN');
export const HealthCheckServing = new HealthCheckStatus(1, 'SERVING');
export const HealthCheckNotServing = new HealthCheckStatus(2, 'NOT_SERVING');
/** Spelled as k6 spells it. */
export const HealthCheckServiceUnkown = new HealthCheckStatus(3, 'SERVICE_UNKNOWN');

const STATUSES = [HealthCheckUnknown, HealthCheckServing, HealthCheckNotServing, HealthCheckServiceUnkown];

/** The constant of a status number (a number Go has no name for prints as the number, as Go's enum does). */
export function healthStatus(n: number): HealthCheckStatus {
  return STATUSES[n] ?? new HealthCheckStatus(n, String(n));
}

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
