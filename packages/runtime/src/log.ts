/**
 * k6's log lines on stderr: `LEVL[SSSS] message  key=value ...`, SSSS = seconds since start.
 * The script's console writes here, as k6's console does.
 */
import { openSync, writeSync } from 'node:fs';
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

/** k6's --log-format, --log-output, --console-output and --verbose. */
export interface LogSettings {
  /** text: k6's default; json: one object per line; raw: the message alone. */
  format: 'text' | 'json' | 'raw';
  /** Where log lines go: stderr (default), stdout, nowhere, or a file appended to. */
  output: { to: 'stderr' | 'stdout' | 'none' } | { to: 'file'; path: string };
  /** --console-output: the script's console lines go to this file instead. */
  consoleFile?: string;
  /** -v: console.debug is shown. */
  verbose: boolean;
}

let format: LogSettings['format'] = 'text';
let verbose = false;
let consoleSink: ((line: string) => void) | null = null;

const fileWriter = (path: string): ((line: string) => void) => {
  const fd = openSync(path, 'a');
  return (line) => void writeSync(fd, line);
};

/** Applies a run's log settings; `stdout` is the run's stdout writer (for --log-output stdout). */
export function configureLog(settings: LogSettings, stdout: (s: string) => void): void {
  format = settings.format;
  verbose = settings.verbose;
  const out = settings.output;
  if (out.to === 'stdout') sink = stdout;
  else if (out.to === 'none') sink = () => {};
  else if (out.to === 'file') sink = fileWriter(out.path);
  consoleSink = settings.consoleFile ? fileWriter(settings.consoleFile) : null;
}

/** Sends the script's console lines to `path` (the script's consoleOutput option, when no flag set one). */
export function setConsoleFile(path: string): void {
  consoleSink ??= fileWriter(path);
}

const JSON_LEVEL: Record<Level, string> = { INFO: 'info', WARN: 'warning', ERRO: 'error', DEBU: 'debug' };

function render(level: Level, message: string, fields: Record<string, string>): string {
  if (format === 'raw') return `${message}\n`;
  if (format === 'json') {
    // logrus's JSON: the fields with level, msg and time, keys sorted.
    const all: Record<string, string> = {
      ...fields,
      level: JSON_LEVEL[level],
      msg: message,
      time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    const sorted = Object.fromEntries(
      Object.keys(all)
        .sort()
        .map((k) => [k, all[k]]),
    );
    return `${JSON.stringify(sorted)}\n`;
  }
  const secs = String(Math.floor((performance.now() - started_ms) / 1000)).padStart(4, '0');
  const extra = Object.entries(fields)
    .map(([k, v]) => `${k}=${/\s/.test(v) ? JSON.stringify(v) : v}`)
    .join(' ');
  return `${level}[${secs}] ${message}${extra ? ` ${extra}` : ''}\n`;
}

/** Writes one k6-style log line. */
export function logLine(level: Level, message: string, fields: Record<string, string> = {}): void {
  const line = render(level, message, fields);
  sink(secrets.length === 0 ? line : redacted(line));
}

/** A line of the script's console: to --console-output's file when set (without the source field, as k6). */
function consoleLine(level: Level, message: string): void {
  if (!consoleSink) {
    logLine(level, message, { source: 'console' });
    return;
  }
  const line = render(level, message, {});
  consoleSink(secrets.length === 0 ? line : redacted(line));
}

function text(args: unknown[]): string {
  return args.map(consoleValue).join(' ');
}

/** The `console` a k6 script sees: log/info → INFO, warn → WARN, error → ERRO, debug only with -v (as k6). */
export const k6Console = {
  log: (...args: unknown[]) => consoleLine('INFO', text(args)),
  info: (...args: unknown[]) => consoleLine('INFO', text(args)),
  warn: (...args: unknown[]) => consoleLine('WARN', text(args)),
  error: (...args: unknown[]) => consoleLine('ERRO', text(args)),
  debug: (...args: unknown[]) => {
    if (verbose) consoleLine('DEBU', text(args));
  },
  trace: (..._args: unknown[]) => {},
};
