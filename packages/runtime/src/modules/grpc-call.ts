/** Shared parts of gRPC unary calls and streams: call params, metadata, tags and samples, as k6 has them. */
import type { IncomingHttpHeaders } from 'node:http2';
import { Metadata } from '@grpc/grpc-js';
import type { Sample, Tags, VuState } from '../vu-context.ts';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import type { MethodDef } from './grpc-protos.ts';

/** k6's default deadline of a unary call (client.invoke): 2 minutes. */
export const DEFAULT_INVOKE_TIMEOUT_MS = 120_000;

/** Call params after validation (k6's callParams). */
export interface CallParams {
  metadata: Metadata;
  tags: Tags;
  /** 0: no deadline. */
  timeout_ms: number;
  discardResponseMessage: boolean;
}

/** Builds grpc-js Metadata from k6's metadata param: string values, binary values for "-bin" keys. */
export function toMetadata(input: unknown, what: string): Metadata {
  const md = new Metadata();
  if (input === null || input === undefined) return md;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new Error(`invalid ${what} param: must be an object with key-value pairs`);
  }
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    if (k.endsWith('-bin')) {
      if (v instanceof ArrayBuffer) md.add(k, Buffer.from(v));
      else if (ArrayBuffer.isView(v)) md.add(k, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      else throw new Error(`invalid ${what} param: "${k}" value must be binary`);
    } else if (typeof v === 'string') {
      md.add(k, v);
    } else {
      throw new Error(`invalid ${what} param: "${k}" value must be a string`);
    }
  }
  return md;
}

/** grpc-js Metadata to k6's headers/trailers object: key -> list of values. */
export function fromMetadata(md: Metadata | null | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!md) return out;
  for (const [k, values] of Object.entries(md.toJSON())) {
    out[k] = (values as Array<string | Buffer>).map((v) =>
      typeof v === 'string' ? v : v.toString('latin1'),
    );
  }
  return out;
}

/**
 * node:http2 headers as k6's headers/trailers object, read as grpc-js reads them (Metadata.fromHttp2Headers,
 * then fromMetadata) without building Metadata: pseudo-headers dropped, "-bin" values base64-decoded to
 * latin1 strings, a custom "-bin" header's comma-joined values split.
 */
export function metadataRecord(headers: IncomingHttpHeaders | null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!headers) return out;
  for (const key of Object.keys(headers)) {
    const value = headers[key];
    if (key.charCodeAt(0) === 0x3a || value === undefined) continue;
    if (!key.endsWith('-bin')) {
      out[key] = Array.isArray(value) ? value : [value];
      continue;
    }
    const list = Array.isArray(value) ? value : key.startsWith('grpc-') ? [value] : value.split(',');
    out[key] = list.map((v) => Buffer.from(v.trim(), 'base64').toString('latin1'));
  }
  return out;
}

/**
 * The metadata of calls whose params have none, one object for all of them: a unary channel memoises
 * its request headers per metadata object, and whoever hands metadata to grpc-js clones it first.
 */
const NO_METADATA = new Metadata();

/** Validates k6's call params (metadata, tags, timeout, discardResponseMessage); unknown keys are errors. */
export function parseCallParams(input: unknown, fn: string, defaultTimeout_ms: number): CallParams {
  const out: CallParams = {
    metadata: NO_METADATA,
    tags: NO_TAGS,
    timeout_ms: defaultTimeout_ms,
    discardResponseMessage: false,
  };
  if (input === null || input === undefined) return out;
  const wrap = (e: unknown): Error => new Error(`invalid GRPC's ${fn} parameters: ${(e as Error).message}`);
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    try {
      switch (k) {
        case 'metadata':
          out.metadata = toMetadata(v, 'metadata');
          break;
        case 'tags': {
          const entries = Object.entries((v ?? {}) as Record<string, unknown>);
          if (entries.length > 0) out.tags = Object.fromEntries(entries.map(([tk, tv]) => [tk, String(tv)]));
          break;
        }
        case 'timeout':
          out.timeout_ms = parseDuration_ms(v, 'timeout value');
          break;
        case 'discardResponseMessage':
          out.discardResponseMessage = Boolean(v);
          break;
        default:
          throw new Error(`unknown param: "${k}"`);
      }
    } catch (e) {
      throw wrap(e);
    }
  }
  return out;
}

