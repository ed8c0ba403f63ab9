/**
 * Scenario settings read from the environment (k6's __ENV), each with a default and a
 * one-line error naming the variable when invalid. Pure: no k6 imports, so vitest can test it.
 */
import type { ModelEntry } from '../../models/types.ts';
import { type Env, readOr } from '../../lib/settings/read.ts';
import {
  PROTOCOLS,
  type Protocol,
  S,
  STREAM_PROTOCOLS,
  type StreamProtocol,
  EMBEDDING_PROTOCOLS,
} from '../../lib/settings/schema.ts';
import { impliedEndpoints, notImplied, settingName } from './endpoints.ts';

export { PROTOCOLS, type Protocol, STREAM_PROTOCOLS, type StreamProtocol };

export interface Settings {
  /** HTTP base URL, without trailing slash. */
  url: string;
  /** gRPC address host:port: TRITON_GRPC_URL, else Triton's 8001 beside TRITON_URL on 8000; '' when unknown. */
  grpcUrl: string;
  /** gRPC over TLS: TRITON_GRPC_URL given as grpcs://host:port (or implied by an https:// TRITON_URL). */
  grpcTls: boolean;
  /** Whether grpcUrl came from TRITON_URL (Triton's ports) rather than TRITON_GRPC_URL. */
  grpcImplied: boolean;
  /** How the user named the endpoints (--url or TRITON_URL, ...), for hints. */
  names: { url: string; grpcUrl: string };
  protocol: Protocol;
  modelName: string;
  /** Empty string: the server picks the version. */
  modelVersion: string;
  batch: number;
  /** PRECISION name (FP32, FP16, ...); empty: the model's own datatypes. */
  precision: string;
  /** Payload manifest or perf_analyzer input-data file; empty: random tensors made in the script. */
  payload: string;
  /** Extra HTTP headers or gRPC metadata (HEADERS="k:v,k2:v2"). */
  headers: Record<string, string>;
  /** File of more headers, one "Name: value" a line (HEADERS_FILE), read in the init context; empty: none. */
  headersFile: string;
  /** Budget file (JSON); empty: the scenario's default. */
  thresholds: string;
}

/** Defaults: the embedded server's ports on this machine (gRPC and metrics are implied: endpoints.ts). */
export const DEFAULT_SETTINGS = {
  url: 'http://127.0.0.1:8000',
  protocol: 'http' as Protocol,
};

/** Parses HEADERS="Name:value,Other:value" (the seeds' -H flags) into a map. */
export function parseHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!raw) return headers;
  for (const part of raw.split(',')) {
    const at = part.indexOf(':');
    if (at <= 0) throw new Error(`invalid HEADERS entry "${part}"; expected Name:value[,Name:value]`);
    headers[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return headers;
}

/**
 * Parses a headers file: one "Name: value" a line (curl's -H form), blank lines and # comments skipped.
 * Errors name the file and line, never a value: these files hold secrets (bearer tokens).
 */
export function parseHeaderLines(text: string, file: string): Record<string, string> {
  const headers: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const at = trimmed.indexOf(':');
    if (at <= 0) throw new Error(`HEADERS_FILE ${file} line ${i + 1}: expected "Name: value"`);
    headers[trimmed.slice(0, at).trim()] = trimmed.slice(at + 1).trim();
  });
  return headers;
}

function normaliseUrl(raw: string, name: string): string {
  const url = raw.includes('://') ? raw : `http://${raw}`;
  if (!/^https?:\/\/[^/\s]+/.test(url))
    throw new Error(`invalid ${name} "${raw}"; expected http://host:port`);
  return url.replace(/\/+$/, '');
}

/** The gRPC address: TRITON_GRPC_URL, else the one TRITON_URL implies; a gRPC run must have one. */
function grpcAddress(
  env: Record<string, string | undefined>,
  url: string,
  protocol: Protocol,
): { raw: string; implied: boolean } {
  if (env.TRITON_GRPC_URL) return { raw: env.TRITON_GRPC_URL, implied: false };
  const implied = impliedEndpoints(url).grpc;
  if (implied) return { raw: implied, implied: true };
  if (protocol === 'grpc') throw new Error(notImplied('grpc', settingName(env, 'TRITON_URL'), url));
  return { raw: '', implied: true };
}

/**
 * What to fix when the server does not answer, as the user named it: the HTTP URL, or for gRPC its own
 * setting (or the URL it was implied from), e.g. "set TRITON_URL" or "check --url, or give --grpc-url".
 */
export function endpointHint(settings: Pick<Settings, 'protocol' | 'grpcImplied' | 'names'>): string {
  const fix = (name: string) => (name.startsWith('--') ? `check ${name}` : `set ${name}`);
  if (settings.protocol !== 'grpc') return fix(settings.names.url);
  if (!settings.grpcImplied) return fix(settings.names.grpcUrl);
  return `${fix(settings.names.url)} (the gRPC address is implied from it), or give --grpc-url (TRITON_GRPC_URL)`;
}

/** Reads every setting for a model from the environment. */
export function readSettings(env: Env, entry: ModelEntry): Settings {
  // A generative model streams, so it takes the stream protocols and defaults to gRPC.
  const streams = entry.scenario === 'llm';
  const allowed: readonly Protocol[] = streams ? [...STREAM_PROTOCOLS, ...EMBEDDING_PROTOCOLS] : PROTOCOLS;
  const protocol = (env.PROTOCOL || (streams ? 'grpc' : DEFAULT_SETTINGS.protocol)) as Protocol;
  if (!allowed.includes(protocol)) {
    throw new Error(
      `invalid PROTOCOL="${env.PROTOCOL}"${streams ? ` for ${entry.id}` : ''}; expected one of: ${allowed.join(', ')}`,
    );
  }
  const batch = readOr(env, S.BATCH, entry.defaultBatch);
  // An embeddings request's BATCH is its list of inputs, not the model's batch dimension.
  const embeddings = (EMBEDDING_PROTOCOLS as readonly Protocol[]).includes(protocol);
  if (entry.maxBatchSize === 0 && batch !== 1 && !embeddings) {
    throw new Error(
      `invalid BATCH=${batch} for ${entry.name}: the model has no batch dimension (max_batch_size 0)`,
    );
  }
  if (entry.maxBatchSize > 0 && batch > entry.maxBatchSize) {
    throw new Error(
      `invalid BATCH=${batch} for ${entry.name}; expected at most max_batch_size ${entry.maxBatchSize}`,
    );
  }
  const names = { url: settingName(env, 'TRITON_URL'), grpcUrl: settingName(env, 'TRITON_GRPC_URL') };
  const url = normaliseUrl(env.TRITON_URL || DEFAULT_SETTINGS.url, names.url);
  const grpc = grpcAddress(env, url, protocol);
  return {
    url,
    grpcUrl: grpc.raw.replace(/^grpcs?:\/\//, ''),
    grpcTls: /^grpcs:\/\//.test(grpc.raw),
    grpcImplied: grpc.implied,
    names,
    protocol,
    modelName: env.MODEL_NAME || entry.name,
    modelVersion: env.MODEL_VERSION || '',
    batch,
    // Empty for models read from a server: their datatypes are whatever the server declares.
    precision: (env.PRECISION || Object.keys(entry.precisions)[0] || '').toUpperCase(),
    payload: env.PAYLOAD || '',
    headers: parseHeaders(env.HEADERS),
    headersFile: env.HEADERS_FILE || '',
    thresholds: env.THRESHOLDS || '',
  };
}
