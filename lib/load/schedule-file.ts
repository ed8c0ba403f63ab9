/**
 * Recorded arrival schedules read from files: the suite's own schedule (JSON lines, one request per line)
 * and perf_analyzer's --request-intervals file (one gap in microseconds per line), read as perf_analyzer
 * reads it. Pure text in, send times out; every error is one line naming the file, the line and the fix.
 * Runs inside k6 (the scenario reads the file with open()): no Node imports.
 */

/** A recorded schedule: send times from the first request, and the payload each request names. */
export interface RecordedSchedule {
  /** The file it came from, for messages. */
  source: string;
  /** Send times, milliseconds after the first request (which is at 0), ascending. */
  offsets_ms: number[];
  /** Per request: the index of the sample to send, or undefined for the next one in turn. */
  payloads: (number | undefined)[];
  /** Per request: the file's line number, for messages about a request. */
  lines: number[];
}

const SCHEDULE_FIX =
  'each line is {"at_ms": <ms>, "model": "<name>", "payload": <index>}, model and payload optional';

function scheduleError(file: string, line: number, reason: string, fix = SCHEDULE_FIX): Error {
  return new Error(`schedule ${file} line ${line}: ${reason}; ${fix}`);
}

/**
 * Parses a schedule file in JSON lines: `{"at_ms": 12.5, "model": "mnist", "payload": 3}` per request,
 * times in milliseconds from any origin, in send order (blank lines skipped). Lines naming a model not in
 * `models` are left out, so one recording of a mix replays per model. The replay starts at the first
 * kept request.
 */
export function parseScheduleFile(
  text: string,
  file: string,
  options: { models?: readonly string[] } = {},
): RecordedSchedule {
  const offsets_ms: number[] = [];
  const payloads: (number | undefined)[] = [];
  const lines: number[] = [];
  const models = new Set<string>();
  let first_ms: number | undefined;
  let previous_ms = -Infinity;
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const line = i + 1;
    const raw = rows[i]!.trim();
    if (raw === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch {
      throw scheduleError(file, line, 'not a JSON object');
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw scheduleError(file, line, 'not a JSON object');
    const { at_ms, model, payload } = row as Record<string, unknown>;
    if (typeof at_ms !== 'number' || !Number.isFinite(at_ms) || at_ms < 0)
      throw scheduleError(file, line, `at_ms ${JSON.stringify(at_ms)} is not a number >= 0`);
    if (at_ms < previous_ms)
      throw scheduleError(
        file,
        line,
        `at_ms ${at_ms} is before the previous request's ${previous_ms}`,
        'sort the file by at_ms',
      );
    previous_ms = at_ms;
    if (model !== undefined && typeof model !== 'string')
      throw scheduleError(file, line, `model ${JSON.stringify(model)} is not a string`);
    if (payload !== undefined && !(typeof payload === 'number' && Number.isInteger(payload) && payload >= 0))
      throw scheduleError(file, line, `payload ${JSON.stringify(payload)} is not a whole number >= 0`);
    if (model !== undefined) models.add(model);
    if (options.models && model !== undefined && !options.models.includes(model)) continue;
    first_ms ??= at_ms;
    offsets_ms.push(at_ms - first_ms);
    payloads.push(payload as number | undefined);
    lines.push(line);
  }
  if (offsets_ms.length === 0) {
    const named = models.size > 0 ? ` (it names ${[...models].join(', ')})` : '';
    throw new Error(
      `schedule ${file} has no request for model ${options.models?.join(' or ') ?? '(any)'}${named}; add lines or pick a model it names`,
    );
  }
  return { source: file, offsets_ms, payloads, lines };
}

/** One line per request, as parseScheduleFile reads it back. */
export function formatScheduleLine(at_ms: number, model?: string, payload?: number): string {
  return JSON.stringify({
    at_ms,
    ...(model === undefined ? {} : { model }),
    ...(payload === undefined ? {} : { payload }),
  });
}

/**
 * Parses perf_analyzer's --request-intervals file: one whole number of microseconds per line, the gap
 * before each request (perf_analyzer sends its first request one gap after the start). A final newline
 * is fine; a blank or non-numeric line is an error, as perf_analyzer's std::stol fails on it.
 */
export function parseRequestIntervals(text: string, file: string): number[] {
  const rows = text.split('\n');
  if (rows.length > 1 && rows[rows.length - 1]!.trim() === '') rows.pop();
  const fix = 'put one whole number of microseconds per line, e.g. 100000 for 0.1 s';
  const intervals_us: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!.trim();
    if (!/^\d+$/.test(raw)) {
      const what = raw === '' ? 'is empty' : `"${raw}" is not a whole number of microseconds`;
      throw new Error(`request intervals ${file} line ${i + 1} ${what}; ${fix}`);
    }
    intervals_us.push(Number(raw));
  }
  if (intervals_us.every((us) => us === 0))
    throw new Error(`request intervals ${file} has no gap longer than 0; ${fix}`);
  return intervals_us;
}

/** Mean rate of an interval file, requests per second (perf_analyzer's custom request rate). */
export function intervalsRate(intervals_us: readonly number[]): number {
  return (intervals_us.length * 1e6) / intervals_us.reduce((sum, us) => sum + us, 0);
}

/**
 * Send times of an interval file over `duration_s`, ms from the start: request i goes once the first
 * i + 1 gaps have passed, looping over the file as perf_analyzer does.
 */
export function intervalOffsets_ms(intervals_us: readonly number[], duration_s: number): number[] {
  const offsets: number[] = [];
  const end_us = duration_s * 1e6;
  let t_us = 0;
  for (let i = 0; ; i = (i + 1) % intervals_us.length) {
    t_us += intervals_us[i]!;
    if (t_us >= end_us) return offsets;
    offsets.push(t_us / 1000);
  }
}

/** A recorded schedule at `speed` times its pace (2: twice as fast). */
export function scaleSchedule(schedule: RecordedSchedule, speed: number): RecordedSchedule {
  if (!(speed > 0))
    throw new Error(`schedule speed ${speed} must be greater than 0, e.g. 2 for twice as fast`);
  return { ...schedule, offsets_ms: schedule.offsets_ms.map((t) => t / speed) };
}

/** Throws one line when a schedule names a payload the run does not have (`count` samples). */
export function checkPayloadIndexes(schedule: RecordedSchedule, count: number): void {
  const at = schedule.payloads.findIndex((p) => p !== undefined && p >= count);
  if (at < 0) return;
  throw new Error(
    `schedule ${schedule.source} line ${schedule.lines[at]}: payload ${schedule.payloads[at]} is out of range, the run has ${count} payloads (0-${count - 1}); fix the index or give PAYLOAD with more samples`,
  );
}
