/**
 * Fault specifications, as `serve` flags and model config parameters spell them, parsed once into FaultOptions:
 *   status  "503:0.01,500:0.02"  an injected error per HTTP status, each with its probability per request
 *   spike   "0.05:200ms"         probability of a latency spike and its duration
 *   reset   "0.001"              probability that the connection is reset (HTTP) / the call fails UNAVAILABLE (gRPC)
 */
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import { type ErrorCode, STATUS_BY_CODE } from '../errors.ts';

/** Faults injected into inference requests; every field is off when absent. */
export interface FaultOptions {
  /** Probability per HTTP status, e.g. { 503: 0.01, 500: 0.02 } (their sum is at most 1). */
  status?: Record<number, number>;
  /** A latency spike of `duration_ms` before the request is queued, with probability `p`. */
  spike?: { p: number; duration_ms: number };
  /** Probability that the request's connection is reset instead of answered. */
  reset?: number;
  /** Seed of the draws. @default 1 */
  seed?: number;
}

/** The model config parameters that override the server-wide faults per model. */
export const FAULT_PARAMETERS = {
  status: 'fault_status',
  spike: 'fault_spike',
  reset: 'fault_reset',
} as const;

/** Catalog code per HTTP status an injected error may carry (the first code of each status). */
export const CODE_BY_HTTP_STATUS: ReadonlyMap<number, ErrorCode> = (() => {
  const map = new Map<number, ErrorCode>();
  for (const [code, s] of Object.entries(STATUS_BY_CODE) as [ErrorCode, { http: number }][])
    if (!map.has(s.http)) map.set(s.http, code);
  return map;
})();

/** Parses a probability in [0, 1]; `what` names the flag or parameter in the error. */
export function parseProbability(what: string, text: string): number {
  const p = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(p) || p < 0 || p > 1)
    throw new Error(`invalid ${what} "${text}"; expected a probability between 0 and 1, e.g. 0.01`);
  return p;
}

/** Parses "503:0.01,500:0.02" into { 503: 0.01, 500: 0.02 }. */
export function parseStatusFaults(what: string, text: string): Record<number, number> {
  const out: Record<number, number> = {};
  let sum = 0;
  for (const part of text.split(',').filter((x) => x.trim() !== '')) {
    const [statusText, pText, extra] = part.split(':');
    const status = Number(statusText?.trim());
    if (extra !== undefined || pText === undefined || !CODE_BY_HTTP_STATUS.has(status)) {
      throw new Error(
        `invalid ${what} "${part}"; expected STATUS:PROBABILITY with STATUS one of ${[...CODE_BY_HTTP_STATUS.keys()].join(', ')}, e.g. 503:0.01,500:0.02`,
      );
    }
    out[status] = parseProbability(`${what} probability for ${status}`, pText);
    sum += out[status];
  }
  if (sum > 1)
    throw new Error(
      `invalid ${what} "${text}"; the probabilities add up to ${Number(sum.toFixed(6))}, more than 1`,
    );
  return out;
}

/** Parses "0.05:200ms" (probability, then a duration: 200ms, 1s; a bare number is milliseconds). */
export function parseSpike(what: string, text: string): { p: number; duration_ms: number } {
  const [pText, durationText, extra] = text.split(':');
  if (durationText === undefined || extra !== undefined)
    throw new Error(`invalid ${what} "${text}"; expected PROBABILITY:DURATION, e.g. 0.05:200ms`);
  const d = durationText.trim();
  const duration_ms = parseDuration_ms(d, what);
  return { p: parseProbability(`${what} probability`, pText ?? ''), duration_ms };
}

/** Faults of one model: its config parameters over the server-wide ones. */
export function modelFaults(
  parameters: Record<string, { string_value: string }> | undefined,
  defaults: FaultOptions,
  model: string,
): FaultOptions {
  const get = (key: string) => parameters?.[key]?.string_value;
  const what = (key: string) => `parameter ${key} of model '${model}'`;
  const status = get(FAULT_PARAMETERS.status);
  const spike = get(FAULT_PARAMETERS.spike);
  const reset = get(FAULT_PARAMETERS.reset);
  return {
    seed: defaults.seed,
    status: status !== undefined ? parseStatusFaults(what(FAULT_PARAMETERS.status), status) : defaults.status,
    spike: spike !== undefined ? parseSpike(what(FAULT_PARAMETERS.spike), spike) : defaults.spike,
    reset: reset !== undefined ? parseProbability(what(FAULT_PARAMETERS.reset), reset) : defaults.reset,
  };
}
