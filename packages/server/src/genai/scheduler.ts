/**
 * The simulated generative model's scheduler: continuous (in-flight) batching as TensorRT-LLM and vLLM run it.
 * One step runs at a time over every active sequence: the prefill of sequences admitted at that step (their
 * input tokens not found in the prefix cache; each emits its first token at the step's end) and one decode token for every sequence already past prefill. A
 * request reserves its input plus its maximum output tokens of the KV cache when admitted (TensorRT-LLM's
 * GUARANTEED_NO_EVICT policy) and waits, first come first served, while they do not fit. Pure: no clock, no
 * timers; packages/server/src/genai/engine.ts runs the steps on real time, the tests on a virtual clock.
 */

/** How long steps take and how much the KV cache holds. */
export interface GenerativeTiming {
  /** Prefill time per input token, ms. */
  prefillPerToken_ms: number;
  /** A decode step's time with no sequence decoding (the fixed part), ms. */
  decodeBase_ms: number;
  /** What each sequence decoding in a step adds to it, ms. */
  decodePerSequence_ms: number;
  /** KV cache size, tokens. */
  kvCache_tokens: number;
}

/** One request as the scheduler sees it. */
export interface SequenceRequest {
  id: number;
  inputTokens: number;
  /** Tokens to generate (the simulated model never stops early). */
  outputTokens: number;
  /** Leading input tokens found in the prefix cache (prefix-cache.ts): not prefilled again. @default 0 */
  cachedTokens?: number;
}

/** A planned step: who prefills, who decodes, and how long it takes. */
export interface Step {
  duration_ms: number;
  prefill: number[];
  decode: number[];
}

/** A token a step produced: its sequence, its index (0 = first) and whether it is the sequence's last. */
export interface Emitted {
  id: number;
  index: number;
  last: boolean;
}

interface Active {
  request: SequenceRequest;
  generated: number;
}

/** A step's time: prefill of the admitted input tokens plus, when any sequence decodes, one decode step. */
export function stepDuration_ms(timing: GenerativeTiming, prefillTokens: number, decoding: number): number {
  const decode = decoding > 0 ? timing.decodeBase_ms + timing.decodePerSequence_ms * decoding : 0;
  return timing.prefillPerToken_ms * prefillTokens + decode;
}

/** KV cache tokens a request holds while it runs. */
export function reservation(request: SequenceRequest): number {
  return request.inputTokens + request.outputTokens;
}

/** Continuous batching over one model instance. */
export class ContinuousBatcher {
  readonly timing: GenerativeTiming;
  readonly #waiting: SequenceRequest[] = [];
  readonly #active = new Map<number, Active>();
  #kvUsed = 0;

  constructor(timing: GenerativeTiming) {
    this.timing = timing;
  }

  /** Queues a request; throws when it could never fit the KV cache. */
  submit(request: SequenceRequest): void {
    const need = reservation(request);
    if (need > this.timing.kvCache_tokens) {
      throw new Error(
        `the request needs ${need} KV cache tokens (${request.inputTokens} input + ${request.outputTokens} output), ` +
          `more than the model's ${this.timing.kvCache_tokens}; send fewer input tokens or a smaller max_tokens`,
      );
    }
    this.#waiting.push(request);
  }

  /** Drops a waiting or running request and frees its KV cache; false when it is not here. */
  cancel(id: number): boolean {
    const at = this.#waiting.findIndex((r) => r.id === id);
    if (at >= 0) {
      this.#waiting.splice(at, 1);
      return true;
    }
    const active = this.#active.get(id);
    if (!active) return false;
    this.#release(id, active);
    return true;
  }

  /** Requests waiting for KV cache. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Sequences admitted and not finished. */
  get active(): number {
    return this.#active.size;
  }

  /** KV cache tokens reserved now. */
  get kvUsed_tokens(): number {
    return this.#kvUsed;
  }

  /** Admits what fits, in arrival order, and plans the next step; undefined when there is nothing to run. */
  next(): Step | undefined {
    const decode = [...this.#active.keys()];
    const prefill: number[] = [];
    let prefillTokens = 0;
    while (this.#waiting.length > 0) {
      const head = this.#waiting[0]!;
      // First come first served: a request that does not fit holds back the ones behind it.
      if (this.#kvUsed + reservation(head) > this.timing.kvCache_tokens) break;
      this.#waiting.shift();
      this.#kvUsed += reservation(head);
      this.#active.set(head.id, { request: head, generated: 0 });
      prefill.push(head.id);
      prefillTokens += head.inputTokens - (head.cachedTokens ?? 0);
    }
    if (prefill.length === 0 && decode.length === 0) return undefined;
    return { duration_ms: stepDuration_ms(this.timing, prefillTokens, decode.length), prefill, decode };
  }

  /** Completes a planned step: one token for each of its sequences still running; finished ones free their KV. */
  finish(step: Step): Emitted[] {
    const out: Emitted[] = [];
    for (const id of [...step.prefill, ...step.decode]) {
      const active = this.#active.get(id);
      if (!active) continue; // cancelled during the step
      const index = active.generated;
      active.generated += 1;
      const last = active.generated >= active.request.outputTokens;
      out.push({ id, index, last });
      if (last) this.#release(id, active);
    }
    return out;
  }

  #release(id: number, active: Active): void {
    this.#active.delete(id);
    this.#kvUsed -= reservation(active.request);
  }
}
