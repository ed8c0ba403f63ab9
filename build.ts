/**
 * Bundles every scenario 1:1 to dist/<name>.js for k6: ESM, k6 modules external,
 * source maps beside each bundle. Usage: node --import tsx build.ts [scenario ...]
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

/** This file sits at the package root: scenarios/ and dist/ are found from here, not the working directory. */
const ROOT = dirname(fileURLToPath(import.meta.url));

export const BUILD_OPTIONS: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2020',
  // k6 resolves these itself, as does the Node runtime's module loader.
  external: ['k6', 'k6/*'],
  sourcemap: true,
  outdir: join(ROOT, 'dist'),
  logLevel: 'warning',
};

/** Scenario entry points: every .ts file directly under scenarios/. */
export function scenarioEntries(dir = join(ROOT, 'scenarios')): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(dir, f));
}

/** Bundles the given scenarios (all by default) and returns the bundle paths. */
export async function buildScenarios(entries = scenarioEntries()): Promise<string[]> {
  if (entries.length === 0) return [];
  await build({ ...BUILD_OPTIONS, entryPoints: entries });
  return entries.map((e) => join(ROOT, 'dist', basename(e).replace(/\.ts$/, '.js')));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const wanted = process.argv.slice(2);
  const out = await buildScenarios(wanted.length ? wanted : undefined);
  for (const file of out) console.log(file);
}
