/**
 * Soak benchmark (not a test): the embedded server (`k6-triton serve`) and a load generator (load.ts), each in
 * its own process, for a bounded time; prints both processes' RSS over time with the answers counted so far.
 * Stops by itself: children are signalled at the end, killed if they linger, and on Ctrl-C.
 *
 *   node --import tsx bench/soak/run.ts [--duration 60s] [--interval 5s] [--concurrency 8] [-- serve flags…]
 *
 * Linux only: RSS of other processes is read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDuration_s } from '../../lib/load/parse.ts';
import { startServeProcess } from '../serve-process.ts';
import { mnistZeroRepository } from '../server/mnist-zero.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Time a child gets to exit after SIGTERM before SIGKILL. */
const EXIT_GRACE_MS = 5000;

/** Soak settings, parsed once from argv. */
interface SoakOptions {
  duration_s: number;
  interval_s: number;
  concurrency: number;
  serveArgs: string[];
}

function parseOptions(argv: string[]): SoakOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '60s' },
      interval: { type: 'string', default: '5s' },
      concurrency: { type: 'string', default: '8' },
    },
    allowPositionals: true,
  });
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`--concurrency must be a whole number >= 1, got "${values.concurrency}"`);
  return {
    duration_s: parseDuration_s('--duration', values.duration),
    interval_s: parseDuration_s('--interval', values.interval),
    concurrency,
    serveArgs: positionals,
  };
}

/** Resident set size of a process in MiB, from /proc. */
function rss_MiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) / 1024;
}

/** SIGTERM, then SIGKILL if the child is still there after the grace period. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const fmt = (n: number, width = 8) => n.toFixed(1).padStart(width);

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  if (!existsProc()) throw new Error('soak: reading RSS needs /proc (Linux)');
  const repo = mnistZeroRepository(1, 'k6t-soak-');
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    await Promise.all(children.map(stopChild));
    rmSync(repo, { recursive: true, force: true });
  };
  process.once('SIGINT', () => cleanup().then(() => process.exit(130)));
  try {
    const server = await startServeProcess({ args: ['--model-repository', repo, ...opts.serveArgs] });
    children.push(server.child);
    const serverStart_MiB = rss_MiB(server.child.pid);
    const load = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/soak/load.ts',
        String(server.http),
        String(opts.concurrency),
        String(opts.duration_s),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(load);
    let counts: Record<string, number> = {};
    let buffered = '';
    load.stdout!.on('data', (d) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      if (lines.length > 0) counts = JSON.parse(lines[lines.length - 1]!);
    });
    const loadDone = new Promise<void>((resolve) => load.once('exit', () => resolve()));
    console.log(
      `soak: ${opts.duration_s} s at concurrency ${opts.concurrency}; server pid ${server.child.pid} (RSS ${serverStart_MiB.toFixed(1)} MiB idle), load pid ${load.pid}`,
    );
    console.log('     t_s  server_MiB    load_MiB  answers');
    const started = Date.now();
    const samples: number[] = [];
    const sample = () => {
      const t_s = (Date.now() - started) / 1000;
      const s = rss_MiB(server.child.pid);
      samples.push(s);
      let l = Number.NaN;
      try {
        l = rss_MiB(load.pid);
      } catch {
        // the load generator has exited
      }
      console.log(`${fmt(t_s)}  ${fmt(s, 10)}  ${fmt(l, 10)}  ${JSON.stringify(counts)}`);
    };
    const timer = setInterval(sample, opts.interval_s * 1000);
    // Bounded: the load generator stops itself at the duration; give it a margin, then stop it.
    const deadline = setTimeout(() => void stopChild(load), (opts.duration_s + 10) * 1000);
    await loadDone;
    clearInterval(timer);
    clearTimeout(deadline);
    sample();
    const peak = Math.max(...samples);
    console.log(
      `server RSS: ${serverStart_MiB.toFixed(1)} MiB idle, ${samples[0]?.toFixed(1)} MiB at the first sample, ${samples[samples.length - 1]?.toFixed(1)} MiB at the end, ${peak.toFixed(1)} MiB peak`,
    );
  } finally {
    await cleanup();
  }
}

function existsProc(): boolean {
  try {
    readFileSync('/proc/self/status');
    return true;
  } catch {
    return false;
  }
}

main().catch((err: Error) => {
  console.error(`soak: ${err.message}`);
  process.exit(1);
});
