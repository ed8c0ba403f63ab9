/**
 * A prompt workload: the fixed list of requests a generative bench sends, made on Node by payloads/prompts.ts
 * (synthetic prompts, a JSONL dataset or a trace) and read by the scenario with open(). Each request carries its
 * prompt, its input length as counted when it was made, the output length it asks for and, for a trace, its
 * send time. Pure (no k6, no Node imports) so the tests check what runs inside k6.
 */

import { type SaltSlots, saltAlphabetProblem } from './salt.ts';

/** Format tag written into every workload file. */
export const WORKLOAD_FORMAT = 'k6-triton-prompts/1';

/**
 * Where a token count came from: the server's own count (OpenAI usage), the model's tokenizer, or an estimate
 * (whitespace words for input; one token per streamed response for output).
 */
export type TokenSource = 'server' | 'tokenizer' | 'estimate';

/** One request of a workload. */
export interface PromptRequest {
  prompt: string;
  /** Input tokens of the prompt, counted by `inputTokenSource`. */
  inputTokens: number;
  /** Output tokens asked for (max_tokens, and the backend's minimum where it has one). */
  outputTokens: number;
  /** A trace's send time, ms from its first request. */
  at_ms?: number;
  /** Where its salt goes (salt.ts): set on a synthetic prompt made to be salted. */
  salt?: SaltSlots;
}

/** A whole workload file. */
export interface PromptWorkload {
  format: string;
  /** Catalog id of the model it was made for. */
  model: string;
  /** How inputTokens were counted. */
  inputTokenSource: TokenSource;
  /** The tokenizer.json that counted them, when one did. */
  tokenizer?: string;
  seed: number;
  /** What made it (synthetic lengths, dataset file, ...), as hashed into its cache key. */
  recipe: Record<string, unknown>;
  /** One-token words the salt is spelled in (SALT_BASE of them), when the prompts have salt slots. */
  saltAlphabet?: string[];
  requests: PromptRequest[];
}

const SOURCES: readonly TokenSource[] = ['server', 'tokenizer', 'estimate'];

function positiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}

/** Parses and checks a workload file; throws one line naming the file and the fix. */
export function parseWorkload(text: string, path: string): PromptWorkload {
  const fail = (why: string) =>
    new Error(`prompt workload ${path}: ${why}; regenerate it (k6-triton bench <model> makes one)`);
  let doc: PromptWorkload;
  try {
    doc = JSON.parse(text) as PromptWorkload;
  } catch {
    throw fail('not JSON');
  }
  if (doc?.format !== WORKLOAD_FORMAT) throw fail(`format is not ${WORKLOAD_FORMAT}`);
  if (!SOURCES.includes(doc.inputTokenSource))
    throw fail(`inputTokenSource "${doc.inputTokenSource}" unknown`);
  if (!Array.isArray(doc.requests) || doc.requests.length === 0) throw fail('no requests');
  const alphabet = doc.saltAlphabet;
  const alphabetProblem = saltAlphabetProblem(alphabet);
  if (alphabetProblem) throw fail(alphabetProblem);
  doc.requests.forEach((r, i) => {
    if (typeof r.prompt !== 'string') throw fail(`request ${i} has no prompt`);
    if (!positiveInt(r.inputTokens) || !positiveInt(r.outputTokens))
      throw fail(`request ${i} needs whole inputTokens and outputTokens >= 1`);
    if (r.salt !== undefined && alphabet === undefined)
      throw fail(`request ${i} has salt slots and no saltAlphabet`);
  });
  return doc;
}
