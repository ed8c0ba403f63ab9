/**
 * Two vitest projects. `unit`: pure modules and in-process tests that need no server process (fakes
 * and in-process mock servers are fine); `npx vitest run --project unit` (make test-unit) runs in
 * under a minute. `e2e`: tests that start the embedded server, child processes or real tools.
 * A test file is e2e when it sits in one of E2E_FOLDERS (unless listed in UNIT_IN_E2E_FOLDERS) or
 * when its source starts the server or the CLI (E2E_MARKERS); every other test/**\/*.test.ts is
 * unit. The lists are read from the tree at each run, so new test files always land in a project.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/** Folders of end-to-end tests: the bench CLI, the agreement suite against k6, perf_analyzer and tritonclient, the server. */
const E2E_FOLDERS = ['test/agreement/', 'test/bench/', 'test/tools/', 'test/server/', 'test/triton/'];

/** Files inside E2E_FOLDERS that are pure (parsers, catalogs, the model on its own). */
const UNIT_IN_E2E_FOLDERS = [
  'test/server/config-parse.test.ts',
  'test/server/errors-catalog.test.ts',
  'test/server/onnx-mnist.test.ts',
  'test/server/onnx-tensors.test.ts',
  'test/server/simulated.test.ts',
  'test/triton/suite-checks.test.ts',
];

/** A test whose source names one of these starts the CLI as a process (directly or through test/bench/run-cli.ts), the embedded server or a browser. */
const E2E_MARKERS = [
  'bin/k6-triton.js',
  'bench/run-cli.ts',
  '/server/index.ts',
  'measure/embedded.ts',
  'playwright-core',
];

/** Whether a test file (path relative to the root) needs servers, processes or tools. */
function isE2e(file: string): boolean {
  if (UNIT_IN_E2E_FOLDERS.includes(file)) return false;
  if (E2E_FOLDERS.some((folder) => file.startsWith(folder))) return true;
  const source = readFileSync(join(ROOT, file), 'utf8');
  return E2E_MARKERS.some((marker) => source.includes(marker));
}

const TEST_FILES = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f.split('\\').join('/')}`);
const E2E = TEST_FILES.filter(isE2e);

/** Test files run at once; TEST_WORKERS=1 runs them one by one (e.g. to time one file alone). */
const TEST_WORKERS = Number(process.env.TEST_WORKERS ?? 3);
if (!Number.isInteger(TEST_WORKERS) || TEST_WORKERS < 1) {
  throw new Error(`TEST_WORKERS=${process.env.TEST_WORKERS}: expected a whole number of workers, 1 or more`);
}

export default defineConfig({
  test: {
    // Integration tests start real servers; two cores are shared between workers.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default on this 2-core machine is one worker (cores - 1): the e2e files then ran one after
    // another, 6 of `make test`'s 7 minutes, while most of an e2e file waits on timed levels and child
    // processes. Three at once keep both cores busy. Both projects share the workers (a project with its
    // own maxWorkers would run in a group of its own, after the other), so unit files fill the gaps.
    maxWorkers: TEST_WORKERS,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...E2E],
          // Files share a worker's module graph instead of re-importing it per file: the project's CPU
          // time went from ~35 s to ~15 s. Unit tests restore what they change (mocks, timers, log sinks).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
        },
      },
    ],
  },
});
