/**
 * A generative model's text embedded (PROTOCOL=openai-embeddings): each iteration sends one OpenAI
 * `POST /v1/embeddings` of BATCH inputs (synthetic prompts of INPUT_TOKENS words, as the generative scenario's
 * lengths) through k6/http, so a level's latency is `http_req_duration` and its inputs/s the inferences per
 * second (requests × BATCH), read and judged as a tensor model's are (summary.ts): the budget's p95/p99 on latency
 * and its error rate on `http_req_failed` plus invalid answers (not 200, or not one embedding per input).
 * Closed loop and k6's constant arrival rate. Runs under real k6 and the Node runtime.
 */
import exec from 'k6/execution';
import http from 'k6/http';
import type { Options } from 'k6/options';
import { type GenerativeModelEntry, generativeModelEntry } from '../../../models/generative.ts';
import { parseLevelName, WINDOW_TAG } from '../../../lib/load/names.ts';
import { WindowClock } from '../../../lib/load/windows.ts';
import {
  createResponseCounters,
  createServerCounters,
  createWindowRecord,
} from '../../../lib/load/metrics.ts';
import { type RunPlan, resolveRunPlan } from '../run-plan.ts';
import { levelSummary } from '../summary.ts';
import { endpointHint } from '../settings.ts';
import { workloads } from './stream-test.ts';

/** The exports of scenarios/llm.ts, as the generative scenario's. */
export interface EmbeddingsTest {
  options: Options;
  run: RunPlan;
  setup(): Promise<void>;
  warmup(): Promise<void>;
  infer(): Promise<void>;
  stats(): Promise<void>;
  handleSummary(data: Record<string, unknown>): Record<string, string>;
}

/** Each planned request's body: BATCH prompts of the run's input lengths, taken round robin. */
export function embeddingBodies(model: string, lengths: readonly number[], inputs: number): string[] {
  const prompts = lengths.map((n, i) => Array.from({ length: n }, (_, k) => `w${i}_${k}`).join(' '));
  return prompts.map((_, i) =>
    JSON.stringify({
      model,
      input: Array.from({ length: inputs }, (_, k) => prompts[(i + k) % prompts.length]),
      encoding_format: 'float',
    }),
  );
}

/** Whether an answer holds one embedding per input. */
export function validEmbeddings(body: unknown, inputs: number): boolean {
  const data = (body as { data?: { embedding?: unknown }[] } | null)?.data;
  return Array.isArray(data) && data.length === inputs && data.every((d) => Array.isArray(d.embedding));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Builds the embeddings scenario; call at the top level (init context) with the text of its budget file. */
export function embeddingsTest(
  entry: GenerativeModelEntry,
  budgetJson: string,
  budgetPath: string,
  env: Record<string, string | undefined> = __ENV,
): EmbeddingsTest {
  const run = resolveRunPlan(generativeModelEntry(entry), env, budgetJson, budgetPath, (path) => open(path));
  const { settings } = run;
  if (run.load.pacing)
    throw new Error(
      'PROTOCOL=openai-embeddings takes closed-loop levels or constant arrivals; drop ARRIVALS, SCHEDULE and REQUEST_INTERVALS',
    );
  const inputs = settings.batch;
  const bodies = embeddingBodies(
    settings.modelName,
    workloads(run.generative!).map((w) => w.inputTokens),
    inputs,
  );
  const url = `${settings.url}/v1/embeddings`;
  const headers = { 'Content-Type': 'application/json', ...settings.headers };
  const responses = createResponseCounters();
  // The plan's thresholds name the server-statistics counters a tensor run fills; registered, they stay empty
  // (the OpenAI endpoint's work is not a Triton model's statistics).
  createServerCounters();
  const windowRecord = createWindowRecord(env);
  // Each measured request is tagged with its sub-window, as the tensor loop tags them: the stability verdict.
  const clock = new WindowClock(run.load.window_s, () => exec.scenario.startTime);
  let next = 0;
  // asyncRequest: the Node runtime's VUs share one event loop and refuse the blocking http.post.
  const send = async (): Promise<void> => {
    const measured = parseLevelName(exec.scenario.name) !== undefined;
    if (measured) exec.vu.metrics.tags[WINDOW_TAG] = String(clock.index());
    const res = await http.asyncRequest('POST', url, bodies[next++ % bodies.length]!, { headers });
    if (!measured) return;
    responses.checked.add(1);
    // A 200 without one embedding per input is a failed request, as an invalid tensor answer is.
    if (res.status === 200 && !validEmbeddings(parseJson(String(res.body)), inputs)) responses.invalid.add(1);
  };
  return {
    options: run.options,
    run,
    async setup() {
      const res = await http.asyncRequest('POST', url, bodies[0]!, { headers });
      if (res.status !== 200)
        throw new Error(
          `POST ${url} answered ${res.status || res.error} (${String(res.body ?? '').slice(0, 200)}); start the server or ${endpointHint(settings)}`,
        );
    },
    warmup: send,
    infer: send,
    async stats(): Promise<void> {
      windowRecord.add(Date.now(), run.load.window_s);
      await new Promise((resolve) => setTimeout(resolve, run.load.window_s * 1000));
    },
    handleSummary: (data) => levelSummary(data, run, env),
  };
}
