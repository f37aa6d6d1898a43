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
import { basename, dirname, extname, join } from 'node:path';
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
// Each suite's definition (suites/<area>/index.ts) first, all at once: the module runner fetches
// a module's imports one after another, and the suites' dependency trees loaded side by side
// overlap those waits (collect 0.43 -> 0.38 s, median of 4 interleaved runs each). Errors are
// left to the ordered imports below, which report them.
// (`<area>.test.ts` and `<area>/index.ts` in a clone; `.js` both in the compiled package.)
const indexOf = (file: string): string => {
  const ext = extname(file);
  return join(dirname(file), basename(file, `.test${ext}`), `index${ext}`);
};
await Promise.all(files.map((file) => import(pathToFileURL(indexOf(file)).href).catch(() => undefined)));
// Then the suite files in order, so the suites are declared (and start) in the order given.
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
