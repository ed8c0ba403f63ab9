/**
 * What a command sets up once before it measures: the server (the embedded one, or a tritonserver, unless
 * the run names its own TRITON_URL), the model's entry (a generic model's is read from the server), the
 * payload set and the scenario's bundle. bench measures once on it, capacity and sweep many times.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseHeaderLines } from '../../scenarios/kit/settings.ts';
import type { ModelEntry } from '../../models/types.ts';
import { payloadLoadOptions } from '../../scenarios/kit/samples.ts';
import { checkPayloadFile } from '../../payloads/check.ts';
import { ensurePayloads } from '../../payloads/index.ts';
import { fetchLiveEntry } from '../../payloads/live-fetch.ts';
import { bundleScenario } from './bundle.ts';
import type { Interruption } from './interrupt.ts';
import { type LocalServer, type ServedModel, startLocalServer } from './local-server.ts';
import { runEndpoints } from './endpoints.ts';
import type { Target } from './target.ts';
import { checkTrusted, runTls, runtimeTlsArgs, trustFile } from './tls.ts';
import { readOr } from '../../lib/settings/read.ts';
import { S } from '../../lib/settings/schema.ts';
import { tlsIdentity } from '@k6-triton/server';

/** How the server a command starts (when the run names no TRITON_URL) is set up, and what it is asked. */
export interface PrepareOptions {
  /** Embedded server: multiply simulated compute times. */
  timeScale?: number;
  /** A Triton-layout model repository for the started server. */
  modelRepository?: string;
  /** A tritonserver binary (TRITONSERVER) to start instead of the embedded server. */
  tritonserver?: string;
  /** Explicit model control with the model loaded, as the sweep's repository API calls need. @default false */
  explicitControl?: boolean;
  /** The other models of a mix, which a started tritonserver loads beside the first. */
  alsoServe?: readonly ServedModel[];
  /** Requests in a generated payload set. @default 8 */
  count?: number;
  /** The target's Prometheus endpoint, scraped per level; 'off' for none. @default the started server's */
  metricsUrl?: string;
}

/** A prepared target: where requests go, what they carry, the bundle that sends them. */
export interface Prepared {
  target: Target;
  /** The model's entry as the scenario sees it (a generic model's read from the server). */
  entry: ModelEntry;
  url: string;
  /** The gRPC address, when known (a started server's, TRITON_GRPC_URL, or Triton's 8001 beside TRITON_URL). */
  grpcUrl?: string;
  /** The payload manifest (PAYLOAD, or the generated set's). */
  payload: string;
  /** The scenario's k6 bundle. */
  script: string;
  /** The Prometheus endpoint to scrape during each measurement, if any. */
  metricsUrl?: string;
  /** What the runtime is given for TLS (k6 flags, SSL_CERT_FILE); undefined for a plaintext target. */
  tls?: { k6Args: string[]; env: Record<string, string> };
  /** The server the command started; undefined on a TRITON_URL. */
  server?: LocalServer;
  /** Stops the started server (nothing on a TRITON_URL). */
  stop(): Promise<void>;
}

/** Reads HEADERS_FILE once before anything starts; one line naming the file (never a value) when it is bad. */
function checkHeadersFile(path: string): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `HEADERS_FILE ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give a readable file of "Name: value" lines`,
    );
  }
  parseHeaderLines(text, path);
}

/** The payload manifest a target sends: PAYLOAD, or the generated set of its entry ('' for prompts). */
export async function payloadFor(
  target: Target,
  entry: ModelEntry,
  options: Pick<PrepareOptions, 'count'> = {},
): Promise<string> {
  const { settings } = target.run;
  if (target.settings.PAYLOAD) return resolve(target.settings.PAYLOAD);
  // Generative and sequence scenarios write their requests themselves: no payload set.
  if (entry.payload.kind === 'prompt' || entry.payload.kind === 'sequence') return '';
  const set = await ensurePayloads({
    model: entry,
    batch: settings.batch,
    // Empty for a generic model: its datatypes are the server's.
    ...(settings.precision ? { precision: settings.precision } : {}),
    ...(options.count ? { count: options.count } : {}),
  });
  return set.manifestPath;
}

/**
 * The payload manifest a target sends, made or found and then read as the scenario will read it (every file,
 * its size, the model's inputs): a bad set fails here with one line, before the runtime starts.
 */
export async function checkedPayload(
  target: Target,
  entry: ModelEntry,
  options: Pick<PrepareOptions, 'count'> = {},
): Promise<string> {
  const path = await payloadFor(target, entry, options);
  // Tensor payload sets only: a generative model's prompt workload and a sequence model's steps are read by
  // their own readers (payloads/prompt-workload.ts, lib/sequence/), which check them.
  const tensors = entry.payload.kind !== 'prompt' && entry.payload.kind !== 'sequence';
  if (path && tensors) {
    const what = target.settings.PAYLOAD ? 'PAYLOAD (--payload)' : 'payload set';
    checkPayloadFile(path, payloadLoadOptions(target.run.settings, entry), what);
  }
  return path;
}

