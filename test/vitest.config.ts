import { defineConfig } from 'vitest/config';

/** The project's own tests (not the conformance suites, which live in suites/ and run through `wgc run`). */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fixture suites are run by tests through `wgc run`, never collected directly.
    exclude: ['**/node_modules/**', 'test/**/fixtures/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Both cores: vitest's default on a 2-core machine is one worker, which put every file of
    // the suite one after another (854 s here). Tests must hold beside other load anyway.
    maxWorkers: 2,
    reporters: ['default', './test/count-reporter.ts'],
  },
});
