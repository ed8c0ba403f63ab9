/**
 * Consolidates a test's options as k6 does: k6's defaults < the config file (--config) < the script's
 * `options` < environment variables and CLI flags. Options k6 has and the Node runtime refuses stop the run
 * here (k6-surface.ts); options k6 does not know get k6's warning.
 * Execution shortcuts (vus, duration, iterations, stages) become the "default" scenario as in k6 (`shortcuts.ts`).
 */
import { parseSystemTags } from '../metrics/system-tags.ts';
import { validateTrendStat, DEFAULT_TREND_STATS } from '../metrics/values.ts';
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';
import { logLine } from '../log.ts';
import { type ClientTls, parseTlsAuth } from '../transport/tls-client.ts';
import { parseTlsProtocol } from '../transport/tls-options.ts';
import type { HttpOptions } from '../vu-context.ts';
import { parseHttpDebug } from '../modules/http-debug.ts';
import { parseDialPolicy } from '../transport/dial-policy.ts';
import { refusedOptions, unknownOptions } from './k6-surface.ts';
import { parseScenario, type ScenarioConfig, segmentScenario } from './scenarios.ts';
import { ExecutionTuple, parseSegment, parseSequence, type Segment } from './segment.ts';
import { deriveScenarios, layerShortcuts } from './shortcuts.ts';

export type { ScenarioConfig, Stage, ExecutorName } from './scenarios.ts';

/** Options the CLI (or runTest's caller) sets; they win over the script's. */
export interface OptionOverrides {
  vus?: number;
  duration?: string;
  iterations?: number;
  summaryTrendStats?: string[];
  summaryTimeUnit?: string;
  tags?: Record<string, string>;
  noConnectionReuse?: boolean;
  discardResponseBodies?: boolean;
  /** `--insecure-skip-tls-verify`. */
  insecureSkipTLSVerify?: boolean;
  /** `--execution-segment`, e.g. "1/3:2/3". */
  executionSegment?: string;
  /** `--execution-segment-sequence`, e.g. "0,1/3,2/3,1". */
  executionSegmentSequence?: string;
  /** Options the environment and flags set, by k6's option names (stages, userAgent, throw, ...): they win. */
  options?: Record<string, unknown>;
  /** The options of k6's JSON config file (--config): the script's win over them. */
  configFile?: Record<string, unknown>;
}

/** The consolidated options the engine runs with (durations in ms). */
export interface TestOptions {
  scenarios: ScenarioConfig[];
  thresholds: unknown;
  summaryTrendStats: string[];
  summaryTimeUnit: string | null;
  tags: Record<string, string>;
  /** The system tags kept on samples; undefined: k6's default set. */
  systemTags: string[] | undefined;
  discardResponseBodies: boolean;
  noConnectionReuse: boolean;
  /** insecureSkipTLSVerify, tlsAuth, tlsVersion and tlsCipherSuites. */
  tls: ClientTls;
  /** maxRedirects, batch, batchPerHost, noCookiesReset. */
  http: HttpOptions;
  setupTimeout_ms: number;
  teardownTimeout_ms: number;
  noSetup: boolean;
  noTeardown: boolean;
  /** k6's minIterationDuration: an iteration shorter than this waits out the rest (0: none). */
  minIterationDuration_ms: number;
  /** k6's userAgent option; null: the runtime's default. */
  userAgent: string | null;
  /** The merged options object, as exec.test.options shows it. */
  raw: Record<string, unknown>;
}

/** Thrown for bad configuration: k6 exits with 104. */
export class InvalidConfigError extends Error {}

