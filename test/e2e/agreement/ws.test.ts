/**
 * Agreement on WebSockets: scripts/ws.js (k6/ws) and scripts/websockets.js (k6/websockets) run under real k6
 * and the Node runtime against one local echo server (packages/runtime/test/echo-ws-server.ts); the same exit codes,
 * iteration, session and message counts, checks, threshold verdicts, metric names, tag names and ws_sessions'
 * tag values. Real k6 comes from K6_BIN or ../shared/tools/bin/k6; without it the suite is skipped, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWsEchoServer, type WsEchoServer } from '../../../packages/runtime/test/echo-ws-server.ts';
import {
  checkCounts,
  declaredMetrics,
  findK6,
  count,
  type Outcome,
  pointCount,
  runBoth,
  tagNames,
  thresholdVerdicts,
} from './harness.ts';

const { bin: K6, looked } = findK6();
if (!K6)
  console.log(`WebSocket agreement skipped: no k6 binary (looked for ${looked.join(', ')}; set K6_BIN)`);

/** Counts that do not depend on timing: counters' sums and trends' sample counts. */
const COUNTED = ['iterations', 'ws_sessions', 'ws_msgs_sent', 'ws_msgs_received'];
const SAMPLED = ['ws_connecting', 'ws_session_duration', 'ws_ping'];

describe.skipIf(!K6)('k6/ws and k6/websockets agree with real k6', () => {
  const k6 = K6 ?? '';
  let server: WsEchoServer;

  beforeAll(async () => {
    server = await startWsEchoServer();
  });
  afterAll(() => server?.stop());

  /** Point tags of ws_sessions as `url status subproto name kind`, the server's address left out, sorted. */
  const sessionTags = (o: Outcome) =>
    o.records
      .filter((r) => r.type === 'Point' && r.metric === 'ws_sessions')
      .map((r) => {
        const t = r.data.tags ?? {};
        return [t['url'], t['status'], t['subproto'], t['name'], t['kind']]
          .map((v) => (v ?? '-').replace(server.url, ''))
          .join(' ');
      })
      .sort();

  const agree = (k: Outcome, n: Outcome, extra: string) => {
    for (const m of [...COUNTED, extra]) expect([m, count(n, m)]).toEqual([m, count(k, m)]);
    for (const m of SAMPLED) expect([m, pointCount(n.records, m)]).toEqual([m, pointCount(k.records, m)]);
    const checks = checkCounts(k.summary?.root_group);
    expect(Object.keys(checks).length).toBeGreaterThan(5);
    expect(Object.values(checks).every(([, fails]) => fails === 0)).toBe(true);
    expect(checkCounts(n.summary?.root_group)).toEqual(checks);
    expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    expect(declaredMetrics(n)).toEqual(declaredMetrics(k));
    const tags = (o: Outcome) => {
      const { vus: _v, vus_max: _m, ...rest } = tagNames(o.records);
      return rest;
    };
    expect(tags(n)).toEqual(tags(k));
    expect(sessionTags(n)).toEqual(sessionTags(k));
  };

  it('k6/ws: ws.connect blocks until close; the same counts, checks, thresholds and tags', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'ws.js', { env: { WS_URL: server.url } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(count(k, 'ws_sessions')).toBe(24);
    expect(count(k, 'interval_ticks')).toBe(18);
    agree(k, n, 'interval_ticks');
  });

  it('k6/websockets: the iteration waits for its sockets; the same counts, checks, thresholds and tags', async () => {
    const { k6: k, node: n } = await runBoth(k6, 'websockets.js', { env: { WS_URL: server.url } });
    expect(k.code, k.stderr).toBe(0);
    expect(n.code, n.stderr).toBe(0);
    expect(count(k, 'sockets_closed')).toBe(18);
    agree(k, n, 'sockets_closed');
  });

  it('a graceful stop closes open sockets of both modules; the same counts, nothing recorded after it', async () => {
    // The runtime's own scripts (packages/runtime/test/scripts), run here under real k6 too.
    for (const name of ['ws-connect-interrupted.js', 'ws-interrupted.js']) {
      const { k6: k, node: n } = await runBoth(k6, `../../../../packages/runtime/test/scripts/${name}`, {
        env: { WS_URL: server.url },
      });
      expect([name, k.code, n.code]).toEqual([name, 0, 0]);
      for (const m of [...COUNTED, 'closed_by_stop'])
        expect([name, m, count(n, m)]).toEqual([name, m, count(k, m)]);
      expect(count(k, 'ws_msgs_received')).toBe(1);
      expect(declaredMetrics(n)).toEqual(declaredMetrics(k));
    }
  });

  it('a crossed threshold on a ws_ metric exits 99 on both, for both modules', async () => {
    for (const name of ['ws.js', 'websockets.js']) {
      const { k6: k, node: n } = await runBoth(k6, name, { env: { WS_URL: server.url, FAIL: '1' } });
      expect([name, k.code]).toEqual([name, 99]);
      expect([name, n.code]).toEqual([name, 99]);
      expect(thresholdVerdicts(n.summary)).toEqual(thresholdVerdicts(k.summary));
    }
  });
});
