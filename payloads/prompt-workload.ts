/**
 * A generative bench's prompt workload on Node: read its settings (INPUT_TOKENS, OUTPUT_TOKENS, PREFIX_TOKENS,
 * PREFIX_POOL, PROMPT_SALT (salt slots unless off), PROMPT_COUNT, PROMPT_SEED, DATASET, TOKENIZER), make it with
 * the model's tokenizer once and cache it as
 * payloads/cache/<model>/prompts-<hash>/workload.json; a trace also gets schedule.jsonl beside it (the suite's
 * SCHEDULE format, one line per request naming it), which the run replays as recorded. Multi-turn settings
 * (CONVERSATION_*, or a conversation DATASET) make a conversation workload instead (payloads/conversations.ts),
 * cached as payloads/cache/<model>/conversations-<hash>/workload.json.
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
import { given, read, readOr } from '../lib/settings/read.ts';
import { S } from '../lib/settings/schema.ts';
import { loadTokenizer } from './tokenizer.ts';
import { conversationDataset, isConversationDataset, makeConversationWorkload } from './conversations.ts';
import { type ConversationWorkload, parseConversationWorkload } from '../lib/genai/conversation.ts';

/** File names inside a workload folder. */
export const WORKLOAD_FILE = 'workload.json';
export const SCHEDULE_FILE = 'schedule.jsonl';

/** Settings that give the load themselves, so a trace's times are not replayed. */
const LOAD_SETTINGS = ['SCHEDULE', 'CONCURRENCY', 'REQUEST_RATE', 'REQUEST_INTERVALS', 'RAMP', 'RAMP_RATE'];

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

/** A dataset as a recipe names it: its path and a digest of its text, so an edited file makes a new workload. */
function datasetRecipe(dataset: { path: string; text: string }): Record<string, string> {
  return { path: dataset.path, sha256: createHash('sha256').update(dataset.text).digest('hex').slice(0, 16) };
}

/** A workload's cache folder: `<kind>-s<seed>-<hash of recipe and seed>` under the model's. */
function workloadDir(
  outDir: string | undefined,
  model: string,
  kind: string,
  recipe: Record<string, unknown>,
  seed: number,
): string {
  const key = createHash('sha256').update(JSON.stringify({ recipe, seed })).digest('hex').slice(0, 12);
  return join(resolve(outDir ?? DEFAULT_CACHE_DIR), model, `${kind}-s${seed}-${key}`);
}

/** Writes a workload folder's files into a temporary folder renamed over `dir`, so a cached one is always whole. */
export function writeWorkloadDir(dir: string, files: Record<string, string>): void {
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(tmp, name), text);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
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
      ? { dataset: datasetRecipe(dataset) }
      : {
          inputTokens,
          prefixTokens,
          count,
          ...(prefixPool > 1 ? { prefixPool } : {}),
          ...(salt ? { salt } : {}),
        }),
  };
  const dir = workloadDir(options.outDir, entry.id, 'prompts', recipe, seed);
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
  const schedulePath = scheduleOf(workload);
  writeWorkloadDir(dir, {
    [WORKLOAD_FILE]: `${JSON.stringify(workload)}\n`,
    ...(schedulePath
      ? {
          [SCHEDULE_FILE]: workload.requests
            .map((r, i) => `${JSON.stringify({ at_ms: r.at_ms, payload: i })}\n`)
            .join(''),
        }
      : {}),
  });
  return { workloadPath, cached: false, workload, ...(schedulePath ? { schedulePath } : {}) };
}

/** Settings that make a run multi-turn, besides a conversation dataset. */
const CONVERSATION_SETTINGS = [
  S.CONVERSATION_NUM,
  S.CONVERSATION_TURN_MEAN,
  S.CONVERSATION_TURN_STDDEV,
  S.CONVERSATION_TURN_DELAY_MEAN,
  S.CONVERSATION_TURN_DELAY_STDDEV,
];

/** Whether the settings ask for multi-turn sessions: a conversation setting, or a conversation dataset. */
export function conversationsAsked(env: Record<string, string | undefined>): boolean {
  if (CONVERSATION_SETTINGS.some((s) => given(env, s))) return true;
  const path = given(env, S.DATASET);
  return path !== undefined && isConversationDataset(readDataset(resolve(path.trim())).text);
}

/** Where a conversation workload is. */
export interface ConversationWorkloadRef {
  workloadPath: string;
  cached: boolean;
  workload: ConversationWorkload;
}

/**
 * Makes (or finds in the cache) the conversation workload the settings describe (payloads/conversations.ts):
 * synthetic sessions, or a conversation dataset's; one line for a setting that does not apply to them.
 */
