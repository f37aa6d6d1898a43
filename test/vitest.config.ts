import { defineConfig } from 'vitest/config';

/** The project's own tests (not the conformance suites, which live in suites/ and run through `wgc run`). */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fixture suites are run by tests through `wgc run`, never collected directly.
    exclude: ['**/node_modules/**', 'test/**/fixtures/**'],
    // A hang guard, not a speed bound: beside a looping benchmark (load 7 to 12 on the two cores)
    // tests that run whole suites in child processes took 35 to 65 s, and one with a self-test
    // of a copy of the project passed 60 s. Tests with more to do set their own.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Three workers on 2 cores: vitest's default there is one, which put every file of the suite
    // one after another (854 s). Many files mostly wait (the kill matrix's worker processes, ledger
    // lags, child runs): 2 workers took 462 s here at 1.5 cores busy, 3 took 371 s. Tests must
    // hold beside other load anyway.
    maxWorkers: 3,
    reporters: ['default', './test/count-reporter.ts'],
  },
});
