/**
 * Writes the settings table into docs/benchmarks.md from the schema (`make docs-settings`); `--check` exits 1
 * when the committed table differs instead of writing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { TABLE_PAGE, withSettingsTable } from '../lib/settings/docs-table.ts';
import { EXIT } from '../measure/core/exit-codes.ts';
import { packagePath } from '../measure/core/paths.ts';

const path = packagePath(...TABLE_PAGE.split('/'));
const page = readFileSync(path, 'utf8');
const next = withSettingsTable(page);
if (process.argv.includes('--check')) {
  if (next !== page) {
    console.error(
      `${TABLE_PAGE}: the settings table differs from lib/settings/schema.ts; run make docs-settings`,
    );
    process.exitCode = EXIT.FAILED;
  }
} else if (next !== page) {
  writeFileSync(path, next);
  console.error(`${TABLE_PAGE}: settings table written`);
}
