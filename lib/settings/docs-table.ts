/**
 * The settings table of docs/benchmarks.md, rendered from the schema: `make docs-settings` writes it between
 * its markers and test/settings/derived.test.ts fails when the committed table differs. Pure.
 */
import { SETTINGS, type Setting } from './schema.ts';

/** The markers the table sits between in its page. */
export const TABLE_MARKERS = {
  begin:
    '<!-- settings table: generated from lib/settings/schema.ts by `make docs-settings`; do not edit -->',
  end: '<!-- end of settings table -->',
} as const;

/** The page the table is written into, from the repository's root. */
export const TABLE_PAGE = 'docs/benchmarks.md';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function row(s: Setting): string {
  const flags = s.flags.map((f) => `\`${f}\``).join(', ');
  const commands = s.commands.length > 0 ? s.commands.join(', ') : 'env only';
  const more = s.more ? ` ([more](${s.more}))` : '';
  return `| \`${s.env}\` | ${flags} | ${cell(s.doc)}${more} | ${cell(s.kind.form)} | ${cell(s.default)} | ${commands} |`;
}

/** The markdown table of every setting a user gives (not those the tool sets for the scenario). */
export function settingsTable(): string {
  return [
    '| variable | flags | what | value | default | commands |',
    '| --- | --- | --- | --- | --- | --- |',
    ...SETTINGS.filter((s) => !s.byTool || s.env === 'MODEL').map(row),
  ].join('\n');
}

/** `page` with its table replaced by the schema's; throws when the markers are missing. */
export function withSettingsTable(page: string): string {
  const begin = page.indexOf(TABLE_MARKERS.begin);
  const end = page.indexOf(TABLE_MARKERS.end);
  if (begin < 0 || end < begin) throw new Error(`${TABLE_PAGE}: the settings table's markers are missing`);
  return `${page.slice(0, begin + TABLE_MARKERS.begin.length)}\n${settingsTable()}\n${page.slice(end)}`;
}
