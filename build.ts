/**
 * Bundles every scenario 1:1 to dist/<name>.js for k6: ESM, k6 modules external,
 * source maps beside each bundle; and beside each, the CommonJS the Node runtime runs
 * (dist/<name>.cjs, packages/runtime/src/loader/prebuilt.ts). Usage: node --import tsx build.ts [scenario ... | --runtime]
 */
import { readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { buildSidecar, SCENARIO_BUILD_OPTIONS } from './measure/core/bundle.ts';

/** This file sits at the package root: scenarios/ and dist/ are found from here, not the working directory. */
const ROOT = dirname(fileURLToPath(import.meta.url));

export const BUILD_OPTIONS: BuildOptions = { ...SCENARIO_BUILD_OPTIONS, outdir: join(ROOT, 'dist') };

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
  const bundles = entries.map((e) => join(ROOT, 'dist', basename(e).replace(/\.ts$/, '.js')));
  await Promise.all(entries.map((entry, i) => buildSidecar(entry, bundles[i]!)));
  return bundles;
}

/** Where prebuilt runtimes go; build/stamp.json names the current one (see bin/k6-triton.js). */
export const RUNTIME_BUILD_DIR = join(ROOT, 'build');

/** Source folders the build is made from (the CLI reaches all of them); a file newer than it makes it stale. */
export const BUILD_SOURCES = [
  'cli',
  'measure',
  'report',
  'payloads',
  'models',
  'scenarios',
  'lib',
  'packages/runtime/src',
  'packages/server/src',
];

/** The runtime's own folder: its supervisor finds worker.js beside itself in the build, so its paths stay. */
const RUNTIME_SRC = join(ROOT, 'packages', 'runtime', 'src');

/**
 * npm packages stay in node_modules; this project's own workspace packages (@k6-triton/*: TypeScript
 * sources) are bundled, since the built runtime runs without a TypeScript loader.
 */
const npmPackagesExternal: Plugin = {
  name: 'npm-packages-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@k6-triton/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * A bundled module keeps the location of its source: `import.meta.url` becomes the source file's URL, so the
 * files found beside a module (protos, the shipped model, the guard script, onnx-worker.js) are found from the
 * build as from the sources. The runtime's files keep the bundle's own URL (worker.js sits beside them).
 */
const sourceLocations: Plugin = {
  name: 'source-locations',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.startsWith(RUNTIME_SRC)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.')) return undefined;
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Bundles the command line (`cli.js`), `k6-triton run` and its worker thread, and the embedded server's child
 * process to plain JavaScript (packages stay in node_modules): the load generator starts without the
 * TypeScript loader, and every command starts in a fraction of the loader's time. Each build gets its own folder and
 * build/stamp.json is replaced in one rename: runs that started from an older build keep their
 * files, and builds racing each other (parallel tests) cannot mix.
 */
export async function buildRuntime(): Promise<string> {
  const built_ms = Date.now();
  const dir = join(RUNTIME_BUILD_DIR, `runtime-${built_ms}-${process.pid}`);
  // One build with splitting: the command and its worker thread share chunks, and each k6 module
  // (k6/http with undici, k6/net/grpc with grpc-js) is a chunk loaded only when a script imports it.
  // The supervisor starts `new URL('./worker.js', import.meta.url)`: chunks sit beside worker.js.
  await build({
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [npmPackagesExternal, sourceLocations],
    sourcemap: true,
    logLevel: 'warning',
    splitting: true,
    entryPoints: {
      cli: join(ROOT, 'cli', 'main.ts'),
      run: join(ROOT, 'cli', 'run-entry.ts'),
      worker: join(RUNTIME_SRC, 'worker-main.ts'),
      // A blocking VU's thread (blocking/thread-vu.ts starts `./vu-thread.js` beside itself).
      'vu-thread': join(RUNTIME_SRC, 'blocking', 'vu-thread-main.ts'),
      'embedded-child': join(ROOT, 'measure', 'core', 'embedded-child.ts'),
    },
    outdir: dir,
    chunkNames: '[name]-[hash]',
  });
  const stamp = join(RUNTIME_BUILD_DIR, `stamp.json.${process.pid}`);
  writeFileSync(stamp, JSON.stringify({ dir: basename(dir), built_ms, sources: BUILD_SOURCES }));
  renameSync(stamp, join(RUNTIME_BUILD_DIR, 'stamp.json'));
  pruneBuilds(RUNTIME_BUILD_DIR, basename(dir));
  return join(dir, 'run.js');
}

/** A build this old is no run's any more (a run reads its files at start). */
const BUILD_KEEP_MS = 24 * 3600 * 1000;

/**
 * Removes earlier builds (about 3 MB each, one per source change) that are a day old, keeping the current one
 * and the two before it whatever their age.
 */
export function pruneBuilds(root: string, current: string, now_ms = Date.now()): string[] {
  const builds = readdirSync(root)
    .filter((name) => /^runtime-\d+-\d+$/.test(name) && name !== current)
    .map((name) => ({ name, built_ms: Number(name.split('-')[1]) }))
    .sort((a, b) => b.built_ms - a.built_ms);
  const removed: string[] = [];
  for (const { name, built_ms } of builds.slice(2)) {
    if (now_ms - built_ms < BUILD_KEEP_MS || !statSync(join(root, name)).isDirectory()) continue;
    rmSync(join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] === '--runtime') {
    console.log(await buildRuntime());
    process.exit(0);
  }
  const wanted = process.argv.slice(2);
  const out = await buildScenarios(wanted.length ? wanted : undefined);
  // One line, as `npm ci` runs this (prepare): what was built and where, not every file.
  const names = out.map((file) => basename(file, '.js')).join(', ');
  const runtime =
    wanted.length === 0 ? ` and the Node runtime in ${relative(ROOT, dirname(await buildRuntime()))}/` : '';
  console.log(`built the scenarios (${names}) in dist/${runtime}`);
}
