/**
 * `--summary-export`: k6's legacy JSON export. Metrics flatten their values (rates as
 * {passes, fails, value}); thresholds map each expression to `true` when it FAILED (k6's
 * long-standing inversion, kept for compatibility); groups and checks are maps keyed by name.
 */
import type { SummaryData, SummaryGroup } from './data.ts';

interface LegacyGroup {
  name: string;
  path: string;
  id: string;
  groups: Record<string, LegacyGroup>;
  checks: Record<string, { name: string; path: string; id: string; passes: number; fails: number }>;
}

function legacyGroup(g: SummaryGroup): LegacyGroup {
  return {
    name: g.name,
    path: g.path,
    id: g.id,
    groups: Object.fromEntries(g.groups.map((s) => [s.name, legacyGroup(s)])),
    checks: Object.fromEntries(g.checks.map((c) => [c.name, { ...c }])),
  };
}

/** The legacy export object for `data`. */
export function legacySummaryExport(data: SummaryData): Record<string, unknown> {
  const metrics: Record<string, Record<string, unknown>> = {};
  for (const [key, m] of Object.entries(data.metrics)) {
    const out: Record<string, unknown> =
      m.type === 'rate'
        ? { passes: m.values['passes'], fails: m.values['fails'], value: m.values['rate'] }
        : { ...m.values };
    if (m.thresholds) {
      out['thresholds'] = Object.fromEntries(Object.entries(m.thresholds).map(([expr, t]) => [expr, !t.ok]));
    }
    metrics[key] = out;
  }
  return { root_group: legacyGroup(data.root_group), metrics };
}
