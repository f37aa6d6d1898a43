/**
 * The one test file `wgc run` hands to vitest: it imports the selected suites/<area>.test.ts
 * files (`provide: { wgcSuiteFiles }`, in the order given; src/engine/suite-files.ts), whose
 * `defineSuite` calls declare their describe blocks here. Every suite's describe is concurrent
 * with its siblings, so vitest runs up to `maxConcurrency` suites side by side in this one
 * worker, each suite's checks one after another (see launch.ts for why one worker).
 */
import { inject } from 'vitest';
import { importSuiteFiles } from './suite-files.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute paths of the suite files of this run (launch.ts). */
    wgcSuiteFiles: string[];
    /** Project-relative names of the same files, for messages. */
    wgcSuiteNames: string[];
  }
}

await importSuiteFiles(inject('wgcSuiteFiles') ?? [], inject('wgcSuiteNames') ?? []);
