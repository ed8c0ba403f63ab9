import { readFileSync, rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import type { PayloadManifest } from '../../lib/payload/manifest.ts';
import { fetchLiveEntry } from '../../payloads/live-fetch.ts';

const METADATA = {
  name: 'custom',
  versions: ['1'],
  platform: 'onnxruntime_onnx',
  inputs: [{ name: 'IN', datatype: 'FP32', shape: [-1, 3, -1] }],
  outputs: [{ name: 'OUT', datatype: 'FP32', shape: [-1, 2] }],
};
const CONFIG = {
  name: 'custom',
  platform: 'onnxruntime_onnx',
  max_batch_size: 4,
  input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [3, -1] }],
  output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [2] }],
};

let server: Server;
let url: string;
const out = mkdtempSync(join(tmpdir(), 'k6t-live-'));

beforeAll(async () => {
  server = createServer((req, res) => {
    const body =
      req.url === '/v2/models/custom'
        ? METADATA
        : req.url === '/v2/models/custom/config'
          ? CONFIG
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: `Request for unknown model: '${req.url}' is not found` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(out, { recursive: true, force: true });
});

describe('payloads for a live model over HTTP', () => {
  it('builds the entry from GET /v2/models/M and /config', async () => {
    const entry = await fetchLiveEntry(`${url}/`, 'custom');
    expect(entry).toMatchObject({
      id: 'custom',
      maxBatchSize: 4,
      inputs: [{ name: 'IN', datatype: 'FP32', dims: [3, -1] }],
    });
  });

  it("reports the server's error for an unknown model", async () => {
    await expect(fetchLiveEntry(url, 'nope')).rejects.toThrow(
      `GET ${url}/v2/models/nope answered 404: Request for unknown model`,
    );
  });

  it('writes a random set with `payloads --url`, variable dims from --shape', async () => {
    const logs: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void logs.push(a.join(' ')));
    const code = await main([
      'node',
      'k6-triton',
      'payloads',
      '--model',
      'custom',
      '--url',
      url,
      '--shape',
      'IN:3,10',
      '--batch',
      '2',
      '--count',
      '2',
      '--out',
      out,
    ]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const manifest = JSON.parse(readFileSync(logs[0]!.trim(), 'utf8')) as PayloadManifest;
    expect(manifest.inputs).toEqual([{ name: 'IN', datatype: 'FP32', shape: [2, 3, 10] }]);
    expect(manifest.samples).toHaveLength(2);
  });
});
