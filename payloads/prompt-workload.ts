/**
 * A generative bench's prompt workload on Node: read its settings (INPUT_TOKENS, OUTPUT_TOKENS, PREFIX_TOKENS,
 * PREFIX_POOL, PROMPT_SALT (salt slots unless off), PROMPT_COUNT, PROMPT_SEED, DATASET, TOKENIZER), make it with the model's tokenizer once and cache it as
 * payloads/cache/<model>/prompts-<hash>/workload.json; a trace also gets schedule.jsonl beside it (the suite's
 * SCHEDULE format, one line per request naming it), which the run replays as recorded.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PromptWorkload, parseWorkload } from '../lib/genai/workload.ts';
import { GENERATIVE, type GenerativeModelEntry } from '../models/generative.ts';
import { DEFAULT_CACHE_DIR } from './index.ts';
import { makePromptWorkload, readDataset } from './prompts.ts';
import { readGenerativeSettings } from '../lib/genai/settings.ts';
import { given, readOr } from '../lib/settings/read.ts';
import { S } from '../lib/settings/schema.ts';
import { loadTokenizer } from './tokenizer.ts';

/** File names inside a workload folder. */
export const WORKLOAD_FILE = 'workload.json';
export const SCHEDULE_FILE = 'schedule.jsonl';

/** Settings that give the load themselves, so a trace's times are not replayed. */
const LOAD_SETTINGS = ['SCHEDULE', 'CONCURRENCY', 'REQUEST_RATE', 'REQUEST_INTERVALS'];

/** Where a workload is, and the schedule of a trace. */
export interface WorkloadRef {
  workloadPath: string;
  /** Set when the workload is a trace: its send times as a SCHEDULE file. */
  schedulePath?: string;
  cached: boolean;
  workload: PromptWorkload;
}

/** The model's tokenizer: TOKENIZER when set, else the one in its repository folder. */
export function tokenizerPath(entry: GenerativeModelEntry, env: Record<string, string | undefined>): string {
  const given_ = given(env, S.TOKENIZER);
  if (given_) return resolve(given_.trim());
  if (!entry.tokenizer)
    throw new Error(
      `model ${entry.id} has no tokenizer of its own; set TOKENIZER (--tokenizer) to its tokenizer.json`,
    );
  return fileURLToPath(new URL(`../${entry.tokenizer}`, import.meta.url));
}

/** Makes (or finds in the cache) the workload the settings describe. */
export function ensurePromptWorkload(
  entry: GenerativeModelEntry,
  env: Record<string, string | undefined>,
  options: { outDir?: string; force?: boolean } = {},
): WorkloadRef {
  const c = entry.calibration;
  const g = readGenerativeSettings(env, { inputTokens: c.inputTokens, outputTokens: c.outputTokens });
  const { inputTokens, outputTokens, promptCount: count, promptSeed: seed } = g;
  const prefixTokens = readOr(env, S.PREFIX_TOKENS, 0);
  const prefixPool = readOr(env, S.PREFIX_POOL, 1);
  const salt = readOr(env, S.PROMPT_SALT, 'random') !== 'off';
  const datasetPath = given(env, S.DATASET);
  const dataset = datasetPath ? readDataset(resolve(datasetPath.trim())) : undefined;
  const tokenizer = loadTokenizer(tokenizerPath(entry, env));
  const recipe: Record<string, unknown> = {
    generator: 1,
    tokenizer: { path: tokenizer.path, sha256: tokenizer.sha256 },
    outputTokens,
    ...(dataset
      ? {
          dataset: {
            path: dataset.path,
            sha256: createHash('sha256').update(dataset.text).digest('hex').slice(0, 16),
          },
        }
      : {
          inputTokens,
          prefixTokens,
          count,
          ...(prefixPool > 1 ? { prefixPool } : {}),
          ...(salt ? { salt } : {}),
        }),
  };
  const key = createHash('sha256').update(JSON.stringify({ recipe, seed })).digest('hex').slice(0, 12);
  const dir = join(resolve(options.outDir ?? DEFAULT_CACHE_DIR), entry.id, `prompts-s${seed}-${key}`);
  const workloadPath = join(dir, WORKLOAD_FILE);
  const scheduleOf = (w: PromptWorkload) =>
    w.requests[0]?.at_ms !== undefined ? join(dir, SCHEDULE_FILE) : undefined;
  if (!options.force && existsSync(workloadPath)) {
    const workload = parseWorkload(readFileSync(workloadPath, 'utf8'), workloadPath);
    const schedulePath = scheduleOf(workload);
    return { workloadPath, cached: true, workload, ...(schedulePath ? { schedulePath } : {}) };
  }
  const workload = makePromptWorkload(
    {
      model: entry.id,
      tokenizer,
      count,
      seed,
      inputTokens,
      outputTokens,
      prefixTokens,
      prefixPool,
      salt,
      ...(dataset ? { dataset } : {}),
    },
    recipe,
  );
  // Written into a temporary folder and renamed, so a cached workload is always whole.
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, WORKLOAD_FILE), `${JSON.stringify(workload)}\n`);
  const schedulePath = scheduleOf(workload);
  if (schedulePath)
    writeFileSync(
      join(tmp, SCHEDULE_FILE),
      workload.requests.map((r, i) => `${JSON.stringify({ at_ms: r.at_ms, payload: i })}\n`).join(''),
    );
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { workloadPath, cached: false, workload, ...(schedulePath ? { schedulePath } : {}) };
}

/**
 * A generative bench's settings with its workload in them: PAYLOAD the workload file (unless PAYLOAD is set),
 * SCHEDULE a trace's send times (unless a load is given, by the settings or `loadGiven` for a command that
 * sets its own levels: then its prompts are sent at that load). Models that take no prompt are left as they are.
 */
export function withPromptWorkload(
  model: string,
  settings: Readonly<Record<string, string>>,
  env: Record<string, string | undefined> = process.env,
  options: { outDir?: string; loadGiven?: boolean } = {},
): Readonly<Record<string, string>> {
  const entry = GENERATIVE[model];
  if (entry?.backend !== 'simulated_llm' || settings['PAYLOAD']) return settings;
  const ref = ensurePromptWorkload(entry, { ...env, ...settings }, options);
  return {
    ...settings,
    PAYLOAD: ref.workloadPath,
    ...(ref.schedulePath && !options.loadGiven && !LOAD_SETTINGS.some((name) => settings[name])
      ? { SCHEDULE: ref.schedulePath }
      : {}),
  };
}
