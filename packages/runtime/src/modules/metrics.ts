/** `k6/metrics`: custom Counter, Gauge, Rate and Trend metrics, declared in the init context. */
import { groupAtPath } from '../groups.ts';
import type { Metric, MetricType } from '../metrics/registry.ts';
import { currentRuntimeVu, type VU } from '../vu.ts';

abstract class CustomMetric {
  readonly name: string;
  readonly #metric: Metric;
  /** The VU whose init code declared it: its samples carry that VU's tags, as in k6. */
  readonly #vu: VU;

  constructor(name: string, type: MetricType, isTime: boolean) {
    const vu = currentRuntimeVu();
    if (!vu.inInit) throw new Error('metrics must be declared in the init context');
    if (typeof name !== 'string' || name === '') throw new Error('a metric needs a non-empty name');
    this.name = name;
    this.#vu = vu;
    this.#metric = vu.run.registry.define(name, type, isTime ? 'time' : 'default');
  }

  /** Adds a sample with the VU's tags plus `tags`; returns true as k6 does. */
  add(value: unknown, tags?: Record<string, unknown>): boolean {
    const vu = this.#vu;
    if (vu.inInit) throw new Error('metric values can only be added in the VU context, not the init context');
    const v = this.toNumber(value);
    if (Number.isNaN(v))
      throw new Error(`metric ${this.name}: value ${JSON.stringify(value)} is not a number`);
    let t = vu.tags();
    if (tags) {
      t = { ...t };
      for (const k of Object.keys(tags)) t[k] = String(tags[k]);
    }
    if (vu.retired) return true;
    // k6 lists a `checks` sample with a `check` tag as that check, in the group its `group` tag names.
    if (this.#metric.name === 'checks' && t['check'] !== undefined) {
      const stats = groupAtPath(vu.run.rootGroup, t['group'] ?? '').check(t['check']);
      if (v !== 0) stats.passes++;
      else stats.fails++;
    }
    // A copy: the script may change the VU's metadata before an output writes this sample.
    const md = vu.metadata;
    for (const _ in md) {
      vu.run.pipeline.add(this.#metric, v, t, undefined, { ...md });
      return true;
    }
    vu.run.pipeline.add(this.#metric, v, t);
    return true;
  }

  protected toNumber(value: unknown): number {
    return typeof value === 'boolean' ? Number(value) : Number(value);
  }
}

/** A cumulative sum (count, rate per second). */
export class Counter extends CustomMetric {
  constructor(name: string, isTime = false) {
    super(name, 'counter', isTime);
  }
}

/** The last value, with min and max. */
export class Gauge extends CustomMetric {
  constructor(name: string, isTime = false) {
    super(name, 'gauge', isTime);
  }
}

/** The share of non-zero (truthy) values. */
export class Rate extends CustomMetric {
  constructor(name: string, isTime = false) {
    super(name, 'rate', isTime);
  }
  protected override toNumber(value: unknown): number {
    return typeof value === 'number' ? value : value ? 1 : 0;
  }
}

/** A distribution (avg, min, med, max, percentiles); isTime makes values milliseconds. */
export class Trend extends CustomMetric {
  constructor(name: string, isTime = false) {
    super(name, 'trend', isTime);
  }
}

export default { Counter, Gauge, Rate, Trend };
