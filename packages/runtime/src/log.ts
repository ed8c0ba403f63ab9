/**
 * k6's log lines on stderr, in logrus's text format as k6 sets it up: on a terminal (and without --no-color)
 * colored `LEVL[SSSS] message  key=value ...` (SSSS = seconds since start, the message padded to 44), otherwise
 * logfmt, `time="..." level=info msg="..." key=value`; or JSON or the raw message (--log-format). The script's
 * console writes here, as k6's console does.
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
  /**
   * Text lines in k6's terminal form, colored; else logfmt. k6 colors only when its log output (stderr or stdout)
   * is a terminal and --no-color, K6_NO_COLOR and NO_COLOR are unset (`logColors`). @default false
   */
  colors?: boolean;
  /** Where log lines go: stderr (default), stdout, nowhere, or a file appended to. */
  output: { to: 'stderr' | 'stdout' | 'none' } | { to: 'file'; path: string };
  /** --console-output: the script's console lines go to this file instead. */
  consoleFile?: string;
  /** -v: console.debug is shown. */
  verbose: boolean;
}

let format: LogSettings['format'] = 'text';
let colors = false;
let verbose = false;
let consoleSink: ((line: string) => void) | null = null;

const fileWriter = (path: string): ((line: string) => void) => {
  const fd = openSync(path, 'a');
  return (line) => void writeSync(fd, line);
};

/** Applies a run's log settings; `stdout` is the run's stdout writer (for --log-output stdout). */
export function configureLog(settings: LogSettings, stdout: (s: string) => void): void {
  setLogFormat(settings.format, settings.colors ?? false);
  verbose = settings.verbose;
  const out = settings.output;
  if (out.to === 'stdout') sink = stdout;
  else if (out.to === 'none') sink = () => {};
  else if (out.to === 'file') sink = fileWriter(out.path);
  consoleSink = settings.consoleFile ? fileWriter(settings.consoleFile) : null;
}

/** Whether k6 colors its log lines: its log output is a terminal and no setting turned colors off. */
export function logColors(output: LogSettings['output'], noColor: boolean): boolean {
  if (noColor) return false;
  if (output.to === 'stderr') return process.stderr.isTTY === true;
  return output.to === 'stdout' && process.stdout.isTTY === true;
}

/** The format lines render in (a blocking VU's thread takes the engine's). */
export function setLogFormat(to: LogSettings['format'], colored: boolean): void {
  format = to;
  colors = colored;
}

/** How lines render: the format and, for text, whether in k6's colored terminal form. */
export interface LogFormat {
  format: LogSettings['format'];
  colors: boolean;
}

/** The format lines render in now. */
export function logFormat(): LogFormat {
  return { format, colors };
}

/** Sends the script's console lines to `path` (the script's consoleOutput option, when no flag set one). */
export function setConsoleFile(path: string): void {
  consoleSink ??= fileWriter(path);
}

/** logrus's level words, as logfmt and JSON lines write them. */
const LEVEL_WORD: Record<Level, string> = { INFO: 'info', WARN: 'warning', ERRO: 'error', DEBU: 'debug' };

function render(level: Level, message: string, fields: Record<string, string>): string {
  if (format === 'raw') return `${message}\n`;
  if (format === 'json') {
    // logrus's JSON: the fields with level, msg and time, keys sorted.
    const all: Record<string, string> = {
      ...fields,
      level: LEVEL_WORD[level],
      msg: message,
      time: rfc3339(new Date()),
    };
    const sorted = Object.fromEntries(
      Object.keys(all)
        .sort()
        .map((k) => [k, all[k]]),
    );
    return `${JSON.stringify(sorted)}\n`;
  }
  // logrus sorts the fields by key in both text forms.
  const keys = Object.keys(fields).sort();
  if (!colors) {
    let line = `time=${logfmtValue(rfc3339(new Date()))} level=${LEVEL_WORD[level]}`;
    if (message !== '') line += ` msg=${logfmtValue(message)}`;
    for (const k of keys) line += ` ${k}=${logfmtValue(fields[k]!)}`;
    return `${line}\n`;
  }
  const color = `\x1b[${LEVEL_COLOR[level]}m`;
  const secs = String(Math.floor((performance.now() - started_ms) / 1000)).padStart(4, '0');
  // Go's %-44s pads by characters, and logrus drops one trailing newline of a colored message.
  const shown = message.endsWith('\n') ? message.slice(0, -1) : message;
  let line = `${color}${level}\x1b[0m[${secs}] ${shown}${' '.repeat(Math.max(0, 44 - [...shown].length))} `;
  for (const k of keys) line += ` ${color}${k}\x1b[0m=${logfmtValue(fields[k]!)}`;
  return `${line}\n`;
}

/** logrus's colors per level: blue, yellow, red, gray. */
const LEVEL_COLOR: Record<Level, number> = { INFO: 36, WARN: 33, ERRO: 31, DEBU: 37 };

/** A value as logrus writes it: bare when it holds only letters, digits and `-._/@^+`, else Go-quoted. */
export function logfmtValue(value: string): string {
  return /^[A-Za-z0-9\-._/@^+]*$/.test(value) ? value : goQuote(value);
}

const GO_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Go's %q (strconv.Quote): printable characters as they are, the rest escaped. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const escaped = GO_ESCAPES[ch];
    if (escaped) out += escaped;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    // A lone surrogate reaches Go as U+FFFD, which is printable.
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) {
      out +=
        cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** Go's time.RFC3339 in local time: seconds, then Z or the zone's offset. */
function rfc3339(d: Date): string {
  const offset_min = -d.getTimezoneOffset();
  const two = (n: number) => String(n).padStart(2, '0');
  const zone =
    offset_min === 0
      ? 'Z'
      : `${offset_min > 0 ? '+' : '-'}${two(Math.floor(Math.abs(offset_min) / 60))}:${two(Math.abs(offset_min) % 60)}`;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(
    d.getMinutes(),
  )}:${two(d.getSeconds())}${zone}`;
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
