import { defineConfig } from 'vitest/config';

const EXCLUDE = ['**/node_modules/**', 'test/**/fixtures/**'];
/** The folders of unit tests (see `projects` below). */
const UNIT = ['test/core/**/*.test.ts', 'test/catalog/**/*.test.ts', 'test/spec/**/*.test.ts', 'test/report/**/*.test.ts'];

/** The project's own tests (not the conformance suites, which live in suites/ and run through `wgc run`). */
export default defineConfig({
  test: {
    // Which files: each project's include (below; an include here would be added to theirs).
    // Fixture suites are run by tests through `wgc run`, never collected directly.
    exclude: EXCLUDE,
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
    projects: [
      // The unit tests: small files that import the modules they test and start no process of
      // their own. They share their workers' module cache (isolate: false): each file in a fresh
      // module graph cost 152 CPU-seconds for these folders, shared 92 (the machine's two cores
      // are what npm test is bound by). A test here must leave no state behind it (timers,
      // environment, mocks): the file after it may run in the same process.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      // The rest start runs, servers, workers and child processes: each file in a module graph of its own.
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: UNIT } },
    ],
  },
});