const frozenParams = new WeakMap<object, CallParams>();

/**
 * parseCallParams for a params object the script froze (with what it holds), parsed once; other
 * params are parsed per call. A frozen params object always yields the same CallParams, so a unary
 * channel can reuse the request headers built from it; whoever hands the metadata to grpc-js, which owns
 * what it sends, clones it first.
 */
export function cachedCallParams(input: unknown, fn: string, defaultTimeout_ms: number): CallParams {
  if (input === null || typeof input !== 'object' || !Object.isFrozen(input)) {
    return parseCallParams(input, fn, defaultTimeout_ms);
  }
  let parsed = frozenParams.get(input);
  if (!parsed) {
    const nested = Object.values(input).every(
      (v) => v === null || typeof v !== 'object' || Object.isFrozen(v),
    );
    if (!nested) return parseCallParams(input, fn, defaultTimeout_ms);
    parsed = parseCallParams(input, fn, defaultTimeout_ms);
    frozenParams.set(input, parsed);
  }
  return parsed;
}

/** Calls without user tags share one (frozen) empty tag set, so they share memoised tag sets too. */
const NO_TAGS: Tags = Object.freeze({}) as Tags;

/** Tag sets already built, per VU tag set and per user tag set (see http-metrics.ts requestTags). */
const tagMemo = new WeakMap<Tags, WeakMap<Tags, Map<string, Tags>>>();
const TAG_MEMO_ENTRIES = 256;

/**
 * k6's system tags of a gRPC call: url (address + method), service, method, name, plus the status.
 * A call like an earlier one of the same VU with the same user tag object shares its tag object:
 * samples never mutate tags, and building it is a visible part of a small call's cost.
 */
export function callTags(vu: VuState, user: Tags, addr: string, m: MethodDef, status: number): Tags {
  const vuTags = vu.tags();
  let byUser = tagMemo.get(vuTags);
  if (!byUser) {
    byUser = new WeakMap();
    tagMemo.set(vuTags, byUser);
  }
  let byKey = byUser.get(user);
  if (!byKey) {
    byKey = new Map();
    byUser.set(user, byKey);
  }
  const key = `${addr}${m.path} ${status}`;
  let tags = byKey.get(key);
  if (!tags) {
    if (byKey.size >= TAG_MEMO_ENTRIES) byKey.clear();
    tags = {
      ...vuTags,
      ...user,
      url: `${addr}${m.path}`,
      service: m.service,
      method: m.name,
      name: user['name'] ?? m.path,
      status: String(status),
    };
    byKey.set(key, tags);
  }
  return tags;
}

/** grpc_req_duration plus wire-size estimates: message frames only (HTTP/2 headers are not counted). */
export function callSamples(
  vuTags: Tags,
  tags: Tags,
  duration_ms: number,
  sent: number,
  received: number,
): Sample[] {
  return [
    { metric: 'grpc_req_duration', value: duration_ms, tags },
    { metric: 'data_sent', value: sent, tags: vuTags },
    { metric: 'data_received', value: received, tags: vuTags },
  ];
}

/** Identity (de)serializers: messages are encoded before the call and decoded after it. */
export const passBuffer = (b: Buffer): Buffer => b;

/**
 * The status message as grpc-go (k6) words it where grpc-js words it differently: a deadline is
 * "context deadline exceeded", a cancelled call "context canceled".
 */
export function statusMessage(code: number, details: string): string {
  if (code === 4 && /^Deadline exceeded/.test(details)) return 'context deadline exceeded';
  if (code === 1 && /^Cancelled on client/.test(details)) return 'context canceled';
  return details;
}
