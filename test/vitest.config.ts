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
    // Three workers on 2 cores: vitest's default there is one, which put every file of the suite
    // one after another (854 s). Many files mostly wait (the kill matrix's worker processes, ledger
    // lags, child runs): 2 workers took 462 s here at 1.5 cores busy, 3 took 371 s. Tests must
    // hold beside other load anyway.
    maxWorkers: 3,
    reporters: ['default', './test/count-reporter.ts'],
  },
});
