/**
 * k6's execution shortcuts (vus, duration, iterations, stages): how CLI flags replace the script's
 * execution settings, and which "default" scenario the shortcuts stand for, with k6's conflicts and
 * warnings (k6's lib/executor/execution_config_shortcuts.go and lib/options.go Apply).
 */
import { parseDuration_ms } from '@k6-triton/lib/duration.ts';

/** The execution options of one tier (script options, or the CLI's flags). */
export interface Shortcuts {
  vus?: unknown;
  duration?: unknown;
  iterations?: unknown;
  stages?: unknown;
  scenarios?: unknown;
}

/**
 * Layers a higher tier's shortcuts over a lower one's (config file < script < environment and flags): a
 * duration, iteration count, stages or scenarios in the higher tier drop the lower tier's duration,
 * iterations, stages and scenarios (k6's rule in Options.Apply); vus is kept unless the higher tier sets it.
 */
export function layerShortcuts(lower: Shortcuts, higher: Shortcuts): Shortcuts {
  const set = (v: unknown) => v !== undefined && v !== null;
  const replaced =
    set(higher.duration) || set(higher.iterations) || set(higher.stages) || set(higher.scenarios);
  const out: Shortcuts = replaced
    ? {
        vus: lower.vus,
        duration: higher.duration,
        iterations: higher.iterations,
        stages: higher.stages,
        scenarios: higher.scenarios,
      }
    : {
        vus: lower.vus,
        duration: lower.duration,
        iterations: lower.iterations,
        stages: lower.stages,
        scenarios: lower.scenarios,
      };
  if (set(higher.vus)) out.vus = higher.vus;
  return out;
}

function conflict(a: string, b: string): Error {
  return new Error(`using \`${a}\` and \`${b}\` options simultaneously is not allowed`);
}

/**
 * The raw scenarios the options stand for, as k6 derives them: iterations → shared-iterations
 * (duration its maxDuration), duration → constant-vus, stages → ramping-vus, vus alone →
 * shared-iterations with one iteration per VU (overriding scenarios, with k6's warning), else the
 * script's scenarios, else per-vu-iterations with 1 VU and 1 iteration.
 */
export function deriveScenarios(o: Shortcuts, warn: (msg: string) => void): Record<string, unknown> {
  const stages = o.stages as unknown[] | undefined | null;
  const hasStages = Array.isArray(stages) && stages.length > 0;
  const hasScenarios = o.scenarios !== undefined && o.scenarios !== null;
  const vus = o.vus === undefined || o.vus === null ? undefined : o.vus;
  if (o.iterations !== undefined && o.iterations !== null) {
    if (hasStages) throw conflict('iterations', 'stages');
    if (hasScenarios) throw conflict('iterations', 'scenarios');
    const sc: Record<string, unknown> = { executor: 'shared-iterations', iterations: o.iterations };
    if (vus !== undefined) sc['vus'] = vus;
    if (o.duration !== undefined && o.duration !== null) sc['maxDuration'] = o.duration;
    return { default: sc };
  }
  if (o.duration !== undefined && o.duration !== null) {
    if (hasStages) throw conflict('duration', 'stages');
    if (hasScenarios) throw conflict('duration', 'scenarios');
    if (parseDuration_ms(o.duration, 'duration') <= 0)
      throw new Error(
        '`duration` option should be more than 0, for infinite duration use the externally-controlled executor',
      );
    return { default: { executor: 'constant-vus', vus: vus ?? 1, duration: o.duration } };
  }
  if (hasStages) {
    if (hasScenarios) throw conflict('stages', 'scenarios');
    return { default: { executor: 'ramping-vus', startVUs: vus ?? 1, stages, gracefulStop: '30s' } };
  }
  if (vus !== undefined && (stages === undefined || stages === null)) {
    if (hasScenarios) warn(`\`vus=${String(vus)}\` overrides scenarios configuration`);
    return { default: { executor: 'shared-iterations', vus, iterations: vus } };
  }
  if (hasScenarios) {
    if (typeof o.scenarios !== 'object' || Array.isArray(o.scenarios))
      throw new Error('invalid options.scenarios: expected an object {name: {executor, ...}}');
    if (Object.keys(o.scenarios as object).length > 0) return o.scenarios as Record<string, unknown>;
    warn('`scenarios` was explicitly set to an empty value, running the script with 1 iteration in 1 VU');
  } else if (Array.isArray(stages)) {
    warn('`stages` was explicitly set to an empty value, running the script with 1 iteration in 1 VU');
  }
  return { default: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } };
}

/** One `-s/--stage` value or K6_STAGES item, `[duration]:[target]` (the target defaults to 0), as k6 reads it. */
export function parseStage(text: string, index: number): { duration: string; target: number } {
  const [duration = '', target] = text.split(':');
  const bad = (why: string) => new Error(`error for stage ${index}: ${why}`);
  try {
    parseDuration_ms(duration, 'stage');
  } catch {
    throw bad(`time: invalid duration ${JSON.stringify(duration)}`);
  }
  if (target !== undefined && !/^-?\d+$/.test(target))
    throw bad(`strconv.ParseInt: parsing ${JSON.stringify(target)}: invalid syntax`);
  return { duration, target: target === undefined ? 0 : Number(target) };
}
