/**
 * Per-scenario and per-group aggregates for the full summary mode (k6's "█ SCENARIO: x" and
 * "↳ GROUP: y" sections). Only enabled with --summary-mode full, so the default hot path
 * does not pay for it.
 */
import type { Tags } from '../vu-context.ts';
import { type Metric, newSink, type Sink } from './registry.ts';

/** Sinks and check counts of one section (a scenario, or a group inside a scenario). */
export class Section {
  readonly sinks = new Map<Metric, Sink>();
  readonly checks = new Map<string, { passes: number; fails: number }>();

  add(metric: Metric, value: number, tags: Tags): void {
    let s = this.sinks.get(metric);
    if (!s) {
      s = newSink(metric.type, metric.contains);
      this.sinks.set(metric, s);
    }
    s.add(value);
    // A `checks` sample without a `check` tag (a script's own) counts in the totals only, as in k6.
    const name = tags['check'];
    if (metric.name === 'checks' && name !== undefined) {
      let c = this.checks.get(name);
      if (!c) {
        c = { passes: 0, fails: 0 };
        this.checks.set(name, c);
      }
      if (value !== 0) c.passes++;
      else c.fails++;
    }
  }
}

/** Sections keyed by scenario, with their groups keyed by group path. */
export class SectionTracker {
  readonly scenarios = new Map<string, { section: Section; groups: Map<string, Section> }>();

  /** Adds a sample to its scenario's section and, inside a group, to the group's section. */
  add(metric: Metric, value: number, tags: Tags): void {
    const name = tags['scenario'];
    if (name === undefined) return;
    let sc = this.scenarios.get(name);
    if (!sc) {
      sc = { section: new Section(), groups: new Map() };
      this.scenarios.set(name, sc);
    }
    sc.section.add(metric, value, tags);
    const g = tags['group'];
    if (g) {
      let gs = sc.groups.get(g);
      if (!gs) {
        gs = new Section();
        sc.groups.set(g, gs);
      }
      gs.add(metric, value, tags);
    }
  }
}
