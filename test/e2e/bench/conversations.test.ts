/**
 * `bench gpt2` with multi-turn sessions against the embedded server's simulated gpt2: a ShareGPT / OpenAI-messages
 * dataset over gRPC, synthetic sessions over OpenAI chat SSE and at a session start rate under the Node runtime;
 * the dataset with think time over gRPC under real k6 when present; a cancellation share (39-A's) over gRPC
 * under both. Checked: the summary's per-turn figures exist for every turn and no other,
 * each completed session is one last-turn request (no failures), the level's requests are the turns' sum, and
 * each turn's ISL is the workload's exact history-plus-message count.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LevelResult } from '../../../lib/summary/types.ts';
import { referenceTool } from '../tools/reference-tools.ts';
import { EXIT } from '../../../measure/core/exit-codes.ts';
import { resultsDir, runCli, runFolder } from './run-cli.ts';

const k6 = referenceTool('k6', 'K6_BIN');

/** Four three-turn chats, every one the same lengths turn by turn (4-word messages, 3-word answers). */
function chatDataset(): string {
  const vocab = ['kalo', 'mi', 'zzz', 'kaka', 'lumo', 'fen'];
  const words = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => vocab[(seed + i) % 6]).join(' ');
  const lines = [0, 1, 2, 3].map((s) =>
    s % 2 === 0
      ? {
          conversations: [
            { from: 'human', value: words(4, s) },
            { from: 'gpt', value: words(3, s + 1) },
            { from: 'human', value: words(4, s + 2) },
            { from: 'gpt', value: words(3, s + 3) },
            { from: 'human', value: words(4, s + 4) },
            { from: 'gpt', value: words(3, s + 5) },
          ],
        }
      : {
          messages: [1, 2, 3].flatMap((t) => [
            { role: 'user', content: words(4, s + t) },
            { role: 'assistant', content: words(3, s + t + 1) },
          ]),
        },
  );
  const file = join(mkdtempSync(join(tmpdir(), 'gpt2-chat-')), 'chat.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

async function benchSessions(runtime: 'node' | 'k6', args: string[], env: Record<string, string> = {}) {
  const results = resultsDir();
  // Closed loop at two sessions in flight unless the test gives a session start rate.
  const load = args.includes('--request-rate') ? [] : ['--concurrency', '2'];
  const run = await runCli(
    [
      ...['bench', 'gpt2', '--runtime', runtime, ...load, '--step-duration', '2s', '--warmup', '1s'],
      ...['--results-dir', results, ...args],
    ],
    { TTFT_P95_MS: '60000', ITL_P95_MS: '60000', ALLOW_INCONCLUSIVE: 'true', ...env },
  );
  return { run, results };
}

/** The level's conversation figures, checked against the turn count and the workload's exact ISL per turn. */
function checkSessions(results: string, turns: number, isl: readonly number[]): LevelResult {
  const dir = runFolder(results, 'gpt2');
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const [level] = summary.report.results as LevelResult[];
  const c = level!.genai!.conversation!;
  expect(level!.errors).toBe(0);
  expect(c.failed_sessions).toBe(0);
  expect(c.turns.map((t) => t.turn)).toEqual(Array.from({ length: turns }, (_, k) => k + 1));
  // A session completes as its last turn succeeds: one last-turn request each.
  expect(c.sessions).toBeGreaterThan(0);
  expect(c.sessions).toBe(c.turns[turns - 1]!.requests);
  // Every session turn counts in the level. The level may hold a warm-up request or two besides (untagged: a
  // warm-up stream the Node runtime let end after the window opened, one per VU at most).
  const turned = c.turns.reduce((sum, t) => sum + t.requests, 0);
  expect(level!.requests - turned).toBeGreaterThanOrEqual(0);
  expect(level!.requests - turned).toBeLessThanOrEqual(2);
  // Sessions run turn after turn: no turn has more requests than the one before it.
  for (let k = 1; k < turns; k++) expect(c.turns[k]!.requests).toBeLessThanOrEqual(c.turns[k - 1]!.requests);
  expect(c.turns.map((t) => t.isl_avg)).toEqual(isl);
  for (const t of c.turns) expect(t.ttft_ms.p50).toBeGreaterThan(0);
  expect(c.session_duration_ms.p50).toBeGreaterThan(0);
  const report = readFileSync(join(dir, 'report.md'), 'utf8');
  expect(report).toContain('## Conversations: sessions and turns');
  return level!;
}

describe('bench gpt2 with conversations', () => {
  it('a ShareGPT / messages dataset over gRPC under the Node runtime: every turn carries the history', async () => {
    const { run, results } = await benchSessions('node', [
      ...['--dataset', chatDataset(), '--conversation-turn-delay-mean', '5'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    // Turn k: k messages of 4 tokens and k - 1 recorded answers of 3, all counted by gpt2's tokenizer.
    const level = checkSessions(results, 3, [4, 11, 18]);
    // Each turn asked for its recorded answer's 3 tokens and got them.
    expect(level.genai!.osl_mismatches).toBe(0);
    expect(level.genai!.output_tokens).toBe(level.requests * 3);
    expect(run.stdout).toMatch(
      /^c2 sessions: \d+ completed, 0 failed, duration p50\/p95 .* TTFT p50 by turn 1: .*; 3: /m,
    );
  }, 120_000);

  it('synthetic sessions over OpenAI chat SSE under the Node runtime', async () => {
    const { run, results } = await benchSessions(
      'node',
      ['--protocol', 'openai-chat', '--conversation-num', '4', '--conversation-turn-mean', '2'],
      { INPUT_TOKENS: '20', OUTPUT_TOKENS: '6' },
    );
    expect(run.code, run.stderr).toBe(0);
    // ISL from the server's usage: turn 2 is turn 1's 20 tokens, the 6-token answer and 20 more.
    const level = checkSessions(results, 2, [20, 46]);
    expect(level.genai!.token_sources).toEqual({ input: 'server', output: 'server' });
  }, 120_000);

  it('a session start rate (--request-rate) under the Node runtime: each send starts one session', async () => {
    const { run, results } = await benchSessions(
      'node',
      ['--request-rate', '4', '--conversation-num', '4', '--conversation-turn-mean', '2'],
      { INPUT_TOKENS: '12', OUTPUT_TOKENS: '5' },
    );
    // A 2 s open-loop level has too few requests for any budget to judge (as generative.test.ts's open loop).
    expect(run.code, run.stderr).toBe(EXIT.NOT_MEASURED);
    const level = checkSessions(results, 2, [12, 29]);
    // k6's arrival rate starts (or drops) rate x window iterations; each is one session, its first turn the send.
    const sends = level.genai!.schedule!.sends;
    expect(sends + level.dropped_iterations).toBe(4 * level.window_s);
    expect(level.genai!.conversation!.turns[0]!.requests).toBe(sends);
    expect(run.stdout).toMatch(/^r4: (schedule held|could not keep up)/m);
  }, 120_000);

  it('a malformed conversation line: one line naming the file, the line and the fix, non-zero exit', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gpt2-chat-')), 'bad.jsonl');
    writeFileSync(
      file,
      `${readFileSync(chatDataset(), 'utf8').split('\n')[0]}\n{"messages":[{"role":"assistant","content":"hi"}]}\n`,
    );
    const { run } = await benchSessions('node', ['--dataset', file]);
    expect(run.code).not.toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.includes(file));
    expect(lines).toEqual([
      `k6-triton: conversation dataset ${file} line 2: message 1: an answer before any user message; ` +
        'each line is {"conversations":[{"from":"human","value":"..."},{"from":"gpt","value":"..."}]} or ' +
        '{"messages":[{"role":"user","content":"..."},{"role":"assistant","content":"..."}]}',
    ]);
  }, 60_000);

  for (const runtime of ['node', 'k6'] as const)
    it.skipIf(runtime === 'k6' && !k6.path)(
      `a cancellation share over gRPC under ${runtime === 'k6' ? `real k6 ${k6.skipReason}` : 'the Node runtime'}: a cancelled turn ends its session`,
      async () => {
        // 30 tokens take about 55 ms on gpt2's timing: a cancel at 20 ms falls inside every turn's stream.
        const { run, results } = await benchSessions(
          runtime,
          [
            ...['--conversation-num', '4', '--conversation-turn-mean', '3'],
            ...['--request-cancellation-rate', '30', '--request-cancellation-delay', '0.02'],
          ],
          { INPUT_TOKENS: '20', OUTPUT_TOKENS: '30', ...(runtime === 'k6' ? { K6_BIN: k6.path! } : {}) },
        );
        expect(run.code, run.stderr).toBe(0);
        // Cancelled turns are in no figure: the turns that ended carry the exact history, and a session that
        // lost a turn is neither completed nor failed.
        const level = checkSessions(results, 3, [20, 70, 120]);
        expect(level.genai!.cancelled_requests).toBeGreaterThan(0);
        const turns = level.genai!.conversation!.turns;
        expect(turns[2]!.requests).toBeLessThan(turns[0]!.requests);
      },
      120_000,
    );

  it.skipIf(!k6.path)(
    `the dataset with think time over gRPC under real k6 ${k6.skipReason}`,
    async () => {
      const { run, results } = await benchSessions(
        'k6',
        ['--dataset', chatDataset(), '--conversation-turn-delay-mean', '10'],
        { K6_BIN: k6.path! },
      );
      expect(run.code, run.stderr).toBe(0);
      const level = checkSessions(results, 3, [4, 11, 18]);
      expect(level.genai!.osl_mismatches).toBe(0);
      // Two think times of 10 ms lie inside every completed session.
      expect(level.genai!.conversation!.session_duration_ms.min).toBeGreaterThanOrEqual(20);
    },
    120_000,
  );
});
