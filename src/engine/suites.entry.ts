/**
 * The one test file `wgc run` hands to vitest: it imports the selected suites/<area>.test.ts
 * files (`provide: { wgcSuiteFiles }`, in the order given), whose `defineSuite` calls declare
 * their describe blocks here. Every suite's describe is concurrent with its siblings, so vitest
 * runs up to `maxConcurrency` suites side by side in this one worker, each suite's checks one
 * after another (see launch.ts for why one worker).
 *
 * A suite file that fails to import becomes a describe with one failing test named after the
 * file: the other suites still run, and the failure reaches the report as a run error.
 */
import { pathToFileURL } from 'node:url';
import { describe, inject, test } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute paths of the suite files of this run (launch.ts). */
    wgcSuiteFiles: string[];
    /** Project-relative names of the same files, for messages. */
    wgcSuiteNames: string[];
  }
}

const files = inject('wgcSuiteFiles') ?? [];
const names = inject('wgcSuiteNames') ?? [];
for (const [i, file] of files.entries()) {
  try {
    await import(pathToFileURL(file).href);
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    describe(`${names[i] ?? file}: the suite file did not load`, () => {
      test(`${names[i] ?? file} did not load`, () => {
        throw error;
      });
    });
  }
}
