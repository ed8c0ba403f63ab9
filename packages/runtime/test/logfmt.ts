/**
 * k6's log lines as logfmt (what k6 and the runtime write when their log output is not a terminal, as in the
 * tests): `time="..." level=info msg="..." key=value`, values Go-quoted when they need it. Parsed back so tests
 * can assert on the words.
 */

/** One parsed log line: its level word, message and other fields. */
export interface LogEntry {
  level: string;
  msg: string;
  fields: Record<string, string>;
}

const PAIR = /([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
const SIMPLE: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** Go's strconv.Unquote of a double-quoted string. */
function unquote(quoted: string): string {
  return quoted
    .slice(1, -1)
    .replace(/\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|.)/g, (_, e: string) =>
      e.length > 1 ? String.fromCodePoint(Number.parseInt(e.slice(1), 16)) : (SIMPLE[e] ?? e),
    );
}

/** A logfmt log line parsed, or undefined for any other line. */
export function parseLogLine(line: string): LogEntry | undefined {
  if (!line.startsWith('time=')) return undefined;
  const all: Record<string, string> = {};
  for (const m of line.matchAll(PAIR)) all[m[1]!] = m[2]!.startsWith('"') ? unquote(m[2]!) : m[2]!;
  const { time: _time, level = '', msg = '', ...fields } = all;
  return { level, msg, fields };
}

/** Every log line of a text, parsed. */
export function logEntries(text: string): LogEntry[] {
  return text.split('\n').flatMap((line) => parseLogLine(line) ?? []);
}

/** The text with each log line turned back into `message key=value ...` (the words a reader sees), other lines as they are. */
export function logText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const entry = parseLogLine(line);
      if (!entry) return line;
      const fields = Object.entries(entry.fields).map(([k, v]) => `${k}=${v}`);
      return [entry.msg, ...fields].join(' ');
    })
    .join('\n');
}
