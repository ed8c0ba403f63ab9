/**
 * A generative run's raw per-request records (lib/genai/metrics.ts GenerationRecord), kept so the run can be
 * re-scored offline (`k6-triton rescore`). The scenario attaches each measured request's record to a
 * `genai_record` sample as metadata (lib/genai/names.ts GENAI_RECORD); the runtime's `--out json` writes it
 * (k6 and the Node runtime alike); this module turns that file into records.jsonl, one request a line with
 * its level, and reads records.jsonl back.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { GenerationRecord } from '../../lib/genai/metrics.ts';
import type { LeveledRecord } from '../../lib/genai/rescore.ts';
import { GENAI_RECORD } from '../../lib/genai/names.ts';
import { writeResult } from '../../report/not-written.ts';

/** The records file of a run folder. */
export const RECORDS_FILE = 'records.jsonl';

/** The runtime's raw sample output the records are read from; removed once they are. */
const SAMPLES_FILE = 'k6-samples.json';

/** A `genai_record` point of --out json (its level tag, the record as JSON in its metadata). */
export interface RecordPoint {
  data: { tags?: Record<string, string> | null; metadata?: Record<string, string> };
}

/** A record point as one records.jsonl line (with its level), or undefined when it holds no record. */
export function recordLine(point: RecordPoint): string | undefined {
  const raw = point.data.metadata?.[GENAI_RECORD.metadata];
  if (raw === undefined) return undefined;
  const level = point.data.tags?.['scenario'] ?? '';
  return `${JSON.stringify({ level, ...(JSON.parse(raw) as GenerationRecord) })}\n`;
}

/** The runtime arguments that write a run's samples, records among them, into `dir`. */
export function recordsOutputArgs(dir: string): string[] {
  return ['--out', `json=${join(dir, SAMPLES_FILE)}`];
}

/**
 * Writes `dir`/records.jsonl (whole, report/not-written.ts) from the samples file the run wrote and removes
 * that file; returns how many records it kept (0, and no file, when the run wrote none).
 */
export async function extractRecords(dir: string): Promise<number> {
  const samples = join(dir, SAMPLES_FILE);
  const lines = createInterface({ input: createReadStream(samples), crlfDelay: Number.POSITIVE_INFINITY });
  const out: string[] = [];
  try {
    for await (const line of lines) {
      // Only the record samples are parsed: the file holds every sample of the run.
      if (!line.includes(`"metric":"${GENAI_RECORD.metric}"`) || !line.includes('"metadata"')) continue;
      const record = recordLine(JSON.parse(line) as RecordPoint);
      if (record !== undefined) out.push(record);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const notWritten = out.length > 0 ? await writeResult(join(dir, RECORDS_FILE), out.join('')) : undefined;
  // The raw samples stay when the records could not be written from them: nothing else holds them.
  if (notWritten === undefined) await rm(samples, { force: true });
  return out.length;
}

/** Reads records.jsonl (a path to it or to its run folder); throws one line naming a malformed line. */
export async function readRecords(path: string): Promise<LeveledRecord[]> {
  const records: LeveledRecord[] = [];
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    let r: Partial<LeveledRecord>;
    try {
      r = JSON.parse(line) as Partial<LeveledRecord>;
    } catch {
      throw new Error(`${path}:${n}: not JSON; each line must be one record as the bench writes it`);
    }
    if (typeof r.level !== 'string' || typeof r.sent_ms !== 'number' || !Array.isArray(r.chunks))
      throw new Error(`${path}:${n}: not a request record (needs level, sent_ms and chunks)`);
    records.push(r as LeveledRecord);
  }
  return records;
}

/** The records of run folder `dir`; none when the run wrote no records file. */
export async function readRunRecords(dir: string): Promise<LeveledRecord[]> {
  try {
    return await readRecords(join(dir, RECORDS_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
