/**
 * Agreement on a synchronous gRPC healthCheck(): scripts/grpc-health-sync.js calls it as k6's
 * grpc_healthcheck example does (no await, `.status` read off the result), under real k6 and the Node runtime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoServer, startEchoServer } from '../../../packages/runtime/test/echo-grpc-server.ts';
import { checkCounts, findK6, runBoth } from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(
    `gRPC healthCheck agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`,
  );

describe.skipIf(!K6)('synchronous gRPC healthCheck agreement with real k6', () => {
  let grpc: EchoServer;
  beforeAll(async () => {
    grpc = await startEchoServer();
  });
  afterAll(async () => {
    grpc?.stop();
  });

  it("healthCheck().status without await, compared with k6's constants", async () => {
    const { k6: k, node: n } = await runBoth(K6 ?? '', 'grpc-health-sync.js', {
      env: { GRPC_ADDR: grpc.addr },
    });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.values(checks)).toEqual(Array(6).fill([2, 0]));
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
  }, 90_000);
});
