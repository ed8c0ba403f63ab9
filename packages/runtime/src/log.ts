/**
 * k6's log lines on stderr: `LEVL[SSSS] message  key=value ...`, SSSS = seconds since start.
 * The script's console writes here, as k6's console does.
 */
import { consoleValue } from './console-format.ts';

let started_ms = performance.now();
let sink: (line: string) => void = (line) => process.stderr.write(line);

/** Redirects log lines (tests capture them); returns the previous sink. */
export function setLogSink(fn: (line: string) => void): (line: string) => void {
  const prev = sink;
  sink = fn;
  return prev;
}

/** When log lines' seconds start, in ms since the epoch. */
export function logStartEpoch(): number {
  return performance.timeOrigin + started_ms;
}

/** Counts log lines' seconds from `epoch_ms` (a blocking VU's thread takes the engine's start). */
export function setLogStartEpoch(epoch_ms: number): void {
  started_ms = epoch_ms - performance.timeOrigin;
}

/** Writes a finished log line (a blocking VU thread's, blocking/thread-vu.ts) to the current sink. */
export function writeLogLine(line: string): void {
  sink(line);
}

export type Level = 'INFO' | 'WARN' | 'ERRO' | 'DEBU';

/** Secret values read (k6/secrets), longest first; log lines show them as k6 does, redacted. */
const secrets: string[] = [];

/** Keeps `value` out of every later log line (k6 writes ***SECRET_REDACTED*** instead). */
export function redactFromLogs(value: string): void {
  if (value.trim() === '' || secrets.includes(value)) return;
  secrets.push(value);
  secrets.sort((a, b) => b.length - a.length);
}

/** Forgets the secrets of an earlier run in this process: each run redacts the secrets it read. */
export function forgetRedactions(): void {
  secrets.length = 0;
}

const redacted = (line: string): string =>
  secrets.reduce((l, s) => l.replaceAll(s, '***SECRET_REDACTED***'), line);

/** Writes one k6-style log line. */
export function logLine(level: Level, message: string, fields: Record<string, string> = {}): void {
  const secs = String(Math.floor((performance.now() - started_ms) / 1000)).padStart(4, '0');
  const extra = Object.entries(fields)
    .map(([k, v]) => `${k}=${/\s/.test(v) ? JSON.stringify(v) : v}`)
    .join(' ');
  const line = `${level}[${secs}] ${message}${extra ? ` ${extra}` : ''}\n`;
  sink(secrets.length === 0 ? line : redacted(line));
}

function format(args: unknown[]): string {
  return args.map(consoleValue).join(' ');
}

/** The `console` a k6 script sees: log/info → INFO, warn → WARN, error → ERRO, debug dropped (k6 needs -v). */
export const k6Console = {
  log: (...args: unknown[]) => logLine('INFO', format(args), { source: 'console' }),
  info: (...args: unknown[]) => logLine('INFO', format(args), { source: 'console' }),
  warn: (...args: unknown[]) => logLine('WARN', format(args), { source: 'console' }),
  error: (...args: unknown[]) => logLine('ERRO', format(args), { source: 'console' }),
  debug: (..._args: unknown[]) => {},
  trace: (..._args: unknown[]) => {},
};
