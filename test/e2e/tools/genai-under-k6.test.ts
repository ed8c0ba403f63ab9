/**
 * lib/genai runs inside k6: real k6 runs test/tools/scripts/genai-modules.ts (decoders fed byte by byte,
 * level metrics) and must log exactly what the same computation gives under Node. Skipped without k6.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { genaiSample } from './genai-sample.ts';
import { referenceTool } from './reference-tools.ts';

const k6 = referenceTool('k6', 'K6_BIN');
const SCRIPT = fileURLToPath(new URL('./scripts/genai-modules.ts', import.meta.url));
const CAPTURE = new URL('../../genai/fixtures/triton-generate-stream-repeat.sse', import.meta.url);

describe.skipIf(!k6.path)(`lib/genai under real k6 ${k6.skipReason}`, () => {
  it('decodes and scores exactly as under Node', () => {
    const run = spawnSync(k6.path!, ['run', '--quiet', '--log-format=raw', SCRIPT], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const line = `${run.stdout}\n${run.stderr}`.split('\n').find((l) => l.startsWith('{"generateEvents"'));
    expect(line, run.stderr).toBeDefined();
    const underNode = JSON.parse(JSON.stringify(genaiSample(new Uint8Array(readFileSync(CAPTURE)))));
    expect(JSON.parse(line!)).toEqual(underNode);
    // The computation is not trivially empty.
    expect(underNode.generateEvents).toHaveLength(3);
    expect(underNode.level.goodRequests).toBe(1);
    expect(underNode.openaiMetrics).toMatchObject({ ok: true, outputTokens: 2, inputTokens: 4 });
  });
});