function boolOpt(v: unknown, what: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean')
    throw new Error(`invalid option ${what}: expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

function intOpt<D extends number | null>(v: unknown, what: string, dflt: D): number | D {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new Error(`invalid option ${what}: expected an integer >= 0, got ${JSON.stringify(v)}`);
  return v;
}

function userAgentOpt(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string')
    throw new Error(`invalid option userAgent: expected a string, got ${JSON.stringify(v)}`);
  return v;
}

/** k6/http's options with k6's defaults. */
function httpOptions(s: Record<string, unknown>): HttpOptions {
  return {
    maxRedirects: intOpt(s['maxRedirects'], 'maxRedirects', null),
    batch: intOpt(s['batch'], 'batch', 20),
    batchPerHost: intOpt(s['batchPerHost'], 'batchPerHost', 6),
    noCookiesReset: boolOpt(s['noCookiesReset'], 'noCookiesReset'),
    throw: boolOpt(s['throw'], 'throw'),
    debug: parseHttpDebug(s['httpDebug']),
    dial: parseDialPolicy(s, (v) => parseDuration_ms(v, 'dns ttl')),
    rps: intOpt(s['rps'], 'rps', 0),
    noVUConnectionReuse: boolOpt(s['noVUConnectionReuse'], 'noVUConnectionReuse'),
  };
}

/** The execution tuple of the executionSegment and executionSegmentSequence options (strings, as k6 takes them). */
function executionTuple(segment: unknown, sequence: unknown): ExecutionTuple {
  for (const [v, what] of [
    [segment, 'executionSegment'],
    [sequence, 'executionSegmentSequence'],
  ] as const) {
    if (v !== undefined && v !== null && typeof v !== 'string')
      throw new Error(`invalid option ${what}: expected a string, got ${JSON.stringify(v)}`);
  }
  const seg: Segment | null = typeof segment === 'string' ? parseSegment(segment) : null;
  const seq = typeof sequence === 'string' ? parseSequence(sequence) : [];
  return ExecutionTuple.of(seg, seq);
}

/** Merges script options and overrides, validates them and derives the scenarios. */
export function consolidateOptions(script: unknown, over: OptionOverrides = {}): TestOptions {
  try {
    return consolidate(script, over);
  } catch (err) {
    if (err instanceof InvalidConfigError) throw err;
    throw new InvalidConfigError((err as Error).message);
  }
}

function consolidate(script: unknown, over: OptionOverrides): TestOptions {
  if (script !== undefined && (script === null || typeof script !== 'object' || Array.isArray(script))) {
    throw new Error('invalid options: the exported `options` must be an object');
  }
  const own = (script as Record<string, unknown>) ?? {};
  const config = over.configFile ?? {};
  const refused = [...refusedOptions(config), ...refusedOptions(own)];
  if (refused.length > 0) throw new InvalidConfigError(refused.join('\n'));
  const unknown = unknownOptions(own);
  if (unknown.length > 0)
    logLine('WARN', 'There were unknown fields in the options exported in the script', {
      error: `json: unknown field ${JSON.stringify(unknown[0])}`,
    });
  const upper = over.options ?? {};
  const cliShortcuts = {
    vus: over.vus,
    duration: over.duration,
    iterations: over.iterations,
    stages: upper['stages'],
  };
  const s: Record<string, unknown> = { ...config, ...own, ...upper };
  const execution = layerShortcuts(layerShortcuts(config, own), cliShortcuts);
  for (const k of ['vus', 'iterations'] as const) {
    if (s[k] !== undefined && (typeof s[k] !== 'number' || !Number.isInteger(s[k]) || (s[k] as number) < 0)) {
      throw new Error(`invalid option ${k}: ${JSON.stringify(s[k])} (expected an integer >= 0)`);
    }
  }
  const rawScenarios = deriveScenarios(execution, (msg) => logLine('WARN', msg));
  const tuple = executionTuple(
    over.executionSegment ?? s['executionSegment'],
    over.executionSegmentSequence ?? s['executionSegmentSequence'],
  );
  const scenarios = Object.entries(rawScenarios).map(([name, raw]) =>
    segmentScenario(parseScenario(name, raw), tuple),
  );
  if (scenarios.length === 0) throw new Error('invalid options.scenarios: no scenario defined');

  const trendStats =
    over.summaryTrendStats ?? (s['summaryTrendStats'] as string[] | undefined) ?? DEFAULT_TREND_STATS;
  if (!Array.isArray(trendStats))
    throw new Error('invalid option summaryTrendStats: expected an array of strings');
  for (const st of trendStats) validateTrendStat(String(st));
  const timeUnit = over.summaryTimeUnit ?? (s['summaryTimeUnit'] as string | undefined) ?? null;
  if (timeUnit !== null && !['s', 'ms', 'us'].includes(timeUnit)) {
    throw new Error(`invalid option summaryTimeUnit: ${JSON.stringify(timeUnit)} (one of s, ms, us)`);
  }
  const tags: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...(config['tags'] as object), ...(own['tags'] as object) }))
    tags[k] = String(v);
  Object.assign(tags, over.tags ?? {});

  const raw = { ...s, summaryTrendStats: trendStats, summaryTimeUnit: timeUnit, tags };
  return {
    scenarios,
    thresholds: s['thresholds'],
    summaryTrendStats: trendStats.map(String),
    summaryTimeUnit: timeUnit,
    tags,
    systemTags: parseSystemTags(s['systemTags']),
    discardResponseBodies:
      over.discardResponseBodies ?? boolOpt(s['discardResponseBodies'], 'discardResponseBodies'),
    noConnectionReuse: over.noConnectionReuse ?? boolOpt(s['noConnectionReuse'], 'noConnectionReuse'),
    tls: {
      insecureSkipTLSVerify:
        over.insecureSkipTLSVerify ?? boolOpt(s['insecureSkipTLSVerify'], 'insecureSkipTLSVerify'),
      tlsAuth: parseTlsAuth(s['tlsAuth']),
      protocol: parseTlsProtocol(s['tlsVersion'], s['tlsCipherSuites']),
    },
    http: httpOptions(s),
    setupTimeout_ms: parseDuration_ms(s['setupTimeout'] ?? '60s', 'setupTimeout'),
    teardownTimeout_ms: parseDuration_ms(s['teardownTimeout'] ?? '60s', 'teardownTimeout'),
    noSetup: boolOpt(s['noSetup'], 'noSetup'),
    noTeardown: boolOpt(s['noTeardown'], 'noTeardown'),
    minIterationDuration_ms:
      s['minIterationDuration'] === undefined || s['minIterationDuration'] === null
        ? 0
        : parseDuration_ms(s['minIterationDuration'], 'minIterationDuration'),
    userAgent: userAgentOpt(s['userAgent']),
    raw,
  };
}
