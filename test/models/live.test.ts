import { describe, expect, it } from 'vitest';
import { inputsFor } from '../../models/index.ts';
import { liveModelEntry } from '../../models/live.ts';

/** GET /v2/models/densenet_onnx and /config, as Triton answers them. */
const METADATA = {
  name: 'densenet_onnx',
  versions: ['1'],
  platform: 'onnxruntime_onnx',
  inputs: [{ name: 'data_0', datatype: 'FP32', shape: [-1, 3, 224, 224] }],
  outputs: [{ name: 'fc6_1', datatype: 'FP32', shape: [-1, 1000, 1, 1] }],
};
const CONFIG = {
  name: 'densenet_onnx',
  platform: 'onnxruntime_onnx',
  backend: 'onnxruntime',
  max_batch_size: 8,
  input: [{ name: 'data_0', data_type: 'TYPE_FP32', dims: [3, 224, 224] }],
  output: [{ name: 'fc6_1', data_type: 'TYPE_FP32', dims: [1000, 1, 1] }],
  instance_group: [{ count: 2, kind: 'KIND_CPU' }],
  dynamic_batching: {
    preferred_batch_size: [4, 8],
    max_queue_delay_microseconds: 100,
    default_queue_policy: { max_queue_size: 16 },
  },
};

describe('catalog entry from a live server', () => {
  it('takes names and datatypes from metadata and dims (batch excluded) from the config', () => {
    const entry = liveModelEntry(METADATA, CONFIG);
    expect(entry).toMatchObject({
      id: 'densenet_onnx',
      name: 'densenet_onnx',
      platform: 'onnxruntime_onnx',
      maxBatchSize: 8,
      inputs: [{ name: 'data_0', datatype: 'FP32', dims: [3, 224, 224] }],
      outputs: [{ name: 'fc6_1', datatype: 'FP32', dims: [1000, 1, 1] }],
      defaultBatch: 1,
      payload: { kind: 'random' },
      deployment: {
        instanceCount: 2,
        dynamicBatching: { preferredBatchSize: [4, 8], maxQueueDelayMicroseconds: 100, maxQueueSize: 16 },
      },
    });
    expect(inputsFor(entry, 'FP32')).toEqual(entry.inputs);
  });

  it('reads the gRPC form (camelCase, int64 as strings, config wrapped) to the same entry', () => {
    const grpcMeta = {
      ...METADATA,
      inputs: [{ name: 'data_0', datatype: 'FP32', shape: ['-1', '3', '224', '224'] }],
      outputs: [{ name: 'fc6_1', datatype: 'FP32', shape: ['-1', '1000', '1', '1'] }],
    };
    const grpcConfig = {
      config: {
        name: 'densenet_onnx',
        platform: 'onnxruntime_onnx',
        maxBatchSize: 8,
        input: [{ name: 'data_0', dataType: 'TYPE_FP32', dims: ['3', '224', '224'] }],
        output: [{ name: 'fc6_1', dataType: 'TYPE_FP32', dims: ['1000', '1', '1'] }],
        instanceGroup: [{ count: 2 }],
        dynamicBatching: {
          preferredBatchSize: [4, 8],
          maxQueueDelayMicroseconds: '100',
          defaultQueuePolicy: { maxQueueSize: '16' },
        },
      },
    };
    expect(liveModelEntry(grpcMeta, grpcConfig)).toEqual(liveModelEntry(METADATA, CONFIG));
  });

  it('uses the metadata shape when there is no config, dropping the batch dim only when batching', () => {
    const meta = { name: 'm', inputs: [{ name: 'X', datatype: 'INT64', shape: [-1, 4] }], outputs: [] };
    expect(liveModelEntry(meta).inputs).toEqual([{ name: 'X', datatype: 'INT64', dims: [-1, 4] }]);
    expect(liveModelEntry(meta, { max_batch_size: 16 }).inputs).toEqual([
      { name: 'X', datatype: 'INT64', dims: [4] },
    ]);
  });

  it("maps the config's TYPE_STRING to BYTES when metadata gives no datatype", () => {
    const entry = liveModelEntry(
      { name: 'm', inputs: [{ name: 'T', datatype: '', shape: [4] }], outputs: [] },
      { input: [{ name: 'T', data_type: 'TYPE_STRING', dims: [4] }] },
    );
    expect(entry.maxBatchSize).toBe(0);
    expect(entry.inputs).toEqual([{ name: 'T', datatype: 'BYTES', dims: [4] }]);
  });

  it('names the model or tensor on bad documents', () => {
    expect(() => liveModelEntry({ name: 'm', inputs: [], outputs: [] })).toThrow(
      'model m: metadata lists no inputs',
    );
    expect(() =>
      liveModelEntry({ name: 'm', inputs: [{ name: 'X', datatype: 'FLOAT', shape: [1] }], outputs: [] }),
    ).toThrow('tensor X has datatype "FLOAT", which is not a Triton datatype');
  });
});
