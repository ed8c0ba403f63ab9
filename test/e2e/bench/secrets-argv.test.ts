/**
 * Issue 35 item 7: a secret in HEADERS never reaches a command line. A bench runs with HEADERS holding a
 * unique token; while it runs, /proc/<pid>/cmdline of every process below it (the runtime child, the embedded
 * server) is read, and the token must be in none of them, while the header still arrives at the server (a
 * forwarding proxy records it). Under the Node runtime always, under real k6 when there is one.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startCatalogServer } from '../../../measure/repository/built-in.ts';
import { findK6 } from '../agreement/harness.ts';
import { startForwardingProxy } from './forwarding-proxy.ts';
import { descendants, startCli } from './processes.ts';
import { resultsDir } from './run-cli.ts';

const k6 = findK6();
if (!k6.bin)
  console.log(`real-k6 case skipped: no k6 binary (looked for ${k6.looked.join(', ')}; set K6_BIN)`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Reads the command line of every process below `pid` every 50 ms until stop(): pid → its argv joined. */
function watchCommandLines(pid: number): { stop(): Map<number, string> } {
  const seen = new Map<number, string>();
  const take = () => {
    for (const child of descendants(pid)) {
      try {
        const argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ');
        // A process that exec()s (setpriv → the runtime) shows both command lines over time.
        const before = seen.get(child) ?? '';
        if (!before.includes(argv)) seen.set(child, `${before} ${argv}`.trim());
      } catch {
        // Gone between the listing and the read.
      }
    }
  };
  take();
  const timer = setInterval(take, 50);
  return {
    stop() {
      clearInterval(timer);
      take();
      return seen;
    },
  };
}

const runtimes = [{ runtime: 'node', env: {} as Record<string, string> }];
if (k6.bin) runtimes.push({ runtime: 'k6', env: { K6_BIN: k6.bin } });

describe('secrets never in argv', () => {
  it.each(runtimes)(
    'HEADERS reach the server but no command line ($runtime)',
    async ({ runtime, env }) => {
      const server = await startCatalogServer({ httpPort: 0, grpcPort: -1, metricsPort: -1 });
      cleanups.push(() => server.stop());
      const seenTokens = new Set<string>();
      const proxy = await startForwardingProxy(`http://127.0.0.1:${server.httpPort}`, {
        onRequest: (req) => {
          const value = req.headers.authorization;
          if (typeof value === 'string') seenTokens.add(value);
        },
      });
      cleanups.push(() => proxy.close());
      const token = `tok${randomBytes(12).toString('hex')}`;
      const bench = startCli(
        [
          ...['bench', 'mnist', '--runtime', runtime, '--concurrency', '1', '--step-duration', '2s'],
          ...['--warmup', '0s', '--count', '2', '--metrics-url', 'off', '--results-dir', resultsDir()],
        ],
        {
          ...env,
          TRITON_URL: proxy.url,
          HEADERS: `Authorization:Bearer ${token}`,
          P95_MS: '60000',
          P99_MS: '60000',
        },
      );
      cleanups.push(() => {
        if (bench.child.exitCode === null) process.kill(-bench.child.pid!, 'SIGKILL');
      });
      const watcher = watchCommandLines(bench.child.pid!);
      const code = await bench.exited;
      const commandLines = watcher.stop();

      expect(code, bench.output()).toBe(0);
      // The runtime child was seen while it ran.
      expect(
        [...commandLines.values()].some((argv) => /\brun\b/.test(argv)),
        bench.output(),
      ).toBe(true);
      for (const [pid, argv] of commandLines) expect(argv, `pid ${pid}`).not.toContain(token);
      expect(seenTokens).toContain(`Bearer ${token}`);
    },
    120_000,
  );
});
