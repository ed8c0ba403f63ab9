import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers; two cores are shared between workers.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
