/**
 * How many streamed tokens per second one generator times correctly: the bench's own scenario and runtime
 * (as `bench gpt2` runs them) stream from the pre-flight's known-delay model (measure/core/preflight.ts) at
 * rising concurrency, every stream `--tokens` tokens one `--gap` ms apart, and each level prints the offered
 * tokens/s beside the client's timing error over the server's real send times (lib/genai/error-bar.ts). At c1
 * the records pair with the server's streams one by one, so TTFT error there is the added TTFT over the model's
 * own first-token time; above c1 the error is against the server's median gap. Figures, not assertions.
 *
 *   node --import tsx bench/genai/stream-capacity.ts [--runtime node|k6] [--protocol grpc|openai-chat|...]
 *     [--levels 1,2,4,8,16] [--gap 2] [--tokens 50] [--first 10] [--window 4]
 */
import { cpus, loadavg } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { watchSignals } from '../../measure/core/interrupt.ts';
import { preflight } from '../../measure/core/preflight.ts';
import { prepare } from '../../measure/core/prepare.ts';
import type { RuntimeChoice } from '../../measure/core/runner.ts';
import { resolveTarget } from '../../measure/core/target.ts';
import { withPromptWorkload } from '../../payloads/prompt-workload.ts';

const { values: args } = parseArgs({
  options: {
    runtime: { type: 'string', default: 'node' },
    protocol: { type: 'string', default: 'grpc' },
    levels: { type: 'string', default: '1,2,4,8,16' },
    gap: { type: 'string', default: '2' },
    tokens: { type: 'string', default: '50' },
    first: { type: 'string', default: '10' },
    window: { type: 'string', default: '4' },
  },
});
const stream = { first_ms: Number(args.first), gap_ms: Number(args.gap), tokens: Number(args.tokens) };
const levels = args.levels.split(',').map(Number);
const f = (n: number) => n.toFixed(3);

const interruption = watchSignals();
const settings = withPromptWorkload('gpt2', {
  PROTOCOL: args.protocol,
  INPUT_TOKENS: '200',
  OUTPUT_TOKENS: '50',
});
const prepared = await prepare(resolveTarget('gpt2', settings), {}, interruption);
const dir = mkdtempSync(join(tmpdir(), 'stream-capacity-'));
console.log(
  `# ${args.protocol}, ${args.runtime} runtime; stream: first ${stream.first_ms} ms, ${stream.tokens} tokens ${stream.gap_ms} ms apart; ` +
    `${args.window} s a level; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores at the start`,
);
console.log(
  '| c | offered tokens/s | requests | paired | TTFT error p50 / p99 | gap error p50 / p99 | server late p50 / p99 |',
);
console.log('|---|---|---|---|---|---|---|');
try {
  for (const c of levels) {
    const bar = await preflight(
      prepared,
      { dir: join(dir, `c${c}`), runtime: args.runtime as RuntimeChoice, interruption },
      { stream, concurrency: c, window_s: Number(args.window), say: false },
    );
    if (!bar) {
      console.log(`| ${c} | - | no request succeeded | | | | |`);
      continue;
    }
    console.log(
      `| ${c} | ${((c * 1000) / stream.gap_ms).toFixed(0)} | ${bar.requests} | ${bar.paired ? 'yes' : 'no'} | ` +
        `${f(bar.ttft_error_ms.p50)} / ${f(bar.ttft_error_ms.p99)} | ${f(bar.gap_error_ms.p50)} / ${f(bar.gap_error_ms.p99)} | ` +
        `${f(bar.server_late_ms.p50)} / ${f(bar.server_late_ms.p99)} |`,
    );
  }
} finally {
  console.log(`load average ${loadavg()[0]!.toFixed(1)} at the end`);
  await prepared.stop();
  interruption.dispose();
}
