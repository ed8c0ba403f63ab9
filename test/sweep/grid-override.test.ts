/** The sweep's pure parts: list flags, the grid, the config override and the pbtxt snippet. */
import { describe, expect, it } from 'vitest';
import { buildGrid, configLabel, parseList } from '../../measure/sweep/grid.ts';
import { appliedConfig, overrideMismatches, withOverride } from '../../measure/sweep/override.ts';
import { pbtxtSnippet } from '../../measure/sweep/pbtxt.ts';

const ORIGINAL = {
  name: 'onnx-mnist-cpu',
  max_batch_size: 0,
  instance_group: [{ name: 'onnx-mnist-cpu', count: 5, gpus: [], kind: 'KIND_CPU' }],
  dynamic_batching: { preferred_batch_size: [], max_queue_delay_microseconds: 150, preserve_ordering: false },
  parameters: { latency_profile: { string_value: 'mnist' } },
};

describe('parseList', () => {
  it('reads a list and drops duplicates', () => {
    expect(parseList('--instances', '1, 2,4,2')).toEqual([1, 2, 4]);
    expect(parseList('--max-queue-delay-us', '0,100', 0)).toEqual([0, 100]);
  });
  it.each(['', '1,,2', '0', '1.5', 'two'])(
    'rejects %j in one line naming the flag and an example',
    (text) => {
      expect(() => parseList('--instances', text)).toThrow(/^--instances .*e\.g\. --instances 1,2,4$/);
    },
  );
});

describe('buildGrid', () => {
  it('crosses every axis, instances slowest', () => {
    const grid = buildGrid({ instances: [1, 2], max_queue_delay_us: [0, 100, 500], preferred_batch: [4, 8] });
    expect(grid).toHaveLength(12);
    expect(grid[0]).toEqual({ instances: 1, max_queue_delay_us: 0, preferred_batch: 4 });
    expect(grid[11]).toEqual({ instances: 2, max_queue_delay_us: 500, preferred_batch: 8 });
    expect(configLabel(grid[11] ?? grid[0]!)).toBe('2 instances, delay 500 us, preferred 8');
  });
  it('leaves out preferred batches above the max batch size, and says so when none is left', () => {
    const grid = buildGrid({
      instances: [1],
      max_queue_delay_us: [0],
      preferred_batch: [4, 16],
      max_batch_size: [8],
    });
    expect(grid).toEqual([{ instances: 1, max_queue_delay_us: 0, preferred_batch: 4, max_batch_size: 8 }]);
    expect(() =>
      buildGrid({ instances: [1], max_queue_delay_us: [0], preferred_batch: [16], max_batch_size: [8] }),
    ).toThrow(/--preferred-batch .*--max-batch-size/);
  });
});

describe('withOverride', () => {
  it('changes only the swept fields and leaves the original untouched', () => {
    const before = structuredClone(ORIGINAL);
    const config = withOverride(ORIGINAL, {
      instances: 2,
      max_queue_delay_us: 500,
      preferred_batch: 4,
      max_batch_size: 8,
    });
    expect(ORIGINAL).toEqual(before);
    expect(config.instance_group).toEqual([{ name: 'onnx-mnist-cpu', count: 2, gpus: [], kind: 'KIND_CPU' }]);
    expect(config.dynamic_batching).toEqual({
      preferred_batch_size: [4],
      max_queue_delay_microseconds: 500,
      preserve_ordering: false,
    });
    expect(config.max_batch_size).toBe(8);
    expect(config.parameters).toEqual(ORIGINAL.parameters);
  });
  it('adds dynamic batching and one CPU group to a config that has neither', () => {
    const config = withOverride({ name: 'm', max_batch_size: 8 }, { instances: 3, max_queue_delay_us: 0 });
    expect(appliedConfig(config)).toEqual({
      instances: 3,
      kind: 'KIND_CPU',
      max_queue_delay_us: 0,
      preferred_batch_size: [],
      max_batch_size: 8,
    });
  });
});

describe('appliedConfig and overrideMismatches', () => {
  it('reads what the server holds and names what differs from the ask', () => {
    const held = appliedConfig({
      ...ORIGINAL,
      max_batch_size: '0',
      instance_group: [{ count: '2' }, { count: 1 }],
    });
    expect(held.instances).toBe(3);
    expect(held.max_batch_size).toBe(0);
    expect(overrideMismatches({ instances: 3, max_queue_delay_us: 150 }, held)).toEqual([]);
    expect(overrideMismatches({ instances: 2, max_queue_delay_us: 0, preferred_batch: 4 }, held)).toEqual([
      'instances 3, asked 2',
      'max_queue_delay_microseconds 150, asked 0',
      'preferred_batch_size [], asked [4]',
    ]);
  });
});

describe('pbtxtSnippet', () => {
  it('renders the swept fields in config.pbtxt syntax', () => {
    expect(
      pbtxtSnippet(
        { instances: 2, max_queue_delay_us: 150, preferred_batch: 8, max_batch_size: 16 },
        'KIND_GPU',
      ),
    ).toBe(
      [
        'max_batch_size: 16',
        'instance_group [',
        '  {',
        '    count: 2',
        '    kind: KIND_GPU',
        '  }',
        ']',
        'dynamic_batching {',
        '  preferred_batch_size: [ 8 ]',
        '  max_queue_delay_microseconds: 150',
        '}',
      ].join('\n'),
    );
    expect(pbtxtSnippet({ instances: 1, max_queue_delay_us: 0 })).not.toMatch(/max_batch_size|preferred/);
  });
});
