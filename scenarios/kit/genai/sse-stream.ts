/**
 * The generative scenario's server-sent-events path: one request per iteration through xk6-sse's module
 * (`k6/x/sse`, which the Node runtime implements with the same API) to Triton's generate_stream or an OpenAI
 * chat or completions endpoint with `stream: true`. Each event is timed in its handler and folded into the
 * request's record by the protocol's rule (record.ts); the record is scored when the stream has closed. The
 * module is required only when a run streams over SSE: real k6 without the extension still runs the gRPC path,
 * and an SSE run there stops in the init context with one line naming the extension. Runs inside k6 and on Node.
 */
import type { GenerativeModelEntry } from '../../../models/generative.ts';
import type { StreamProtocol } from '../settings.ts';
import { readGenerateEvent } from '../../../lib/genai/generate-stream.ts';
import type { GenerationRecord } from '../../../lib/genai/metrics.ts';
import { readOpenAiEvent } from '../../../lib/genai/openai-stream.ts';
import { failRecord, newRecord, recordGenerate, recordOpenAi } from '../../../lib/genai/record.ts';

/** The stream protocols that travel as server-sent events. */
export type SseProtocol = Exclude<StreamProtocol, 'grpc'>;

/** xk6-sse's client, as a setup function gets it. */
export interface SseClient {
  on(event: 'open' | 'event' | 'error', handler: (value: never) => void): void;
  close(): void;
}

/** xk6-sse's event: the `event:` name ('' without one), the `data:` lines joined, the `id:`. */
export interface SseModuleEvent {
  id: string;
  name: string;
  data: string;
}

/** What sse.open returns: under real k6 the response once the stream closed, under the Node runtime its promise. */
export interface SseOpenResult {
  status: number;
  /** Set when the request failed before any response. */
  error: string;
}

/** xk6-sse's module API as the scenario uses it. */
export interface SseModule {
  open(
    url: string,
    params: Record<string, unknown>,
    setup: (client: SseClient) => void,
  ): SseOpenResult | Promise<SseOpenResult>;
}

/** The line an SSE run stops with when the k6 running it lacks the extension. */
export function missingSseMessage(protocol: SseProtocol): string {
  return `PROTOCOL=${protocol} streams over SSE with the k6 extension k6/x/sse, which this k6 binary lacks; build one with it (xk6 build --with github.com/phymbert/xk6-sse), use --runtime node, or PROTOCOL=grpc`;
}

/** Loads k6/x/sse (init context only); throws missingSseMessage when the runtime has no such module. */
export function loadSseModule(protocol: SseProtocol): SseModule {
  let required: unknown;
  try {
    // A require, not an import: k6 resolves imports before running anything, and the gRPC path must run
    // without the extension. Real k6 returns the default export, the Node runtime the module namespace.
    required = require('k6/x/sse');
  } catch {
    throw new Error(missingSseMessage(protocol));
  }
  const mod = required as { open?: unknown; default?: { open?: unknown } } | undefined;
  if (typeof mod?.open === 'function') return mod as SseModule;
  if (typeof mod?.default?.open === 'function') return mod.default as SseModule;
  throw new Error(missingSseMessage(protocol));
}

/** An SSE request: where it goes and its JSON body. */
export interface SseRequest {
  url: string;
  body: string;
}

/**
 * The request of one stream. generate: the model's inputs as the generate extension takes them, by name (a
 * prompt model's text_input, max_tokens, stream: true; a repeat model's IN, DELAY, WAIT). OpenAI: the served
 * model name, the prompt as one user message (chat) or `prompt`, max_tokens, stream: true and
 * stream_options.include_usage, so the server's own token count closes the stream.
 */
