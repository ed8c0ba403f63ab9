/**
 * Per model-version statistics as Triton's statistics extension reports them: counts and cumulative
 * nanoseconds of success, fail, queue and the three compute phases, per request and per batch size.
 */

/** A {count, ns} pair, Triton's StatisticDuration. */
export interface Duration {
  count: number;
  ns: number;
}

/** Timestamps (ns, process.hrtime.bigint converted to number) of one request's trip through a model. */
export interface RequestTimes {
  request_start_ns: number;
  queue_start_ns: number;
  compute_start_ns: number;
  compute_input_end_ns: number;
  compute_output_start_ns: number;
  compute_end_ns: number;
  request_end_ns: number;
}

/** The statistics JSON Triton returns for one model version (GET v2/models/M/stats). */
export interface ModelStatisticsJson {
  name: string;
  version: string;
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: Record<
    | 'success'
    | 'fail'
    | 'queue'
    | 'compute_input'
    | 'compute_infer'
    | 'compute_output'
    | 'cache_hit'
    | 'cache_miss',
    Duration
  >;
  response_stats: Record<string, never>;
  batch_stats: {
    batch_size: number;
    compute_input: Duration;
    compute_infer: Duration;
    compute_output: Duration;
  }[];
  memory_usage: never[];
}

const zero = (): Duration => ({ count: 0, ns: 0 });

/** Monotonic nanoseconds as a number (exact to 2^53 ns, about 104 days of uptime). */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/** Accumulates one model version's statistics; the scheduler and the infer path report into it. */
export class ModelStats {
  readonly name: string;
  readonly version: string;
  lastInference_ms = 0;
  inferenceCount = 0;
  executionCount = 0;
  readonly success = zero();
  readonly fail = zero();
  readonly queue = zero();
  readonly computeInput = zero();
  readonly computeInfer = zero();
  readonly computeOutput = zero();
  readonly #batches = new Map<number, { input: Duration; infer: Duration; output: Duration }>();

  constructor(name: string, version: string) {
    this.name = name;
    this.version = version;
  }

  /** One executed batch of `batchSize` inferences with its phase durations. */
  recordExecution(batchSize: number, input_ns: number, infer_ns: number, output_ns: number): void {
    this.executionCount += 1;
    let b = this.#batches.get(batchSize);
    if (!b) {
      b = { input: zero(), infer: zero(), output: zero() };
      this.#batches.set(batchSize, b);
    }
    b.input.count += 1;
    b.input.ns += input_ns;
    b.infer.count += 1;
    b.infer.ns += infer_ns;
    b.output.count += 1;
    b.output.ns += output_ns;
  }

  /** One successful request of `batchSize` inferences (Triton counts a batch-b request as b inferences). */
  recordSuccess(batchSize: number, t: RequestTimes): void {
    this.inferenceCount += batchSize;
    this.lastInference_ms = Date.now();
    add(this.success, t.request_end_ns - t.request_start_ns);
    add(this.queue, t.compute_start_ns - t.queue_start_ns);
    add(this.computeInput, t.compute_input_end_ns - t.compute_start_ns);
    add(this.computeInfer, t.compute_output_start_ns - t.compute_input_end_ns);
    add(this.computeOutput, t.compute_end_ns - t.compute_output_start_ns);
  }

  /** One failed request, from its start to now. */
  recordFailure(duration_ns: number): void {
    add(this.fail, duration_ns);
  }

  /** Triton's JSON form. */
  toJson(): ModelStatisticsJson {
    const copy = (d: Duration): Duration => ({ count: d.count, ns: Math.round(d.ns) });
    return {
      name: this.name,
      version: this.version,
      last_inference: this.lastInference_ms,
      inference_count: this.inferenceCount,
      execution_count: this.executionCount,
      inference_stats: {
        success: copy(this.success),
        fail: copy(this.fail),
        queue: copy(this.queue),
        compute_input: copy(this.computeInput),
        compute_infer: copy(this.computeInfer),
        compute_output: copy(this.computeOutput),
        cache_hit: zero(),
        cache_miss: zero(),
      },
      response_stats: {},
      batch_stats: [...this.#batches.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([size, b]) => ({
          batch_size: size,
          compute_input: copy(b.input),
          compute_infer: copy(b.infer),
          compute_output: copy(b.output),
        })),
      memory_usage: [],
    };
  }
}

function add(d: Duration, ns: number): void {
  d.count += 1;
  d.ns += Math.max(0, ns);
}
