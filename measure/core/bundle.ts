/**
 * A scenario bundled for one run: the k6 bundle and the Node runtime's CommonJS sidecar named by the
 * bundle's hash, dist/<scenario>-<hash>.js (beside dist/<scenario>.js, so the scenario's paths relative to
 * its bundle, such as ../proto, hold), each file written whole and renamed into place: runs of different
 * models or sources never overwrite a bundle another run is reading (dist/<scenario>.js is `make build`'s).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { SCRIPT_CJS_OPTIONS, sidecarBanner, sidecarPath } from '@k6-triton/runtime';
import { packagePath } from './paths.ts';

/** How a scenario is bundled for k6 (the output folder is the caller's). */
export const SCENARIO_BUILD_OPTIONS: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2020',
  // k6 resolves these itself, as does the Node runtime's module loader.
  external: ['k6', 'k6/*'],
  sourcemap: true,
  logLevel: 'warning',
};

/** Writes the Node runtime's CommonJS beside `bundle` (the k6 bundle of `entry`), stamped with its hash. */
export async function buildSidecar(entry: string, bundle: string): Promise<void> {
  await build({
    ...SCRIPT_CJS_OPTIONS,
    entryPoints: [entry],
    outfile: sidecarPath(bundle),
    banner: { js: sidecarBanner(await readFile(bundle, 'utf8')) },
    logLevel: 'warning',
  });
}

/** Writes a file under a name of this process's, then renames it into place: readers see it whole or not at all. */
async function writeWhole(path: string, contents: Uint8Array): Promise<void> {
  const staging = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(staging, contents);
  await rename(staging, path);
}

/** Bundles `entry` (a scenario's .ts file) and returns the bundle's path; an identical bundle is reused. */
export async function bundleScenario(entry: string): Promise<string> {
  const dist = packagePath('dist');
  await mkdir(dist, { recursive: true });
  const name = basename(entry).replace(/\.ts$/, '');
  const options = { ...SCENARIO_BUILD_OPTIONS, entryPoints: [entry], write: false as const };
  // Built in memory first for its hash; the second build differs only in its source map's file name.
  const probe = await build({ ...options, outfile: join(dist, `${name}.js`) });
  const text = probe.outputFiles!.find((f) => f.path.endsWith('.js'))!.text;
  const bundle = join(dist, `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.js`);
  // The bundle is written last, so when it is there its sidecar and maps are too.
  if (existsSync(bundle)) return bundle;
  const esm = await build({ ...options, outfile: bundle });
  const esmText = esm.outputFiles!.find((f) => f.path === bundle)!.text;
  const cjs = await build({
    ...SCRIPT_CJS_OPTIONS,
    entryPoints: [entry],
    outfile: sidecarPath(bundle),
    banner: { js: sidecarBanner(esmText) },
    logLevel: 'warning',
    write: false,
  });
  const files = [...cjs.outputFiles!, ...esm.outputFiles!.filter((f) => f.path !== bundle)];
  for (const file of files) await writeWhole(file.path, file.contents);
  await writeWhole(bundle, Buffer.from(esmText));
  return bundle;
}
