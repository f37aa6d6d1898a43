import { defineConfig } from 'vitest/config';

/** The project's own tests (not the conformance suites, which live in suites/ and run through `wgc run`). */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
