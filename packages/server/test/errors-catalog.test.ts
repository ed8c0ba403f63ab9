import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { asServerError, Errors, ServerError, STATUS_BY_CODE } from '../src/errors.ts';

describe('error catalog', () => {
  it("maps each code to Triton's HTTP status and gRPC code", () => {
    expect(STATUS_BY_CODE).toEqual({
      INVALID_ARG: { http: 400, grpc: status.INVALID_ARGUMENT },
      NOT_FOUND: { http: 404, grpc: status.NOT_FOUND },
      UNAVAILABLE: { http: 503, grpc: status.UNAVAILABLE },
      INTERNAL: { http: 500, grpc: status.INTERNAL },
      UNSUPPORTED: { http: 501, grpc: status.UNIMPLEMENTED },
      ALREADY_EXISTS: { http: 400, grpc: status.ALREADY_EXISTS },
      TOO_LARGE: { http: 413, grpc: status.RESOURCE_EXHAUSTED },
      CANCELLED: { http: 499, grpc: status.CANCELLED },
      TIMEOUT: { http: 408, grpc: status.DEADLINE_EXCEEDED },
    });
  });

  it('gives every named error its code', () => {
    expect(Errors.unknownModel('m').code).toBe('NOT_FOUND');
    expect(Errors.modelNotReady('m', '2').code).toBe('UNAVAILABLE');
    expect(Errors.queueFull('').httpStatus).toBe(503);
    expect(Errors.queueFull('').message).toBe('[request id: <id_unknown>] Exceeds maximum queue size');
    expect(Errors.timeout().grpcCode).toBe(status.UNAVAILABLE);
    expect(Errors.batchTooLarge('r1', 8, 'm').message).toBe(
      "[request id: r1] inference request batch-size must be <= 8 for 'm'",
    );
    expect(Errors.bodyTooLarge(10).httpStatus).toBe(413);
  });

  it('turns unknown throwables into INTERNAL errors', () => {
    const e = asServerError(new Error('boom'));
    expect(e).toBeInstanceOf(ServerError);
    expect(e.code).toBe('INTERNAL');
    expect(e.message).toBe('boom');
    expect(asServerError('text').message).toBe('text');
  });
});
