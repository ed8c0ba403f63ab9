/**
 * The built-in repository the tool hands to the embedded server when no --model-repository is given: one model
 * per catalog entry, the sequence models, then the generative ones, all in memory; mnist runs on onnxruntime with
 * the shipped weights when onnxruntime-node loads. The catalog's latency profiles go along for every repository,
 * so a config may name one in its latency_profile parameter.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  type ModelDefinition,
  onnxRuntimeAvailable,
  type RunningServer,
  type ServerOptions,
  startServer,
} from '@k6-triton/server';
import { MNIST_MODEL_FILE } from '../../models/mnist/export-onnx.ts';
import {
  catalogEntries,
  catalogLatencyProfiles,
  configFromCatalog,
  sequenceEntries,
} from './catalog-config.ts';
import { configFromGenerative, generativeEntries } from './generative-config.ts';

/** The catalog's models, each at its PRECISION (per catalog id, e.g. { 'resnext101-32x4d': 'FP16' }). */
export async function builtInModels(
  precisions: Readonly<Record<string, string>> = {},
): Promise<ModelDefinition[]> {
  const onnx = existsSync(MNIST_MODEL_FILE) && (await onnxRuntimeAvailable());
  return [
    ...catalogEntries().map((entry) =>
      entry.id === 'mnist' && onnx
        ? {
            config: configFromCatalog(entry, 'onnxruntime', precisions[entry.id]),
            dir: path.dirname(MNIST_MODEL_FILE),
          }
        : { config: configFromCatalog(entry, 'simulated', precisions[entry.id]) },
    ),
    ...sequenceEntries().map((entry) => ({ config: configFromCatalog(entry, 'simulated') })),
    ...generativeEntries().map((entry) => ({ config: configFromGenerative(entry) })),
  ];
}

/**
 * `options` with what the catalog gives the server: its latency profiles, and its models when no
 * modelRepository is named.
 */
export async function withCatalog(
  options: ServerOptions,
  precisions: Readonly<Record<string, string>> = {},
): Promise<ServerOptions> {
  return {
    ...options,
    latencyProfiles: { ...catalogLatencyProfiles(), ...options.latencyProfiles },
    ...(options.modelRepository || options.models ? {} : { models: await builtInModels(precisions) }),
  };
}

/** Starts the embedded server with what the catalog gives it (withCatalog): the tool's and the tests' way in. */
export async function startCatalogServer(
  options: ServerOptions = {},
  precisions: Readonly<Record<string, string>> = {},
): Promise<RunningServer> {
  return startServer(await withCatalog(options, precisions));
}
