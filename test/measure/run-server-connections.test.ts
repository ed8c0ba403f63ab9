/**
 * The embedded server a run starts (measure/core/embedded.ts) takes the run's connections past `serve`'s cap of
 * 1,024: an open-loop level stalled by a busy machine holds up to 4 x its rate in VUs, each on its connection.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EmbeddedServer,
  RUN_MAX_CONNECTIONS,
  servingOptions,
  startEmbedded,
} from '../../measure/core/embedded.ts';

/** Opens `count` idle connections to `port`. */
async function openIdle(port: number, count: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    sockets.push(socket);
  }
  return sockets;
}

/** A request's status on a new connection (the health route is exempt from the cap, so ask for metadata). */
async function statusOnNewConnection(url: string): Promise<number> {
  const res = await fetch(`${url}/v2`, { headers: { connection: 'close' } });
  await res.arrayBuffer();
  return res.status;
}

describe("a run's embedded server", () => {
  let server: EmbeddedServer;
  let idle: net.Socket[] = [];

  beforeAll(async () => {
    server = await startEmbedded(servingOptions({ modelId: 'mnist' }));
  }, 60_000);

  afterAll(async () => {
    for (const s of idle) s.destroy();
    await server?.stop();
  });

  it('answers a request with 1,100 connections open, past the 1,024 that guards serve', async () => {
    expect(RUN_MAX_CONNECTIONS).toBeGreaterThan(1100);
    idle = await openIdle(Number(new URL(server.url).port), 1100);
    expect(await statusOnNewConnection(server.url)).toBe(200);
  }, 60_000);
});
