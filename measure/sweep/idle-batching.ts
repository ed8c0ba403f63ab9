/**
 * Sweep settings the model's config makes meaningless: with max_batch_size 0 Triton cannot batch a model's
 * requests, so a queue delay or a preferred batch size changes nothing (real Triton 2.60.0 still loads such a
 * config). Pure: the grid and the served max_batch_size in, one warning line out.
 */
import type { SweepConfig } from './grid.ts';

/** The configs of `grid` that set batching (a queue delay above 0 or a preferred batch) on a model that cannot batch. */
export function idleBatching(grid: readonly SweepConfig[], servedMaxBatch: number): SweepConfig[] {
  return grid.filter(
    (c) =>
      (c.max_batch_size ?? servedMaxBatch) === 0 &&
      (c.max_queue_delay_us > 0 || c.preferred_batch !== undefined),
  );
}

/** One line saying which swept settings can do nothing on `model`; undefined when every one can. */
export function idleBatchingWarning(
  model: string,
  grid: readonly SweepConfig[],
  servedMaxBatch: number,
): string | undefined {
  const idle = idleBatching(grid, servedMaxBatch);
  if (idle.length === 0) return undefined;
  const delays = [...new Set(grid.map((c) => c.max_queue_delay_us))].join(', ');
  const preferred = idle.some((c) => c.preferred_batch !== undefined) ? ' and --preferred-batch' : '';
  return (
    `${model} has max_batch_size 0, so Triton cannot batch its requests: --max-queue-delay-us (${delays})${preferred} ` +
    `change nothing in ${idle.length} of ${grid.length} configurations; sweep --instances, or --max-batch-size above 0 if the model takes a batch dimension`
  );
}
