/**
 * The mix file: several catalog models benched side by side, each with either a share of a total open-loop
 * rate or its own load (a request rate or a concurrency), and optional payload and budget overrides. JSON,
 * or YAML for a .yaml/.yml file. Parsed and checked here, before anything starts: every error is one line
 * naming the file, the field and the fix. Pure: text in, a Mix out; scaling a mix's loads lives here too.
 */
import { basename, dirname, extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { LoadMode } from '../../lib/load/shapes.ts';
import { MIX_SLOTS } from '../../scenarios/kit/run-plan.ts';
import { getModel, modelIds } from '../../models/index.ts';
import { GENERATIVE } from '../../models/generative.ts';

/** One model's load: VUs or requests per second. */
export interface MixLoad {
  mode: LoadMode;
  level: number;
}

/** One model of a mix, resolved. */
export interface MixModel {
  /** Catalog id (an alias in the file becomes the id). */
  id: string;
  load: MixLoad;
  /** Its share of total_rate, percent, when the mix gives shares. */
  share?: number;
  /** A payload manifest (PAYLOAD), absolute. */
  payload?: string;
  /** A budget file (THRESHOLDS), absolute. */
  budget?: string;
  p95_ms?: number;
  p99_ms?: number;
  /** A generative model's TTFT and ITL p95 budgets (TTFT_P95_MS, ITL_P95_MS), ms. */
  ttft_p95_ms?: number;
  itl_p95_ms?: number;
}

/** A checked mix file. */
export interface Mix {
  /** The file's `name`, else its base name without the extension. */
  name: string;
  path: string;
  /** The total open-loop rate the shares split, req/s. */
  total_rate?: number;
  models: MixModel[];
}

const TOP_FIELDS = ['name', 'total_rate', 'models'];
const MODEL_FIELDS = [
  'model',
  'share',
  'rate',
  'concurrency',
  'payload',
  'budget',
  'p95_ms',
  'p99_ms',
  'ttft_p95_ms',
  'itl_p95_ms',
];

/** Shares may miss 100 by rounding (33.3 x 3) but no more. */
const SHARE_TOLERANCE = 0.1;

/** Parses the file's text as JSON, or YAML by its extension; one line naming the file when it is malformed. */
function parseText(text: string, path: string): unknown {
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  try {
    return yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    const why = ((err as Error).message.split('\n')[0] ?? '').trim();
    throw new Error(`${path}: not valid ${yaml ? 'YAML' : 'JSON'} (${why}); fix the syntax`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A positive number field, or undefined when absent. */
function positive(path: string, field: string, value: unknown, whole = false): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !(value > 0) ||
    !Number.isFinite(value) ||
    (whole && !Number.isInteger(value))
  )
    throw new Error(
      `${path}: ${field} must be a positive ${whole ? 'whole ' : ''}number, got ${JSON.stringify(value)}`,
    );
  return value;
}

/** A path field, resolved against the mix file's folder. */
function filePath(path: string, field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    throw new Error(
      `${path}: ${field} must be a file path (relative to the mix file), got ${JSON.stringify(value)}`,
    );
  return resolve(dirname(path), value);
}

function unknownFields(path: string, where: string, record: Record<string, unknown>, known: string[]): void {
  const extra = Object.keys(record).find((key) => !known.includes(key));
  if (extra !== undefined)
    throw new Error(`${path}: ${where}${extra} is not a mix field; use ${known.join(', ')}`);
}

/** One model's entry; `totalRate` is the mix's total_rate (shares need it). */
function parseModel(path: string, raw: unknown, i: number, totalRate: number | undefined): MixModel {
  const at = `models[${i}]`;
  if (!isRecord(raw))
    throw new Error(`${path}: ${at} must be an object such as {"model": "dlrm", "concurrency": 8}`);
  unknownFields(path, `${at}.`, raw, MODEL_FIELDS);
  if (typeof raw.model !== 'string' || raw.model === '')
    throw new Error(`${path}: ${at}.model is missing; name a catalog model (${modelIds().join(', ')})`);
  let id: string;
  // A generative model (gpt2) joins as well: its levels are judged on its TTFT and ITL budgets.
  try {
    id = getModel(raw.model).id;
  } catch {
    throw new Error(
      `${path}: ${at}.model "${raw.model}" is not a catalog model; use one of ${[...modelIds(), ...Object.keys(GENERATIVE)].join(', ')}`,
    );
  }
  const share = positive(path, `${at}.share`, raw.share);
  const rate = positive(path, `${at}.rate`, raw.rate);
  const concurrency = positive(path, `${at}.concurrency`, raw.concurrency, true);
  const given = [share, rate, concurrency].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw new Error(
      `${path}: ${at} (${id}) ${given === 0 ? 'has no load' : 'has more than one load'}; give exactly one of share (with total_rate), rate or concurrency`,
    );
  if (share !== undefined && totalRate === undefined)
    throw new Error(`${path}: ${at}.share needs total_rate at the top level; add "total_rate": <req/s>`);
  const load: MixLoad =
    concurrency !== undefined
      ? { mode: 'concurrency', level: concurrency }
      : { mode: 'request-rate', level: rate ?? roundRate(((share ?? 0) * (totalRate ?? 0)) / 100) };
  const payload = filePath(path, `${at}.payload`, raw.payload);
  const budget = filePath(path, `${at}.budget`, raw.budget);
  const p95_ms = positive(path, `${at}.p95_ms`, raw.p95_ms);
  const p99_ms = positive(path, `${at}.p99_ms`, raw.p99_ms);
  const ttft_p95_ms = positive(path, `${at}.ttft_p95_ms`, raw.ttft_p95_ms);
  const itl_p95_ms = positive(path, `${at}.itl_p95_ms`, raw.itl_p95_ms);
  if ((ttft_p95_ms ?? itl_p95_ms) !== undefined && !GENERATIVE[id])
    throw new Error(
      `${path}: ${at} (${id}) is not a generative model; ttft_p95_ms and itl_p95_ms budget ${Object.keys(GENERATIVE).join(', ')} only, use p95_ms and p99_ms`,
    );
  return {
    id,
    load,
    ...(share !== undefined ? { share } : {}),
    ...(payload ? { payload } : {}),
    ...(budget ? { budget } : {}),
    ...(p95_ms !== undefined ? { p95_ms } : {}),
    ...(p99_ms !== undefined ? { p99_ms } : {}),
    ...(ttft_p95_ms !== undefined ? { ttft_p95_ms } : {}),
    ...(itl_p95_ms !== undefined ? { itl_p95_ms } : {}),
  };
}

/** Parses and checks a mix file's text; `path` names it in errors and anchors its relative paths. */
export function parseMix(text: string, path: string): Mix {
  const raw = parseText(text, path);
  if (!isRecord(raw))
    throw new Error(`${path}: a mix is an object with "models": [...]; see docs/benchmarks.md (Model mixes)`);
  unknownFields(path, '', raw, TOP_FIELDS);
  const totalRate = positive(path, 'total_rate', raw.total_rate);
  if (!Array.isArray(raw.models) || raw.models.length === 0)
    throw new Error(`${path}: models must be a non-empty list, e.g. [{"model": "dlrm", "concurrency": 8}]`);
  if (raw.models.length > MIX_SLOTS)
    throw new Error(`${path}: models has ${raw.models.length} entries; a mix takes at most ${MIX_SLOTS}`);
  const models = raw.models.map((m, i) => parseModel(path, m, i, totalRate));
  const seen = new Set<string>();
  models.forEach((m, i) => {
    if (seen.has(m.id))
      throw new Error(
        `${path}: models[${i}] repeats ${m.id}; list each model once (its loads add up in one entry)`,
      );
    seen.add(m.id);
  });
  const shared = models.filter((m) => m.share !== undefined);
  if (shared.length > 0 && shared.length < models.length)
    throw new Error(`${path}: some models give a share and some do not; give every model a share, or none`);
  if (totalRate !== undefined && shared.length === 0)
    throw new Error(
      `${path}: total_rate is set but no model has a share; give each model a share, or drop total_rate`,
    );
  const sum = shared.reduce((s, m) => s + m.share!, 0);
  if (shared.length > 0 && Math.abs(sum - 100) > SHARE_TOLERANCE)
    throw new Error(`${path}: shares sum to ${round(sum)}, not 100; adjust models[].share`);
  if (raw.name !== undefined && (typeof raw.name !== 'string' || !/^[\w.-]+$/.test(raw.name)))
    throw new Error(`${path}: name must be letters, digits, '.', '_' or '-' (it names the results folder)`);
  const name = (raw.name as string | undefined) ?? basename(path, extname(path));
  return { name, path, ...(totalRate !== undefined ? { total_rate: totalRate } : {}), models };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A request rate as a level takes it: one decimal, at least 0.1 req/s. */
function roundRate(rate: number): number {
  return Math.max(0.1, Math.round(rate * 10) / 10);
}

/**
 * A model's load with the whole mix scaled to `percent` of the file's (100: as written): a rate keeps one
 * decimal, a concurrency whole VUs (at least 1), so the mix's proportions hold as closely as they can.
 */
export function scaledLoad(load: MixLoad, percent: number): MixLoad {
  const level = (load.level * percent) / 100;
  return {
    mode: load.mode,
    level: load.mode === 'concurrency' ? Math.max(1, Math.round(level)) : roundRate(level),
  };
}

/** Every model's load at `percent` of the mix, in the file's order. */
export function scaleMix(mix: Mix, percent: number): MixLoad[] {
  return mix.models.map((m) => scaledLoad(m.load, percent));
}
