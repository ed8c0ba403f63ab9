/** Sweep settings a model that cannot batch (max_batch_size 0) makes meaningless: warned about in one line. */
import { describe, expect, it } from 'vitest';
import { buildGrid } from '../../measure/sweep/grid.ts';
import { idleBatching, idleBatchingWarning } from '../../measure/sweep/idle-batching.ts';

describe('sweep: batching settings on a model that cannot batch', () => {
  it('warns when a queue delay is swept on max_batch_size 0, in one line', () => {
    const grid = buildGrid({ instances: [1, 2, 4], max_queue_delay_us: [0, 150] });
    expect(idleBatching(grid, 0)).toHaveLength(3);
    const line = idleBatchingWarning('onnx-mnist-cpu', grid, 0);
    expect(line).toBe(
      'onnx-mnist-cpu has max_batch_size 0, so Triton cannot batch its requests: --max-queue-delay-us (0, 150) change nothing in 3 of 6 configurations; sweep --instances, or --max-batch-size above 0 if the model takes a batch dimension',
    );
    expect(line).not.toContain('\n');
  });

  it('says nothing for a model that batches, or when the sweep gives it a max_batch_size', () => {
    const grid = buildGrid({ instances: [1], max_queue_delay_us: [0, 150], preferred_batch: [4] });
    expect(idleBatchingWarning('dlrm', grid, 64)).toBeUndefined();
    const batched = buildGrid({ instances: [1], max_queue_delay_us: [150], max_batch_size: [8] });
    expect(idleBatchingWarning('onnx-mnist-cpu', batched, 0)).toBeUndefined();
    // Instances alone on a model that cannot batch: nothing meaningless was asked.
    expect(
      idleBatchingWarning('onnx-mnist-cpu', buildGrid({ instances: [1, 2], max_queue_delay_us: [0] }), 0),
    ).toBeUndefined();
  });

  it('names a preferred batch too', () => {
    const grid = buildGrid({ instances: [1], max_queue_delay_us: [0], preferred_batch: [2] });
    expect(idleBatchingWarning('m', grid, 0)).toMatch(
      /--max-queue-delay-us \(0\) and --preferred-batch change nothing in 1 of 1/,
    );
  });
});
