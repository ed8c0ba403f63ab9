/**
 * log.ts's text forms, as logrus renders them for k6: colored for a terminal, logfmt otherwise (the logfmt form
 * is also checked against real k6 in test/e2e/agreement/log-format.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { forgetRedactions, logColors, logFormat, logLine, setLogFormat, setLogSink } from '../src/log.ts';

/** The lines `fn` logs, in the given form. */
function capture(colors: boolean, fn: () => void): string[] {
  // Secrets another test file read in this worker would be redacted from these lines.
  forgetRedactions();
  const lines: string[] = [];
  const prevSink = setLogSink((line) => lines.push(line));
  const prev = logFormat();
  setLogFormat('text', colors);
  try {
    fn();
  } finally {
    setLogFormat(prev.format, prev.colors);
    setLogSink(prevSink);
  }
  return lines;
}

describe('log lines', () => {
  afterEach(() => setLogFormat('text', false));

  it('into a pipe: logfmt, the fields sorted by key, values Go-quoted only when needed', () => {
    const [line] = capture(false, () =>
      logLine('WARN', 'a "b"\n', { source: 'console', hint: 'x y', error: 'plain-1.2/x@y^z+w' }),
    );
    expect(line).toMatch(
      /^time="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)" level=warning msg="a \\"b\\"\\n" error=plain-1\.2\/x@y\^z\+w hint="x y" source=console\n$/,
    );
    // An empty message leaves msg out, as logrus does.
    expect(capture(false, () => logLine('INFO', '', { source: 'console' }))[0]).toMatch(
      /^time="[^"]+" level=info source=console\n$/,
    );
  });

  it('on a terminal: the level colored, the message padded to 44 characters, one trailing newline dropped', () => {
    // The escape character shown as <ESC>, so the patterns hold no control character.
    const shown = (lines: string[]) => lines[0]!.replaceAll('\x1b', '<ESC>');
    const line = shown(
      capture(true, () => logLine('ERRO', 'é failed\n', { source: 'stacktrace', hint: 'x y' })),
    );
    expect(line).toMatch(/^<ESC>\[31mERRO<ESC>\[0m\[\d{4}\] é failed {36} {2}<ESC>/);
    expect(line.endsWith(' <ESC>[31mhint<ESC>[0m="x y" <ESC>[31msource<ESC>[0m=stacktrace\n')).toBe(true);
    const info = shown(capture(true, () => logLine('INFO', 'hi', {})));
    expect(info).toMatch(/^<ESC>\[36mINFO<ESC>\[0m\[\d{4}\] hi {42} \n$/);
  });

  it('colors only a terminal k6 logs to, and never with --no-color', () => {
    expect(logColors({ to: 'stderr' }, true)).toBe(false);
    expect(logColors({ to: 'stdout' }, true)).toBe(false);
    expect(logColors({ to: 'file', path: '/tmp/x.log' }, false)).toBe(false);
    expect(logColors({ to: 'none' }, false)).toBe(false);
    expect(logColors({ to: 'stderr' }, false)).toBe(process.stderr.isTTY === true);
  });
});
