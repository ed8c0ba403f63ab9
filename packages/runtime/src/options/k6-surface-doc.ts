/** The markdown page of k6's run surface table (docs/runtime-options.md), generated from k6-surface.ts. */
import { K6_SURFACE, type SurfaceRow } from './k6-surface.ts';

/** The page's path in the repository. */
export const SURFACE_PAGE = 'docs/runtime-options.md';

const STATUS: Record<SurfaceRow['status'], string> = {
  honoured: 'honoured',
  inert: 'accepted, no effect',
  refused: '**refused**',
};

const code = (s: string | undefined) => (s ? `\`${s}\`` : '');
const cell = (s: string) => s.replaceAll('|', '\\|');

/** The whole page. */
export function surfacePage(): string {
  const rows = K6_SURFACE.map((r) => {
    const flag = r.flag ? code(r.short ? `${r.short}, ${r.flag}` : r.flag) : '';
    const values = r.honouredValues ? ` (${r.honouredValues.map(code).join(', ')} only)` : '';
    return `| ${code(r.option)} | ${flag} | ${code(r.env)} | ${STATUS[r.status]}${values} | ${cell(r.note)} |`;
  });
  return [
    '# k6 options, flags and environment variables on the Node runtime',
    '',
    '<!-- Generated from packages/runtime/src/options/k6-surface.ts by `make docs-runtime-options`; do not edit. -->',
    '',
    'Every script option, `k6 run` flag and `K6_*` environment variable of k6 v2.2.0, and what `k6-triton run`',
    'does with it. A refused one stops the run at start with one line naming it and the alternative: exit 255 for',
    "a flag (k6's code for a bad flag), 104 for a script option, config-file key or environment variable (k6's",
    "code for a bad configuration). A refused boolean set to false is harmless and runs. Precedence is k6's: the",
    "config file (`-c`, else `~/.config/k6/config.json`) < the script's `options` < environment variables < flags.",
    '',
    '| Option | Flag | Environment | Status | What it does here / the alternative |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
