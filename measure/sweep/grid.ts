/**
 * The sweep's grid: server configurations from list flags (--instances 1,2,4 --max-queue-delay-us 0,100),
 * every combination once, in flag order so the table reads like the command line.
 */

/** One server configuration the sweep applies; absent fields keep the model's own value. */
export interface SweepConfig {
  instances: number;
  max_queue_delay_us: number;
  preferred_batch?: number;
  max_batch_size?: number;
}

/** The grid's axes as parsed from the flags. */
export interface GridAxes {
  instances: number[];
  max_queue_delay_us: number[];
  preferred_batch?: number[];
  max_batch_size?: number[];
}

/**
 * Parses a list flag ("1,2,4") into whole numbers of at least `min`; throws one line naming the flag.
 * Duplicates are dropped: measuring one config twice only costs time.
 */
export function parseList(flag: string, text: string, min = 1): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const values = parts.map(Number);
  if (parts.some((p) => p === '') || values.some((v) => !Number.isInteger(v) || v < min))
    throw new Error(
      `${flag} ${JSON.stringify(text)}: expected a comma-separated list of whole numbers >= ${min}, e.g. ${flag} ${min === 0 ? '0,100,500' : '1,2,4'}`,
    );
  return [...new Set(values)];
}

/** Every combination of the axes, instances varying slowest. */
export function buildGrid(axes: GridAxes): SweepConfig[] {
  const out: SweepConfig[] = [];
  // One undefined value stands for "not swept" so the loops stay uniform.
  const preferred = axes.preferred_batch ?? [undefined];
  const maxBatch = axes.max_batch_size ?? [undefined];
  for (const instances of axes.instances)
    for (const max_queue_delay_us of axes.max_queue_delay_us)
      for (const preferred_batch of preferred)
        for (const max_batch_size of maxBatch) {
          // A preferred batch above the largest allowed batch is a config Triton refuses to load.
          if (
            preferred_batch !== undefined &&
            max_batch_size !== undefined &&
            preferred_batch > max_batch_size
          )
            continue;
          out.push({
            instances,
            max_queue_delay_us,
            ...(preferred_batch !== undefined ? { preferred_batch } : {}),
            ...(max_batch_size !== undefined ? { max_batch_size } : {}),
          });
        }
  if (out.length === 0)
    throw new Error(
      '--preferred-batch is above every --max-batch-size: no configuration to measure; lower --preferred-batch or raise --max-batch-size',
    );
  return out;
}

/** A config in a few words, e.g. "2 instances, delay 100 us, preferred 8". */
export function configLabel(c: SweepConfig): string {
  const parts = [
    `${c.instances} instance${c.instances === 1 ? '' : 's'}`,
    `delay ${c.max_queue_delay_us} us`,
  ];
  if (c.preferred_batch !== undefined) parts.push(`preferred ${c.preferred_batch}`);
  if (c.max_batch_size !== undefined) parts.push(`max batch ${c.max_batch_size}`);
  return parts.join(', ');
}
