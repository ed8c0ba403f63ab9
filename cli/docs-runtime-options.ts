/**
 * Writes docs/runtime-options.md from k6's run surface table (`make docs-runtime-options`); `--check` exits 1
 * when the committed page differs instead of writing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { SURFACE_PAGE, surfacePage } from '@k6-triton/runtime';
import { EXIT } from '../measure/core/exit-codes.ts';
import { packagePath } from '../measure/core/paths.ts';

const path = packagePath(...SURFACE_PAGE.split('/'));
const page = existsSync(path) ? readFileSync(path, 'utf8') : '';
const next = surfacePage();
if (process.argv.includes('--check')) {
  if (next !== page) {
    console.error(
      `${SURFACE_PAGE}: differs from packages/runtime/src/options/k6-surface.ts; run make docs-runtime-options`,
    );
    process.exitCode = EXIT.FAILED;
  }
} else if (next !== page) {
  writeFileSync(path, next);
  console.error(`${SURFACE_PAGE}: written`);
}
