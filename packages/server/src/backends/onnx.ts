/**
 * Backend `onnx`: real CPU inference with onnxruntime-node on `<versionDir>/model.onnx`, one InferenceSession per
 * model instance. By default each instance's session lives on its own worker thread, so instance_group count N runs N
 * batches in parallel across cores as Triton's CPU instances do; `thread: 'main'` runs on the calling thread instead
 * (no copies, but every run blocks the event loop). onnxruntime-node is imported lazily so the server runs without it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { VersionLoadError } from '../errors.ts';
import { CODE_TEXT, onnxConfigMismatch, tensorInfoFromOrt } from '../onnx/config-check.ts';
import {
  configOutputShape,
  fromOrtValue,
  modelInputDims,
  type OrtValue,
  type OrtValueMetadata,
  toOrtValue,
} from './onnx-tensors.ts';
import type { Backend, BackendContext, BackendFactory, TensorData } from './types.ts';
import { type InlineLane, inlineLane } from './onnx-inline.ts';

/** Options of the onnx backend. */
export interface OnnxBackendOptions {
  /** Where each instance's session runs. @default 'worker' */
  thread?: 'worker' | 'main';
  /** onnxruntime intra-op threads per instance, unless the config's intra_op_thread_count parameter says. @default 1 */
  intraOpThreads?: number;
  /** Model file name inside the version directory. @default the config's default_model_filename, else 'model.onnx' */
  modelFile?: string;
}

/** Runs feeds through one session; implemented on a worker thread or in-process. */
interface SessionRunner {
  inputs: OrtValueMetadata[];
  outputs: OrtValueMetadata[];
  run(feeds: Record<string, OrtValue>, fetches: string[]): Promise<Record<string, OrtValue>>;
  release(): Promise<void>;
}

interface SessionSpec {
  /** file: URL of onnxruntime-node's entry point. */
  ortUrl: string;
  modelPath: string;
  sessionOptions: Record<string, unknown>;
}

const WORKER_URL = new URL('./onnx-worker.js', import.meta.url);

/** Resolves onnxruntime-node's entry point, or throws a one-line error saying how to get it. */
export function resolveOnnxRuntime(): string {
  try {
    return createRequire(import.meta.url).resolve('onnxruntime-node');
  } catch {
    throw new Error(
      'the onnx backend needs onnxruntime-node, which is not installed; run `npm ci` (or npm install)',
    );
  }
}

/** Makes an onnx BackendFactory with the given options. */
export function makeOnnxBackendFactory(options: OnnxBackendOptions = {}): BackendFactory {
  return async (ctx) => {
    // Triton's backend opens the config's default_model_filename (normalize.ts fills in model.onnx).
    const file = options.modelFile ?? (String(ctx.config.default_model_filename ?? '') || 'model.onnx');
    const modelPath = join(ctx.versionDir, file);
    if (!existsSync(modelPath)) {
      throw new Error(
        `model ${ctx.modelName} version ${ctx.version}: ${modelPath} not found; the onnx backend needs it`,
      );
    }
    const threads = (key: string, fallback: number) => {
      const value = ctx.config.parameters?.[key]?.string_value;
      const n = value === undefined ? fallback : Number(value);
      if (!Number.isInteger(n) || n < 0) {
        throw new Error(
          `model ${ctx.modelName}: parameter ${key} must be a non-negative integer, got ${value}`,
        );
      }
      return n;
    };
    let ortUrl: string;
    try {
      ortUrl = pathToFileURL(resolveOnnxRuntime()).href;
    } catch (error) {
      throw new Error(`model ${ctx.modelName}: ${(error as Error).message}`);
    }
    const spec: SessionSpec = {
      ortUrl,
      modelPath,
      sessionOptions: {
        // One thread per instance, as Triton's CPU instances: parallelism comes from instance_group count.
        intraOpNumThreads: threads('intra_op_thread_count', options.intraOpThreads ?? 1),
        interOpNumThreads: threads('inter_op_thread_count', 1),
        executionMode: 'sequential',
      },
    };
    const inWorker = (options.thread ?? 'worker') === 'worker';
    // Left to its default, a small model also runs in-process while no run of it is in flight (onnx-inline.ts).
    const lane =
      inWorker && options.thread === undefined ? inlineLane(modelPath, () => startMainRunner(spec)) : null;
    const runner = await (inWorker ? startWorkerRunner(spec) : startMainRunner(spec)).catch(
      async (error: unknown) => {
        await lane?.release();
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `model ${ctx.modelName} version ${ctx.version}: onnxruntime could not load ${modelPath}: ${reason}`,
        );
      },
    );
    // Triton's ONNX Runtime backend checks the config against the session as each instance loads.
    const mismatch = onnxConfigMismatch(ctx.config, {
      inputs: runner.inputs.map(tensorInfoFromOrt),
      outputs: runner.outputs.map(tensorInfoFromOrt),
    });
    if (mismatch) {
      await lane?.release();
      await runner.release();
      throw new VersionLoadError(ctx.version, `${CODE_TEXT[mismatch.code]}: ${mismatch.message}`);
    }
    await lane?.ready();
    return onnxBackend(ctx, runner, inWorker, lane);
  };
}

