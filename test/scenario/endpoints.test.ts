/** Issue 35 item 5: which gRPC address and metrics URL a run's HTTP URL implies, and when none is. */
import { describe, expect, it } from 'vitest';
import { impliedEndpoints } from '../../scenarios/kit/endpoints.ts';
import { endpointHint, readSettings } from '../../scenarios/kit/settings.ts';
import { getModel } from '../../models/index.ts';

const mnist = getModel('mnist');

describe('impliedEndpoints', () => {
  it("puts gRPC on 8001 and metrics on 8002 of the host when HTTP is on Triton's 8000 or has no port", () => {
    expect(impliedEndpoints('http://triton.svc:8000')).toEqual({
      grpc: 'triton.svc:8001',
      metrics: 'http://triton.svc:8002/metrics',
    });
    expect(impliedEndpoints('https://[::1]').grpc).toBe('grpcs://[::1]:8001');
  });

  it('implies nothing for another port: it is no Triton convention', () => {
    expect(impliedEndpoints('http://h:18000')).toEqual({});
  });
});

describe('readSettings endpoints', () => {
  it('takes gRPC from TRITON_URL, not 127.0.0.1:8001', () => {
    const settings = readSettings({ TRITON_URL: 'http://h:8000', PROTOCOL: 'grpc' }, mnist);
    expect(settings).toMatchObject({ grpcUrl: 'h:8001', grpcImplied: true, grpcTls: false });
  });

  it('an explicit TRITON_GRPC_URL always wins', () => {
    const env = { TRITON_URL: 'http://h:18000', TRITON_GRPC_URL: 'g:9', PROTOCOL: 'grpc' };
    expect(readSettings(env, mnist)).toMatchObject({ grpcUrl: 'g:9', grpcImplied: false });
  });

  it('refuses gRPC beside a URL on another port, naming the flag the user gave', () => {
    expect(() =>
      readSettings({ TRITON_URL: 'http://h:18000', TRITON_URL_FLAG: '--url', PROTOCOL: 'grpc' }, mnist),
    ).toThrow(
      "--url http://h:18000 is not on Triton's HTTP port 8000, so the gRPC endpoint is not implied; give --grpc-url host:port (TRITON_GRPC_URL)",
    );
    // Over HTTP the gRPC address is not needed: no refusal.
    expect(readSettings({ TRITON_URL: 'http://h:18000' }, mnist).grpcUrl).toBe('');
  });

  it('hints name the setting as the user gave it', () => {
    expect(endpointHint(readSettings({ TRITON_URL: 'http://h:1' }, mnist))).toBe('set TRITON_URL');
    expect(endpointHint(readSettings({ TRITON_URL: 'http://h:1', TRITON_URL_FLAG: '--url' }, mnist))).toBe(
      'check --url',
    );
    const grpc = { TRITON_GRPC_URL: 'g:1', TRITON_GRPC_URL_FLAG: '--grpc-url', PROTOCOL: 'grpc' };
    expect(endpointHint(readSettings(grpc, mnist))).toBe('check --grpc-url');
  });
});
