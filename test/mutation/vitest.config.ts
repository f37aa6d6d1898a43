import { defineConfig } from 'vitest/config';

/**
 * The mutation tests' runner (test/mutation/run.mjs, `npm run mutation`): the conformance
 * checks as tests against an in-process reference, one test per check. Not part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/mutation/**/*.mutation.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
