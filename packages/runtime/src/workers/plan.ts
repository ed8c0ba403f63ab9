/**
 * How many worker threads a run uses and which execution segment each runs: N workers take the
 * segments of one sequence 0,1/N,...,1, as k6-operator splits a test over N runners, so together
 * they run exactly the unsegmented test (options/segment.ts's striping).
 */
import { availableParallelism } from 'node:os';
import type { OptionOverrides, TestOptions } from '../options/index.ts';
import { segmentScenario } from '../options/scenarios.ts';
import { ExecutionTuple, parseSegment, parseSequence } from '../options/segment.ts';

/** The variable that sets the worker count when `--workers` is not given. */
export const WORKERS_ENV = 'K6_TRITON_WORKERS';
/**
 * Cores a server on the same machine needs (k6-triton's bench sets 1 when it started the embedded
 * server or a tritonserver beside the run); the default worker count leaves them free.
 */
export const RESERVED_CORES_ENV = 'K6_TRITON_RESERVED_CORES';

/** Parses a worker count (`--workers`, K6_TRITON_WORKERS); throws a one-line error naming `what`. */
export function parseWorkers(text: string, what: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1)
    throw new Error(`${what}: expected a whole number of worker threads >= 1, got "${text}"`);
  return Number(text);
}

/**
 * The default worker count: one per core, less the cores a server on this machine needs, at least
 * one. Under vitest (VITEST set) it is 1: the suite runs many scripts side by side on few cores,
 * and asserts on one thread's output order; tests that want workers ask for them.
 */
export function defaultWorkers(
  env: Record<string, string | undefined>,
  cores: number = availableParallelism(),
): number {
  if (env['VITEST']) return 1;
  const reservedText = env[RESERVED_CORES_ENV]?.trim();
  if (reservedText && !/^\d+$/.test(reservedText))
    throw new Error(`${RESERVED_CORES_ENV}: expected a whole number of cores >= 0, got "${reservedText}"`);
  const reserved = reservedText ? Number(reservedText) : 0;
  return Math.max(1, cores - reserved);
}

/** The worker count asked for: the flag, else K6_TRITON_WORKERS, else the default. */
export function requestedWorkers(flag: number | undefined, env: Record<string, string | undefined>): number {
  if (flag !== undefined) return flag;
  const text = env[WORKERS_ENV];
  return text ? parseWorkers(text, WORKERS_ENV) : defaultWorkers(env);
}

/** Never more workers than the test has VUs at its peak (a worker without VUs does nothing), at least one. */
export function effectiveWorkers(requested: number, maxVus: number): number {
  return Math.max(1, Math.min(requested, maxVus));
}

/** Worker `index`'s execution segment and the sequence of all `count`, as k6's option strings. */
export function workerSegment(
  index: number,
  count: number,
): { executionSegment: string; executionSegmentSequence: string } {
  const point = (i: number) => (i === 0 ? '0' : i === count ? '1' : `${i}/${count}`);
  return {
    executionSegment: `${point(index)}:${point(index + 1)}`,
    executionSegmentSequence: Array.from({ length: count + 1 }, (_, i) => point(i)).join(','),
  };
}

/**
 * The test's options as worker `index` of `count` runs them (every scenario cut to its segment), and
 * the map of its local indexes (VU ids, iteration numbers) onto the test's (null: one worker).
 */
export function segmentOptions(
  options: TestOptions,
  index: number,
  count: number,
): { options: TestOptions; globalIndex: ((k: number) => number) | null } {
  if (count <= 1) return { options, globalIndex: null };
  const { executionSegment, executionSegmentSequence } = workerSegment(index, count);
  const tuple = ExecutionTuple.of(parseSegment(executionSegment), parseSequence(executionSegmentSequence));
  return {
    options: { ...options, scenarios: options.scenarios.map((c) => segmentScenario(c, tuple)) },
    globalIndex: (k) => tuple.globalIndex(k),
  };
}

/** Whether the options already run one execution segment of a larger test (then on one worker). */
export function alreadySegmented(options: TestOptions, overrides: OptionOverrides | undefined): boolean {
  return (
    Boolean(overrides?.executionSegment) ||
    Boolean(overrides?.options?.['executionSegment']) ||
    Boolean(options.raw['executionSegment'])
  );
}