/** Prepares `target`; the started server is stopped again when a later step fails. */
export async function prepare(
  target: Target,
  options: PrepareOptions = {},
  interruption?: Interruption,
): Promise<Prepared> {
  const { settings } = target.run;
  // Checked before anything starts, as the run plan is (which refused a gRPC address it cannot imply).
  runEndpoints(settings, undefined, options.metricsUrl);
  if (target.settings.HEADERS_FILE) checkHeadersFile(target.settings.HEADERS_FILE);
  // A catalog model's payloads are checked before any server starts; a generic model's inputs are the server's.
  const early =
    target.entry.id === 'generic' ? undefined : await checkedPayload(target, target.entry, options);
  const serveTls = readOr(target.settings, S.TLS, false);
  if (serveTls && target.settings.TRITON_URL) {
    throw new Error(
      `--tls (TLS=1) starts the embedded server with TLS; with TRITON_URL=${target.settings.TRITON_URL} give an https:// URL (and TRITON_GRPC_URL=grpcs://host:port) instead`,
    );
  }
  if (target.settings.TRITON_GRPC_URL && !target.settings.TRITON_URL) {
    // Else the embedded server would start and the gRPC address go unused: an option accepted and ignored.
    throw new Error(
      `--grpc-url (TRITON_GRPC_URL=${target.settings.TRITON_GRPC_URL}) needs the same server's --url (TRITON_URL=http://host:port) too; without one the run starts its own server`,
    );
  }
  const trust = runTls(target.settings);
  // The started server's own self-signed certificate is trusted unless the run skips verification or names a CA.
  const identity = serveTls ? await tlsIdentity() : undefined;
  const ownCert = identity && !trust.skipVerify && !trust.caFile ? trustFile(identity.cert) : undefined;
  if (ownCert) trust.caFile = ownCert.path;
  let server: LocalServer | undefined;
  if (!target.settings.TRITON_URL) {
    server = await startLocalServer(
      {
        ...(identity ? { tls: identity } : {}),
        modelId: target.entry.id,
        servedModel: settings.modelName,
        ...(target.settings.PRECISION ? { precision: settings.precision } : {}),
        modelRepository: options.modelRepository,
        timeScale: options.timeScale,
        tritonserver: options.tritonserver,
        ...(options.explicitControl ? { explicitControl: true } : {}),
        ...(options.alsoServe ? { alsoServe: options.alsoServe } : {}),
      },
      interruption,
    );
    console.log(server.description);
  }
  try {
    const endpoints = runEndpoints(
      settings,
      server && { ...server, label: server.kind === 'embedded' ? 'embedded server' : 'tritonserver' },
      options.metricsUrl,
    );
    console.log(
      endpoints.lines.map((line, i) => `${i === 0 ? 'endpoints:' : '          '} ${line}`).join('\n'),
    );
    const { url, grpcUrl, metricsUrl } = endpoints;
    const httpsUrl = url.startsWith('https://') ? new URL(url) : undefined;
    const grpcsUrl = grpcUrl?.startsWith('grpcs://') ? grpcUrl.slice('grpcs://'.length) : undefined;
    if (httpsUrl) await checkTrusted(`${httpsUrl.hostname}:${httpsUrl.port || 443}`, 'HTTPS', trust);
    if (grpcsUrl && settings.protocol === 'grpc') await checkTrusted(grpcsUrl, 'gRPC', trust);
    const tls = httpsUrl || grpcsUrl ? runtimeTlsArgs(trust) : undefined;
    const entry =
      target.entry.id === 'generic'
        ? // A generic model's entry is read from the server, as perf_analyzer does.
          {
            ...(await fetchLiveEntry(url, settings.modelName, settings.modelVersion || undefined)),
            id: 'generic',
          }
        : target.entry;
    const payload = early ?? (await checkedPayload(target, entry, options));
    const script = await bundleScenario(target.scenarioPath);
    return {
      target,
      entry,
      url,
      ...(grpcUrl ? { grpcUrl } : {}),
      payload,
      script,
      ...(metricsUrl ? { metricsUrl } : {}),
      ...(server ? { server } : {}),
      ...(tls ? { tls } : {}),
      stop: async () => {
        await server?.stop();
        ownCert?.remove();
      },
    };
  } catch (error) {
    await server?.stop();
    ownCert?.remove();
    throw error;
  }
}
