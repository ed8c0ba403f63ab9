/**
 * A scenario bundled for one run: the k6 bundle and the Node runtime's CommonJS sidecar in a folder of
 * their own, dist/<scenario>-<hash of the bundle>/, so runs of different scenarios or sources never
 * overwrite a bundle another run is reading (dist/<scenario>.js, `make build`'s, is left to users).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { SCRIPT_CJS_OPTIONS } from '../runtime/loader/bundle.ts';
import { sidecarBanner, sidecarPath } from '../runtime/loader/prebuilt.ts';
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

/** Bundles `entry` (a scenario's .ts file) and returns the bundle's path; the same bundle is reused. */
export async function bundleScenario(entry: string): Promise<string> {
  const dist = packagePath('dist');
  await mkdir(dist, { recursive: true });
  const name = basename(entry).replace(/\.ts$/, '');
  // Built in a folder of this run's, one level under dist/ as the final one is (the source maps' paths
  // are relative), then renamed into place whole: a reader sees a complete folder or none.
  const staging = await mkdtemp(join(dist, `.${name}-`));
  try {
    const bundle = join(staging, `${name}.js`);
    await build({ ...SCENARIO_BUILD_OPTIONS, entryPoints: [entry], outdir: staging });
    await buildSidecar(entry, bundle);
    const esm = await readFile(bundle, 'utf8');
    const folder = join(dist, `${name}-${createHash('sha256').update(esm).digest('hex').slice(0, 16)}`);
    if (!existsSync(folder)) {
      try {
        await rename(staging, folder);
      } catch (error) {
        // Another run put the same bundle there first: theirs is byte for byte this one.
        if (!existsSync(folder)) throw error;
      }
    }
    return join(folder, `${name}.js`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
