import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rescoreLevels } from '../../lib/genai/rescore.ts';
import { extractRecords, readRecords } from '../../measure/core/genai-records.ts';

const record = (sent_ms: number, gaps: number[]) => {
  const at = gaps.map((_, i) => sent_ms + gaps.slice(0, i + 1).reduce((a, b) => a + b, 0));
  return { sent_ms, inputTokens: 5, chunks: at.map((at_ms) => ({ at_ms, tokens: 1 })) };
};

describe('rescoreLevels', () => {
  it('scores each level apart, in the order levels first appear', () => {
    const levels = rescoreLevels([
      { level: 'c2', ...record(0, [10, 2, 2]) },
      { level: 'c1', ...record(0, [20, 4]) },
      { level: 'c2', ...record(1, [30, 2, 2]) },
    ]);
    expect(levels.map((l) => l.level)).toEqual(['c2', 'c1']);
    expect(levels[0]!.metrics.requests).toBe(2);
    expect(levels[0]!.metrics.ttft_ms!.avg).toBe(20);
    expect(levels[1]!.metrics.itl_ms!.avg).toBe(4);
  });

  it('applies SLOs and the first-token rule given now', () => {
    const empty = {
      level: 'c1',
      sent_ms: 0,
      inputTokens: 1,
      chunks: [
        { at_ms: 5, tokens: 0 },
        { at_ms: 50, tokens: 1 },
      ],
    };
    const [strict] = rescoreLevels([empty], { slo: { ttft_ms: 10 } });
    const [any] = rescoreLevels([empty], { slo: { ttft_ms: 10 }, firstToken: 'any' });
    expect(strict!.metrics.goodRequests).toBe(0);
    expect(any!.metrics.goodRequests).toBe(1);
  });
});

describe('records.jsonl', () => {
  it('keeps only the record samples of the runtime output, with their level, and removes the output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'records-'));
    const r = record(100, [12, 3]);
    writeFileSync(
      join(dir, 'k6-samples.json'),
      [
        '{"type":"Metric","data":{"name":"genai_record","type":"counter"},"metric":"genai_record"}',
        '{"type":"Point","data":{"time":"t","value":1,"tags":{"scenario":"c1"}},"metric":"genai_ttft"}',
        JSON.stringify({
          metric: 'genai_record',
          type: 'Point',
          data: { value: 1, tags: { scenario: 'c4' }, metadata: { record: JSON.stringify(r) } },
        }),
        '{"type":"Point","data":{"time":"t","value":1,"tags":{"scenario":"c4"}},"metric":"genai_record"}',
      ].join('\n'),
    );
    expect(await extractRecords(dir)).toBe(1);
    expect(existsSync(join(dir, 'k6-samples.json'))).toBe(false);
    expect(await readRecords(join(dir, 'records.jsonl'))).toEqual([{ level: 'c4', ...r }]);
    expect(readFileSync(join(dir, 'records.jsonl'), 'utf8').split('\n')).toHaveLength(2);
  });

  it("keeps a conversation turn's index, which re-scoring reads past", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'records-'));
    const turns = [1, 2].map((turn) => ({ ...record(100 * turn, [10 * turn, 3]), turn }));
    writeFileSync(
      join(dir, 'k6-samples.json'),
      turns
        .map((r) =>
          JSON.stringify({
            metric: 'genai_record',
            type: 'Point',
            data: { value: 1, tags: { scenario: 'c2' }, metadata: { record: JSON.stringify(r) } },
          }),
        )
        .join('\n'),
    );
    expect(await extractRecords(dir)).toBe(2);
    const read = await readRecords(join(dir, 'records.jsonl'));
    expect(read.map((r) => [r.level, r.turn])).toEqual([
      ['c2', 1],
      ['c2', 2],
    ]);
    const [level] = rescoreLevels(read);
    expect([level!.metrics.requests, level!.metrics.ttft_ms!.avg]).toEqual([2, 15]);
  });

  it('names the line that is not a record', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'records-')), 'records.jsonl');
    writeFileSync(path, `${JSON.stringify({ level: 'c1', ...record(0, [1]) })}\n{"level":"c1"}\n`);
    await expect(readRecords(path)).rejects.toThrow(`${path}:2: not a request record`);
  });
});
