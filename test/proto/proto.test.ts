import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';

const PROTO_DIR = fileURLToPath(new URL('../../proto', import.meta.url));

/** Options the embedded server and the runtime use; k6 maps the same files with its own loader. */
const LOADER_OPTIONS: protoLoader.Options = {
  includeDirs: [PROTO_DIR],
  keepCase: true,
  longs: String,
  enums: String,
  defaults: false,
  oneofs: true,
};

interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
}

interface MessageDescriptor {
  name: string;
  field: FieldDescriptor[];
  nestedType: MessageDescriptor[];
}

/** Finds a message by full name; proto-loader lists only top-level messages, nested ones hang off nestedType. */
function descriptorOf(definition: protoLoader.PackageDefinition, message: string): MessageDescriptor {
  const parts = message.split('.');
  for (let split = parts.length; split > 0; split--) {
    const entry = definition[parts.slice(0, split).join('.')] as { type?: MessageDescriptor } | undefined;
    if (!entry?.type) continue;
    let descriptor: MessageDescriptor | undefined = entry.type;
    for (const nested of parts.slice(split)) {
      descriptor = descriptor?.nestedType.find((candidate) => candidate.name === nested);
    }
    if (descriptor) return descriptor;
  }
  throw new Error(`message ${message} not found in the loaded protos`);
}

function fieldsOf(definition: protoLoader.PackageDefinition, message: string): Map<string, FieldDescriptor> {
  return new Map(descriptorOf(definition, message).field.map((field) => [field.name, field]));
}

function numberOf(definition: protoLoader.PackageDefinition, message: string, field: string): number {
  const found = fieldsOf(definition, message).get(field);
  if (!found) throw new Error(`field ${message}.${field} not found`);
  return found.number;
}

describe('proto/grpc_service.proto', () => {
  const definition = protoLoader.loadSync('grpc_service.proto', LOADER_OPTIONS);

  it('declares inference.GRPCInferenceService with Triton method names and streaming flags', () => {
    const service = definition['inference.GRPCInferenceService'] as Record<
      string,
      { path: string; requestStream: boolean; responseStream: boolean }
    >;
    expect(service.ModelInfer!.path).toBe('/inference.GRPCInferenceService/ModelInfer');
    expect(service.ModelStreamInfer!.requestStream).toBe(true);
    expect(service.ModelStreamInfer!.responseStream).toBe(true);
    expect(service.ModelInfer!.requestStream).toBe(false);
    for (const method of [
      'ServerLive',
      'ServerReady',
      'ModelReady',
      'ServerMetadata',
      'ModelMetadata',
      'ModelConfig',
      'ModelStatistics',
      'RepositoryIndex',
      'RepositoryModelLoad',
      'RepositoryModelUnload',
    ]) {
      expect(service[method]?.path).toBe(`/inference.GRPCInferenceService/${method}`);
    }
  });

  it('uses Triton field numbers for the inference messages', () => {
    expect(numberOf(definition, 'inference.ModelInferRequest', 'model_name')).toBe(1);
    expect(numberOf(definition, 'inference.ModelInferRequest', 'inputs')).toBe(5);
    expect(numberOf(definition, 'inference.ModelInferRequest', 'outputs')).toBe(6);
    expect(numberOf(definition, 'inference.ModelInferRequest', 'raw_input_contents')).toBe(7);
    expect(numberOf(definition, 'inference.ModelInferResponse', 'raw_output_contents')).toBe(6);
    expect(numberOf(definition, 'inference.ModelInferRequest.InferInputTensor', 'contents')).toBe(5);
    expect(numberOf(definition, 'inference.ModelInferRequest.InferRequestedOutputTensor', 'parameters')).toBe(
      2,
    );
    expect(numberOf(definition, 'inference.InferParameter', 'uint64_param')).toBe(5);
    expect(numberOf(definition, 'inference.InferTensorContents', 'bytes_contents')).toBe(8);
    expect(numberOf(definition, 'inference.ModelStreamInferResponse', 'infer_response')).toBe(2);
  });

  it('uses Triton field numbers for statistics and repository messages', () => {
    expect(numberOf(definition, 'inference.StatisticDuration', 'ns')).toBe(2);
    expect(numberOf(definition, 'inference.InferStatistics', 'compute_output')).toBe(6);
    expect(numberOf(definition, 'inference.InferStatistics', 'cache_miss')).toBe(8);
    expect(numberOf(definition, 'inference.ModelStatistics', 'batch_stats')).toBe(7);
    expect(numberOf(definition, 'inference.ModelStatistics', 'response_stats')).toBe(9);
    expect(numberOf(definition, 'inference.InferBatchStatistics', 'batch_size')).toBe(1);
    expect(numberOf(definition, 'inference.RepositoryModelLoadRequest', 'parameters')).toBe(3);
    expect(numberOf(definition, 'inference.ModelRepositoryParameter', 'bytes_param')).toBe(4);
  });

  it('puts raw_input_contents on the wire as field 7, length-delimited (tag 0x3a)', () => {
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      inference: { GRPCInferenceService: grpc.ServiceClientConstructor };
    };
    const method = loaded.inference.GRPCInferenceService.service.ModelInfer!;
    const wire = method.requestSerialize({ raw_input_contents: [Buffer.from([1, 2, 3])] });
    expect([...wire]).toEqual([0x3a, 0x03, 1, 2, 3]);
  });

  it('marks raw_input_contents as repeated bytes', () => {
    const field = fieldsOf(definition, 'inference.ModelInferRequest').get('raw_input_contents')!;
    expect(field.label).toBe('LABEL_REPEATED');
    expect(field.type).toBe('TYPE_BYTES');
  });
});

describe('proto/model_config.proto', () => {
  const definition = protoLoader.loadSync('model_config.proto', LOADER_OPTIONS);

  it('uses Triton field numbers for ModelConfig', () => {
    const expected: Record<string, number> = {
      name: 1,
      platform: 2,
      version_policy: 3,
      max_batch_size: 4,
      input: 5,
      output: 6,
      instance_group: 7,
      dynamic_batching: 11,
      parameters: 14,
      backend: 17,
      response_cache: 24,
    };
    for (const [field, number] of Object.entries(expected)) {
      expect(numberOf(definition, 'inference.ModelConfig', field), field).toBe(number);
    }
    expect(numberOf(definition, 'inference.ModelInput', 'dims')).toBe(4);
    expect(numberOf(definition, 'inference.ModelOutput', 'dims')).toBe(3);
    expect(numberOf(definition, 'inference.ModelInstanceGroup', 'kind')).toBe(4);
    expect(numberOf(definition, 'inference.ModelDynamicBatching', 'max_queue_delay_microseconds')).toBe(2);
  });

  it('numbers DataType as Triton does (TYPE_STRING 13, TYPE_BF16 14)', () => {
    const entry = definition['inference.DataType'] as { type: { value: { name: string; number: number }[] } };
    const values = new Map(entry.type.value.map((value) => [value.name, value.number]));
    expect(values.get('TYPE_FP16')).toBe(10);
    expect(values.get('TYPE_STRING')).toBe(13);
    expect(values.get('TYPE_BF16')).toBe(14);
  });
});

describe('proto/health.proto', () => {
  it('declares the standard grpc.health.v1.Health service', () => {
    const definition = protoLoader.loadSync('health.proto', LOADER_OPTIONS);
    const service = definition['grpc.health.v1.Health'] as Record<string, { path: string }>;
    expect(service.Check!.path).toBe('/grpc.health.v1.Health/Check');
    expect(numberOf(definition, 'grpc.health.v1.HealthCheckResponse', 'status')).toBe(1);
  });
});
