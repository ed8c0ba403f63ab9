// Two vitest projects, split by folder. `unit` (test/, and each package's test/, outside their e2e/ folders):
// pure modules and in-process tests that need no server process (fakes and in-process mock servers are fine);
// `npx vitest run --project unit` (make test-unit) runs in under a minute. `e2e` (test/e2e/ and each package's
// test/e2e/): tests that start the embedded server, the CLI, child processes, a browser or the real tools.
import { defineConfig } from 'vitest/config';

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
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/e2e/**', 'packages/*/test/e2e/**'],
          // Files share a worker's module graph instead of re-importing it per file: the project's CPU
          // time went from ~35 s to ~15 s. Unit tests restore what they change (mocks, timers, log sinks).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'packages/*/test/e2e/**/*.test.ts'],
        },
      },
    ],
  },
});
