/**
 * Backend registry: config `backend` (or `platform`) → factory. The onnxruntime backend is imported lazily so
 * the server runs without onnxruntime-node installed; its models then fail to load with a readable error.
 */
import type { ModelConfigJson } from '../config/types.ts';
import { identityFactory } from './identity.ts';
import type { LatencyProfiles } from './profiles.ts';
import { type SimulatedOptions, simulatedFactory } from './simulated.ts';
import { repeatFactory } from './repeat.ts';
import { simulatedLlmFactory } from './simulated-llm.ts';
import type { BackendFactory } from './types.ts';

/** Which factory serves a config. */
export function backendName(config: ModelConfigJson): string {
  if (config.backend) return config.backend;
  if (config.platform === 'onnxruntime_onnx') return 'onnxruntime';
  return config.platform;
}

/** Resolves backends by name; `simulated`, `simulated_llm`, `repeat`, `identity` and `onnxruntime` are built in. */
export class BackendRegistry {
  readonly #factories = new Map<string, () => Promise<BackendFactory>>();

  constructor(simulated: SimulatedOptions = {}, latencyProfiles: LatencyProfiles = {}) {
    const sim = simulatedFactory(simulated, latencyProfiles);
    this.#factories.set('simulated', async () => sim);
    this.#factories.set('simulated_llm', async () => simulatedLlmFactory);
    this.#factories.set('repeat', async () => repeatFactory);
    this.#factories.set('identity', async () => identityFactory);
    this.#factories.set('onnxruntime', async () => {
      // Imported when a model needs it: onnx.ts loads onnxruntime-node, which a server without ONNX models never
      // touches (a bundle makes it a chunk of its own).
      const mod = (await import('./onnx.ts')) as { onnxFactory?: BackendFactory; default?: BackendFactory };
      const factory = mod.onnxFactory ?? mod.default;
      if (!factory) throw new Error('packages/server/src/backends/onnx.ts exports no onnxFactory');
      return factory;
    });
  }

  /** Adds or replaces a backend (tests and embedders). */
  register(name: string, factory: BackendFactory): void {
    this.#factories.set(name, async () => factory);
  }

  /** The factory for a config; throws naming the known backends. */
  async factoryFor(config: ModelConfigJson): Promise<BackendFactory> {
    const name = backendName(config);
    const get = this.#factories.get(name);
    if (!get) {
      // Triton's words, then what the embedded server has instead.
      throw new Error(
        `unable to find backend library for backend '${name}', try specifying runtime on the model configuration. ` +
          `(the embedded server has ${[...this.#factories.keys()].join(', ')})`,
      );
    }
    return get();
  }
}
