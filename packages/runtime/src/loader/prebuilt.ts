/**
 * Prebuilt scenarios skip the bundler: build.ts writes dist/<name>.cjs beside each k6 bundle, the
 * CommonJS the runtime would otherwise make with esbuild at every start (esbuild's service is a
 * process of its own, and its API costs the run's thread memory). The sidecar's first line names
 * the hash of the bundle it was made with, so one left from an older build is never used.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';

/** The first line of the CommonJS sidecar of the bundle whose text is `esm`. */
export function sidecarBanner(esm: string): string {
  return `// k6-triton: CommonJS of the bundle with sha256 ${createHash('sha256').update(esm).digest('hex')}`;
}

/** Where the sidecar of a bundle goes: dist/mnist.js → dist/mnist.cjs. */
export function sidecarPath(bundle: string): string {
  return bundle.replace(/\.m?js$/, '.cjs');
}

/** A bundle's text with its sidecar's code and source map, when a sidecar of this very bundle exists. */
export function readSidecar(bundle: string): { esm: string; code: string; map?: string } | undefined {
  if (!/\.m?js$/.test(bundle)) return undefined;
  const cjs = sidecarPath(bundle);
  if (!existsSync(cjs)) return undefined;
  const esm = readFileSync(bundle, 'utf8');
  const code = readFileSync(cjs, 'utf8');
  if (!code.startsWith(`${sidecarBanner(esm)}\n`)) return undefined;
  return { esm, code, map: existsSync(`${cjs}.map`) ? readFileSync(`${cjs}.map`, 'utf8') : undefined };
}