/** The onnx backend with default options (worker thread per instance, one intra-op thread). */
export const createOnnxBackend: BackendFactory = makeOnnxBackendFactory();

type Lane = InlineLane<Record<string, OrtValue>, Record<string, OrtValue>>;

function onnxBackend(
  ctx: BackendContext,
  runner: SessionRunner,
  onWorker: boolean,
  lane: Lane | null,
): Backend {
  return {
    async execute(inputs: TensorData[], outputNames: string[]): Promise<TensorData[]> {
      const inline = lane?.claim() === true;
      // A worker's feeds are copied so their buffers can move to its thread; in-process ones are read in place.
      const copyInputs = onWorker && !inline;
      const feeds: Record<string, OrtValue> = {};
      for (const input of inputs) {
        const declared = runner.inputs.find((meta) => meta.name === input.name);
        feeds[input.name] = toOrtValue(input, modelInputDims(input, ctx.config, declared), copyInputs);
      }
      const fetches = outputNames.length > 0 ? outputNames : runner.outputs.map((meta) => meta.name);
      const results = inline
        ? await lane!.run(feeds, fetches)
        : lane
          ? await lane.track(() => runner.run(feeds, fetches))
          : await runner.run(feeds, fetches);
      const batch = ctx.config.max_batch_size > 0 ? (inputs[0]?.shape[0] ?? 1) : 1;
      return fetches.map((name) => {
        const value = results[name];
        if (!value) throw new Error(`model ${ctx.modelName}: onnxruntime returned no output ${name}`);
        return fromOrtValue(name, value, configOutputShape(name, value.dims, ctx.config, batch));
      });
    },
    close: async () => {
      await lane?.release();
      await runner.release();
    },
  };
}

async function startMainRunner(spec: SessionSpec): Promise<SessionRunner> {
  const ort = (await import(spec.ortUrl)) as typeof import('onnxruntime-node');
  const session = await ort.InferenceSession.create(spec.modelPath, spec.sessionOptions);
  const meta = (
    list: readonly {
      name: string;
      isTensor: boolean;
      type?: string;
      shape?: readonly (number | string)[];
    }[] = [],
  ) =>
    list.map((m) => ({
      name: m.name,
      type: m.isTensor ? m.type : undefined,
      shape: m.isTensor && m.shape ? [...m.shape] : undefined,
    }));
  return {
    inputs: meta(session.inputMetadata),
    outputs: meta(session.outputMetadata),
    async run(feeds, fetches) {
      const tensors: Record<string, InstanceType<typeof ort.Tensor>> = {};
      for (const [name, feed] of Object.entries(feeds)) {
        tensors[name] = new ort.Tensor(feed.type as never, feed.data as never, feed.dims);
      }
      const results = await session.run(tensors, fetches);
      const out: Record<string, OrtValue> = {};
      for (const [name, tensor] of Object.entries(results)) {
        out[name] = {
          type: tensor.type,
          data: tensor.data as ArrayBufferView | string[],
          dims: [...tensor.dims],
        };
      }
      return out;
    },
    release: () => session.release(),
  };
}

interface WorkerReply {
  id?: number;
  ready?: boolean;
  error?: string;
  inputs?: OrtValueMetadata[];
  outputs?: OrtValueMetadata[] | Record<string, OrtValue>;
}

async function startWorkerRunner(spec: SessionSpec): Promise<SessionRunner> {
  const worker = new Worker(fileURLToPath(WORKER_URL), {
    workerData: spec,
    // The worker is plain JavaScript: no TypeScript loader needed, none inherited.
    execArgv: [],
  });
  const pending = new Map<
    number,
    { resolve: (v: Record<string, OrtValue>) => void; reject: (e: Error) => void }
  >();
  let nextId = 1;
  let failure: Error | undefined;
  const ready = new Promise<WorkerReply>((resolve, reject) => {
    worker.once('message', (reply: WorkerReply) =>
      reply.error ? reject(new Error(reply.error)) : resolve(reply),
    );
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`onnx worker thread exited with code ${code} while loading`)),
    );
  });
  const fail = (error: Error) => {
    failure = error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`onnx worker thread exited with code ${code}`)));
  const first = await ready.catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  worker.on('message', (reply: WorkerReply) => {
    const call = reply.id === undefined ? undefined : pending.get(reply.id);
    if (!call || reply.id === undefined) return;
    pending.delete(reply.id);
    if (reply.error) call.reject(new Error(reply.error));
    else call.resolve(reply.outputs as Record<string, OrtValue>);
  });
  return {
    inputs: first.inputs ?? [],
    outputs: (first.outputs as OrtValueMetadata[] | undefined) ?? [],
    run(feeds, fetches) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      // The feeds' buffers were copied for this call (toOrtValue with copy), so they can be moved, not cloned.
      const transfer = Object.values(feeds).flatMap((feed) =>
        ArrayBuffer.isView(feed.data) ? [feed.data.buffer as ArrayBuffer] : [],
      );
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, feeds, fetches }, transfer);
      });
    },
    async release() {
      worker.removeAllListeners('exit');
      fail(new Error('onnx backend instance is closed'));
      await worker.terminate();
    },
  };
}

/** The name packages/server/src/backends/registry.ts looks up; the same factory as createOnnxBackend. */
export const onnxFactory: BackendFactory = createOnnxBackend;
