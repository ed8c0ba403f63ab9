/**
 * An archive's metadata.json and `k6 inspect`'s JSON: k6's Options with every field (null when unset), in
 * the order k6 v2.2.0 prints them, and the reverse (nulls dropped) for running an archive.
 */
import { pathToFileURL } from 'node:url';
import { dirname } from 'node:path';
import { formatDuration_ms, parseDuration_ms } from '@k6-triton/lib/duration.ts';
import { DEFAULT_TREND_STATS } from '../metrics/values.ts';
import { K6_SYSTEM_TAGS } from '../metrics/system-tags.ts';
import { KNOWN_KEYS } from '../options/scenarios.ts';
import { anonymizePath } from './anonymize.ts';

/** The fields of k6's Options, in k6's order. */
const OPTION_KEYS = [
  'paused',
  'vus',
  'duration',
  'iterations',
  'stages',
  'scenarios',
  'executionSegment',
  'executionSegmentSequence',
  'noSetup',
  'setupTimeout',
  'noTeardown',
  'teardownTimeout',
  'handleSummaryTimeout',
  'rps',
  'dns',
  'maxRedirects',
  'userAgent',
  'batch',
  'batchPerHost',
  'httpDebug',
  'insecureSkipTLSVerify',
  'tlsCipherSuites',
  'tlsVersion',
  'tlsAuth',
  'throw',
  'thresholds',
  'blacklistIPs',
  'blockHostnames',
  'hosts',
  'noConnectionReuse',
  'noVUConnectionReuse',
  'minIterationDuration',
  'ext',
  'summaryTrendStats',
  'summaryTimeUnit',
  'systemTags',
  'tags',
  'metricSamplesBufferSize',
  'noCookiesReset',
  'discardResponseBodies',
  'features',
] as const;

/** The format version an archive written here follows (k6 reads it to normalize paths of very old archives). */
export const ARCHIVE_K6_VERSION = '2.2.0';

/** The top-level options that are durations, which k6 prints in Go's form ("1m0s" for "60s"). */
const DURATION_OPTIONS = [
  'duration',
  'setupTimeout',
  'teardownTimeout',
  'handleSummaryTimeout',
  'minIterationDuration',
];

/** A duration (string, or a number of ms) as Go prints it; anything unreadable as it is. */
export function goDuration(value: unknown): unknown {
  try {
    return formatDuration_ms(parseDuration_ms(value as string | number, 'duration'));
  } catch {
    return value;
  }
}

const DURATION_FIELDS = new Set([
  'startTime',
  'gracefulStop',
  'maxDuration',
  'duration',
  'gracefulRampDown',
  'timeUnit',
]);

/** One scenario as k6 prints it. */
function scenarioJson(raw: Record<string, unknown>): Record<string, unknown> {
  const executor = String(raw['executor']);
  const fields = (KNOWN_KEYS as Record<string, readonly string[] | undefined>)[executor];
  if (!fields)
    throw new Error(`--execution-requirements: executor ${executor} is not supported here; run with k6`);
  const out: Record<string, unknown> = { executor };
  for (const key of ['startTime', 'gracefulStop', 'env', 'exec', 'tags', ...fields]) {
    const v = raw[key];
    if (v === undefined || v === null) out[key] = null;
    else if (DURATION_FIELDS.has(key)) out[key] = goDuration(v);
    else if (key === 'stages')
      out[key] = (v as Record<string, unknown>[]).map((s) => ({
        duration: goDuration(s['duration']),
        target: s['target'] ?? null,
      }));
    else out[key] = v;
  }
  return out;
}

/** Options as k6 prints them: each of k6's fields (null when unset; dns field by field), then any others. */
export function k6OptionsJson(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of OPTION_KEYS) out[key] = options[key] ?? null;
  for (const key of DURATION_OPTIONS) if (out[key] !== null) out[key] = goDuration(out[key]);
  // k6 keeps system tags as a set and prints them sorted.
  if (Array.isArray(out['systemTags'])) out['systemTags'] = [...(out['systemTags'] as string[])].sort();
  const scenarios = out['scenarios'];
  if (scenarios && typeof scenarios === 'object' && !Array.isArray(scenarios))
    out['scenarios'] = Object.fromEntries(
      Object.entries(scenarios).map(([name, sc]) => [name, scenarioJson(sc as Record<string, unknown>)]),
    );
  if (Array.isArray(out['stages']))
    out['stages'] = (out['stages'] as Record<string, unknown>[]).map((s) => ({
      ...s,
      duration: goDuration(s['duration']),
    }));
  const dns = (options['dns'] ?? {}) as Record<string, unknown>;
  out['dns'] =
    typeof options['dns'] === 'string'
      ? options['dns']
      : { ttl: dns['ttl'] ?? null, select: dns['select'] ?? null, policy: dns['policy'] ?? null };
  for (const [key, value] of Object.entries(options)) if (!(key in out)) out[key] = value;
  return out;
}

/** A value with its null fields (and objects left empty by that) removed: an archive's options as a script's. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const kept = withoutNulls(v);
    if (kept === null || kept === undefined) continue;
    if (typeof kept === 'object' && !Array.isArray(kept) && Object.keys(kept).length === 0) continue;
    out[key] = kept;
  }
  return out;
}

/** The defaults k6's consolidation writes into an archive's options: its trend stats and system tags. */
export function withArchiveDefaults(options: Record<string, unknown>): Record<string, unknown> {
  return {
    ...options,
    summaryTrendStats: options['summaryTrendStats'] ?? DEFAULT_TREND_STATS,
    // The default set: all but the last four.
    systemTags: options['systemTags'] ?? K6_SYSTEM_TAGS.slice(0, -4),
  };
}

/** metadata.json of an archive of the script at `path` (absolute) with these options and environment. */
export function archiveMetadata(
  path: string,
  options: Record<string, unknown>,
  env: Record<string, string>,
): Record<string, unknown> {
  return {
    type: 'js',
    options: k6OptionsJson(withArchiveDefaults(options)),
    filename: pathToFileURL(anonymizePath(path)).href,
    pwd: pathToFileURL(anonymizePath(dirname(path))).href,
    env,
    compatibilityMode: 'extended',
    k6version: ARCHIVE_K6_VERSION,
    goos: process.platform,
  };
}