export function sseRequest(
  protocol: SseProtocol,
  baseUrl: string,
  modelName: string,
  inputs: Record<string, unknown[]>,
  entry: GenerativeModelEntry,
): SseRequest {
  if (protocol === 'generate') {
    const body: Record<string, unknown> = {};
    for (const t of entry.inputs) {
      const v = inputs[t.name] ?? [];
      // A [1]-shaped input goes as a scalar, as generate's clients write it.
      body[t.name] = t.dims.length === 1 && t.dims[0] === 1 ? v[0] : v;
    }
    return {
      url: `${baseUrl}/v2/models/${encodeURIComponent(modelName)}/generate_stream`,
      body: JSON.stringify(body),
    };
  }
  const prompt = inputs.text_input?.[0];
  if (typeof prompt !== 'string')
    throw new Error(
      `invalid PROTOCOL=${protocol} for ${entry.id}: OpenAI endpoints take a text prompt, which this model has not; use PROTOCOL=grpc or generate`,
    );
  const common = {
    model: modelName,
    max_tokens: inputs.max_tokens?.[0],
    stream: true,
    stream_options: { include_usage: true },
  };
  return protocol === 'openai-chat'
    ? {
        url: `${baseUrl}/v1/chat/completions`,
        body: JSON.stringify({ ...common, messages: [{ role: 'user', content: prompt }] }),
      }
    : { url: `${baseUrl}/v1/completions`, body: JSON.stringify({ ...common, prompt }) };
}

/** What streaming over SSE needs from the scenario. */
export interface SseStreamOptions {
  protocol: SseProtocol;
  sse: SseModule;
  request: SseRequest;
  headers: Record<string, string>;
  inputTokens: number;
  /** The request's timeout (a k6 duration); a cancelled request's is its cancellation delay. @default '120s' */
  timeout?: string;
  /** The clock every arrival is read on (ms). */
  now: () => number;
  /** Scores a finished request. */
  score: (record: GenerationRecord) => void;
}

/** The message of an xk6-sse error value (a Go error: `e.error()`), or of anything else thrown. */
function errorText(e: unknown): string {
  const value = e as { error?: unknown; message?: unknown } | undefined;
  if (typeof value?.error === 'function') return String((value.error as () => unknown)());
  if (typeof value?.message === 'string') return value.message;
  return String(e);
}

/** One request over SSE; the record is scored once the stream has closed. */
export function streamSse(o: SseStreamOptions): void {
  const record = newRecord(0, o.inputTokens);
  let done = false;
  const params = {
    method: 'POST',
    body: o.request.body,
    headers: { ...o.headers, 'Content-Type': 'application/json' },
    timeout: o.timeout ?? '120s',
  };
  const setup = (client: SseClient) => {
    client.on('event', (e: SseModuleEvent) => {
      const at = o.now();
      // xk6-sse dispatches a block without data (a comment, a keep-alive); the SSE standard does not.
      if (e.data === '') return;
      const event = { event: e.name || 'message', data: e.data };
      if (o.protocol === 'generate') recordGenerate(record, [readGenerateEvent(event)], at);
      else if (done) failRecord(record, 'malformed event: event after [DONE]', at);
      else {
        const read = readOpenAiEvent(event);
        recordOpenAi(record, read, at);
        done = read.some((r) => r.kind === 'done');
      }
      if (record.error !== undefined || done) client.close();
    });
    client.on('error', (e: unknown) => {
      failRecord(record, errorText(e), o.now());
      client.close();
    });
  };
  const settle = (result: SseOpenResult) => {
    const at = o.now();
    if (result.error) failRecord(record, result.error, at);
    else if (result.status !== 200) failRecord(record, `HTTP ${result.status} from ${o.request.url}`, at);
    else if (o.protocol === 'generate') record.done_ms ??= at;
    else if (!done) failRecord(record, 'stream ended before [DONE]', at);
    o.score(record);
  };
  record.sent_ms = o.now();
  const result = o.sse.open(o.request.url, params, setup);
  // xk6-sse's open returns once the stream has closed; the Node runtime's returns its promise: one path for both.
  Promise.resolve(result).then(settle, (err: unknown) => {
    failRecord(record, errorText(err), o.now());
    o.score(record);
  });
}
