/** The REST API's pure parts: k6's address rules, PATCH bodies, and the worker link when the worker is busy or gone. */
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../src/api/server.ts';
import { parsePatch } from '../src/api/status.ts';
import { EXEC_STATUS, type LiveSnapshot } from '../src/api/types.ts';
import { type ApiRequest, workerLink } from '../src/api/worker-link.ts';

describe('parseAddress', () => {
  it("splits host:port as Go's net.Listen, an empty host meaning every interface", () => {
    expect(parseAddress('127.0.0.1:6565')).toEqual({ host: '127.0.0.1', port: 6565 });
    expect(parseAddress(':6565')).toEqual({ host: '', port: 6565 });
    expect(parseAddress('[::1]:6565')).toEqual({ host: '::1', port: 6565 });
  });

  it("refuses an address without a port in Go's words, as k6 logs them", () => {
    expect(() => parseAddress('nonsense')).toThrow('listen tcp: address nonsense: missing port in address');
  });
});

describe('parsePatch', () => {
  it('reads the attributes k6 reads; null and absent leave a setting alone', () => {
    expect(parsePatch('{"data":{"attributes":{"paused":false,"vus":null}}}')).toEqual({ paused: false });
    expect(parsePatch('{"data":{"attributes":{"stopped":true,"vus-max":4}}}')).toEqual({
      stopped: true,
      'vus-max': 4,
    });
    expect(parsePatch('{}')).toEqual({});
  });

  it('gives the reason for a body k6 answers 400 for', () => {
    expect(typeof parsePatch('not json')).toBe('string');
    expect(parsePatch('{"data":{"attributes":{"paused":"yes"}}}')).toBe(
      'data.attributes.paused: expected a boolean',
    );
  });
});

const snap = (status: number): LiveSnapshot => ({
  status: {
    status,
    paused: false,
    vus: 1,
    'vus-max': 1,
    stopped: false,
    running: true,
    tainted: false,
  },
  metrics: [],
  groups: [],
  setupJson: null,
});

describe('workerLink', () => {
  it("keeps answering from the worker's last snapshot when the worker is busy, and at once once it is gone", async () => {
    const sent: ApiRequest[] = [];
    const link = workerLink((m) => sent.push(m));
    const first = link.snapshot();
    const req = sent[0] as { id: number };
    link.receive({ type: 'api-snapshot', id: req.id, snapshot: snap(EXEC_STATUS.RUNNING) });
    expect((await first).status.status).toBe(EXEC_STATUS.RUNNING);
    // No reply (script code that never yields): the last snapshot, after the link's wait.
    expect((await link.snapshot()).status.status).toBe(EXEC_STATUS.RUNNING);
    const pending = link.snapshot();
    link.close();
    expect((await pending).status.status).toBe(EXEC_STATUS.RUNNING);
    await expect(link.pause()).rejects.toThrow('the run did not answer');
  });

  it("rejects a pause with the worker's refusal", async () => {
    const link = workerLink((m) => {
      if (m.type === 'api-pause')
        queueMicrotask(() =>
          link.receive({ type: 'api-pause', id: m.id, error: 'execution is already paused' }),
        );
    });
    await expect(link.pause()).rejects.toThrow('execution is already paused');
  });
});
