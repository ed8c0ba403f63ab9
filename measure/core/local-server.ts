/**
 * The server a run starts when it is given no TRITON_URL, chosen in one place for bench, capacity, sweep and
 * the fidelity benchmark: the embedded server, or a real tritonserver when TRITONSERVER (or --tritonserver)
 * names one. Real Triton runs in explicit model-control mode with only the run's models loaded (one, or every
 * model of a mix), on --model-repository or on the catalog exported into build/triton-repository/.
 */
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { exportCatalogRepository } from './catalog-repository.ts';
import { type EmbeddedServer, type ServingChoice, servingOptions, startEmbedded } from './embedded.ts';
import type { Interruption } from './interrupt.ts';
import { startTritonserver } from './tritonserver.ts';

/** What a run asks of the server it starts. */
export interface LocalServerChoice extends ServingChoice {
  /** The name the run's model is served under (loaded at start in explicit mode). */
  servedModel: string;
  /** A real tritonserver binary to start instead of the embedded server. */
  tritonserver?: string;
  /** Explicit model control with the model loaded, as the sweep's repository API calls need. @default false */
  explicitControl?: boolean;
  /** The other models of a mix, served beside the run's model (the embedded server serves them all anyway). */
  alsoServe?: readonly ServedModel[];
}

/** A catalog model a started server must serve, and the name it is served under. */
export interface ServedModel {
  modelId: string;
  servedModel: string;
}

/** A started server and the line that says what it is. */
export interface LocalServer extends EmbeddedServer {
  kind: 'embedded' | 'tritonserver';
  /** e.g. "tritonserver on http://127.0.0.1:4100 (gRPC 127.0.0.1:4101), repository build/triton-repository" */
  description: string;
}

/** The one-line reason a tritonserver could not start, naming TRITONSERVER and its most telling log line. */
export function tritonserverFailure(binary: string, error: Error): string {
  const [first = '', ...log] = error.message.split('\n');
  // Triton's error lines start E<mmdd>; the last one usually says why (a model that failed to load).
  const telling = [...log].reverse().find((line) => /^E\d{4} /.test(line)) ?? log[log.length - 1];
  const head = first.replace(/^tritonserver:? ?/, '').replace(/:$/, '');
  const reason = telling ? `${head}: ${telling.trim()}` : head;
  return `TRITONSERVER=${binary}: ${reason}; set TRITONSERVER to a working tritonserver binary, or unset it for the embedded server`;
}

/** Checks the binary before anything starts; throws one line naming TRITONSERVER. */
function checkBinary(binary: string): void {
  try {
    accessSync(binary, constants.X_OK);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not executable';
    throw new Error(
      `TRITONSERVER=${binary}: ${why}; set TRITONSERVER to the tritonserver binary, or unset it for the embedded server`,
    );
  }
}

/** Starts the run's server: real Triton when `choice.tritonserver` is set, else the embedded server. */
export async function startLocalServer(
  choice: LocalServerChoice,
  interruption?: Interruption,
): Promise<LocalServer> {
  const loaded = choice.explicitControl ? `, explicit model control, ${choice.servedModel} loaded` : '';
  if (!choice.tritonserver) {
    const options = servingOptions(choice);
    const server = await startEmbedded(
      choice.explicitControl
        ? { modelControlMode: 'explicit', loadModels: [choice.servedModel], ...options }
        : options,
      interruption,
    );
    return {
      ...server,
      kind: 'embedded',
      description: `embedded server on ${server.url} (gRPC ${server.grpcUrl}${loaded})`,
    };
  }
  const binary = choice.tritonserver;
  if (choice.tls)
    throw new Error(
      `--tls (TLS) starts the embedded server with TLS; drop it or unset TRITONSERVER=${binary}`,
    );
  if (choice.timeScale !== undefined)
    throw new Error(
      `--time-scale applies to the embedded server only; drop it or unset TRITONSERVER=${binary}`,
    );
  checkBinary(binary);
  const others = choice.alsoServe ?? [];
  const served = others.length
    ? `, serving ${[choice.servedModel, ...others.map((m) => m.servedModel)].join(', ')}`
    : '';
  let repository = choice.modelRepository ? resolve(choice.modelRepository) : undefined;
  if (!repository) {
    repository = await exportCatalogRepository({
      modelId: choice.modelId,
      ...(choice.precision ? { precision: choice.precision } : {}),
    });
    for (const other of others) await exportCatalogRepository({ modelId: other.modelId });
  }
  try {
    // Only the run's models are loaded: a repository may hold models this machine cannot load, or slowly.
    const server = await startTritonserver(
      {
        binary,
        repository,
        modelControl: 'explicit',
        loadModels: [choice.servedModel, ...others.map((m) => m.servedModel)],
      },
      interruption,
    );
    return {
      ...server,
      kind: 'tritonserver',
      description: `tritonserver on ${server.url} (gRPC ${server.grpcUrl}, repository ${repository}${loaded}${served})`,
    };
  } catch (error) {
    throw new Error(tritonserverFailure(binary, error as Error));
  }
}
