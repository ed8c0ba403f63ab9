/**
 * The identity backend, as Triton's (backend: "identity"): each requested output is a copy of the input at the
 * same position in the config (OUTPUT0 of INPUT0), so a client can check what it sent came back. Its
 * correlation-id reading (uint64 only) is modelled by the sequence batcher (sequence-batcher.ts, uint64Only).
 */
import { fromConfigDatatype } from '@k6-triton/lib/tensor/datatypes.ts';
import type { Backend, BackendFactory, TensorData } from './types.ts';

/** Creates identity instances; a config with more outputs than inputs cannot load. */
export const identityFactory: BackendFactory = async (ctx) => {
  const { input, output } = ctx.config;
  if (output.length > input.length) {
    throw new Error(
      `model '${ctx.modelName}' has ${output.length} outputs but ${input.length} inputs; the identity backend copies input i to output i`,
    );
  }
  const sourceOf = new Map(output.map((o, i) => [o.name, input[i]!.name]));
  const datatypeOf = new Map(output.map((o) => [o.name, fromConfigDatatype(o.data_type)]));
  const backend: Backend = {
    async execute(inputs: TensorData[], outputNames: string[]): Promise<TensorData[]> {
      const byName = new Map(inputs.map((t) => [t.name, t]));
      return outputNames.map((name) => {
        const source = byName.get(sourceOf.get(name) ?? '');
        if (!source) throw new Error(`identity backend has no input for output '${name}'`);
        return { ...source, name, datatype: datatypeOf.get(name) ?? source.datatype };
      });
    },
    async close(): Promise<void> {},
  };
  return backend;
};