export function ensureConversationWorkload(
  entry: GenerativeModelEntry,
  env: Record<string, string | undefined>,
  options: { outDir?: string; force?: boolean } = {},
): ConversationWorkloadRef {
  const c = entry.calibration;
  const g = readGenerativeSettings(env, { inputTokens: c.inputTokens, outputTokens: c.outputTokens });
  if (readOr(env, S.PREFIX_TOKENS, 0) > 0)
    throw new Error(
      'PREFIX_TOKENS (--prefix-tokens) does not apply to conversations, whose history is their shared prefix; drop it or the conversation settings',
    );
  if (readOr(env, S.PREFIX_POOL, 1) > 1)
    throw new Error(
      'PREFIX_POOL (--prefix-pool) does not apply to conversations, whose history is their shared prefix; drop it or the conversation settings',
    );
  const datasetPath = given(env, S.DATASET);
  const dataset = datasetPath ? readDataset(resolve(datasetPath.trim())) : undefined;
  if (dataset && !isConversationDataset(dataset.text))
    throw new Error(
      `dataset ${dataset.path} holds single prompts, not conversations; give a JSONL file of "conversations" or "messages" lines, or drop the conversation settings`,
    );
  const turnSet = [S.CONVERSATION_TURN_MEAN, S.CONVERSATION_TURN_STDDEV].find((s) => given(env, s));
  if (dataset && turnSet)
    throw new Error(
      `${turnSet.env} (${turnSet.flags[0]}) makes synthetic sessions; the dataset ${dataset.path} gives its own turns: drop one`,
    );
  // Synthetic sessions are salted unless PROMPT_SALT=off, as single prompts are; a dataset's text only when a
  // salt is asked for (PROMPT_SALT given and not off), as a dataset is the user's own words.
  const saltSetting = read(env, S.PROMPT_SALT) ?? (dataset ? 'off' : 'random');
  const salt = saltSetting !== 'off';
  const sessions = dataset ? conversationDataset(dataset.path, dataset.text) : undefined;
  const count = read(env, S.CONVERSATION_NUM) ?? (sessions ? sessions.length : g.promptCount);
  const shape = {
    count,
    turns: {
      mean: readOr(env, S.CONVERSATION_TURN_MEAN, 1),
      stddev: readOr(env, S.CONVERSATION_TURN_STDDEV, 0),
    },
    delay_ms: {
      mean: readOr(env, S.CONVERSATION_TURN_DELAY_MEAN, 0),
      stddev: readOr(env, S.CONVERSATION_TURN_DELAY_STDDEV, 0),
    },
  };
  const tokenizer = loadTokenizer(tokenizerPath(entry, env));
  const recipe: Record<string, unknown> = {
    conversations: 1,
    tokenizer: { path: tokenizer.path, sha256: tokenizer.sha256 },
    outputTokens: g.outputTokens,
    ...shape,
    ...(dataset ? { dataset: datasetRecipe(dataset) } : { inputTokens: g.inputTokens }),
    ...(salt ? { salt } : {}),
  };
  const seed = g.promptSeed;
  const dir = workloadDir(options.outDir, entry.id, 'conversations', recipe, seed);
  const workloadPath = join(dir, WORKLOAD_FILE);
  if (!options.force && existsSync(workloadPath))
    return {
      workloadPath,
      cached: true,
      workload: parseConversationWorkload(readFileSync(workloadPath, 'utf8'), workloadPath),
    };
  const workload = makeConversationWorkload(
    {
      model: entry.id,
      tokenizer,
      seed,
      inputTokens: g.inputTokens,
      outputTokens: g.outputTokens,
      ...shape,
      salt,
      ...(sessions ? { dataset: sessions } : {}),
    },
    recipe,
  );
  writeWorkloadDir(dir, { [WORKLOAD_FILE]: `${JSON.stringify(workload)}\n` });
  return { workloadPath, cached: false, workload };
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
  const merged = { ...env, ...settings };
  const turnSetting = entry && CONVERSATION_SETTINGS.find((s) => given(merged, s));
  if (entry && entry.backend !== 'simulated_llm' && turnSetting)
    throw new Error(
      `${turnSetting.env} (${turnSetting.flags[0]}): ${model} takes no prompt, so it has no conversation to carry; use a prompt model (gpt2) or drop the conversation settings`,
    );
  if (entry?.backend !== 'simulated_llm' || settings['PAYLOAD']) return settings;
  if (conversationsAsked(merged))
    return { ...settings, PAYLOAD: ensureConversationWorkload(entry, merged, options).workloadPath };
  const ref = ensurePromptWorkload(entry, merged, options);
  return {
    ...settings,
    PAYLOAD: ref.workloadPath,
    ...(ref.schedulePath && !options.loadGiven && !LOAD_SETTINGS.some((name) => settings[name])
      ? { SCHEDULE: ref.schedulePath }
      : {}),
  };
}
