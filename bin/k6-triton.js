#!/usr/bin/env node
// The package's command line. Sources are TypeScript; every command starts from a prebuilt bundle
// (build.ts buildRuntime; `npm ci` and `make build` make one, and a command after a source change has a
// child process make a new one first): no TypeScript loader in the process that measures, and a start
// in a fraction of the loader's time. K6_TRITON_NO_PREBUILT=1 runs the sources through tsx instead.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Newest modification time (ms) of the source files under a folder. */
function newest(dir) {
  let ms = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) ms = Math.max(ms, newest(path));
    else if (/\.[cm]?[jt]s$/.test(entry.name)) ms = Math.max(ms, statSync(path).mtimeMs);
  }
  return ms;
}

/** build/<dir> when it was built after the last change to its sources, else undefined. */
function prebuiltDir() {
  try {
    const stamp = JSON.parse(readFileSync(join(root, 'build', 'stamp.json'), 'utf8'));
    if (stamp.sources.some((dir) => newest(join(root, dir)) >= stamp.built_ms)) return undefined;
    return join(root, 'build', stamp.dir);
  } catch {
    return undefined;
  }
}

/**
 * Builds in a child process and returns the build's folder: tsx's module hooks must stay out of the process
 * that runs scripts, where they also keep the supervisor from interrupting code that never yields.
 */
function buildRuntime() {
  // Said aloud: a measuring tool must not change what it runs without telling.
  process.stderr.write(
    "k6-triton: the runtime's sources changed since its last build; rebuilding it first (make build)\n",
  );
  const tsx = import.meta.resolve('tsx');
  const build = join(root, 'build.ts');
  const run = execFileSync(process.execPath, ['--import', tsx, build, '--runtime'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return dirname(run);
}

if (process.env.K6_TRITON_NO_PREBUILT === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../cli/main.ts');
  process.exitCode = await main(process.argv);
} else {
  const dir = prebuiltDir() ?? buildRuntime();
  // The embedded server's child process starts from the same build (measure/core/embedded.ts).
  process.env.K6_TRITON_BUILD_DIR = dir;
  if (process.argv[2] === 'run') await import(pathToFileURL(join(dir, 'run.js')).href);
  else {
    const { main } = await import(pathToFileURL(join(dir, 'cli.js')).href);
    process.exitCode = await main(process.argv);
  }
}
