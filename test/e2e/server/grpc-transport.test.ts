import { connect, type Settings } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../models/repository/built-in.ts';
import type { RunningServer } from '../../../server/index.ts';
import { RECEIVE_WINDOW_BYTES } from '../../../server/grpc/transport.ts';

describe('gRPC transport', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startCatalogServer({ httpPort: 0, grpcPort: 0, metricsPort: -1 });
  });
  afterAll(() => server.stop());

  it('announces a large HTTP/2 receive window, as Triton does, so big tensors do not stall', async () => {
    const session = connect(`http://127.0.0.1:${server.grpcPort}`);
    try {
      // The server sends its SETTINGS twice: the defaults, then ours once the session exists.
      const settings = await new Promise<Settings>((resolve, reject) => {
        session.on('remoteSettings', (s) => {
          if (s.initialWindowSize === RECEIVE_WINDOW_BYTES) resolve(s);
        });
        session.once('error', reject);
        setTimeout(() => resolve(session.remoteSettings), 2000).unref();
      });
      expect(settings.initialWindowSize).toBe(RECEIVE_WINDOW_BYTES);
    } finally {
      session.close();
    }
  });
});
