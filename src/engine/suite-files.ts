/**
 * Imports the suite files of a run in the vitest worker (for suites.entry.ts): each suite's
 * definition (suites/<area>/index.ts) first, all at once, then the suite files in order, so the
 * suites are declared (and start) in the order given. A suite file that fails to import becomes
 * a describe with one failing test named after the file: the other suites still run, and the
 * failure reaches the report as a run error.
 *
 * In a module of its own, not in the entry: vite's module runner loads the entry and rewrites
 * its dynamic imports into its own, each of which asks the main thread first, and the main
 * thread is busy then (loading the definitions: src/engine/gate.ts). The compiled tree loads
 * this module with Node's loader (launch.ts), and so its imports too: no suite import waits
 * for the main thread.
 */
import { basename, dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'vitest';

/** `<area>.test.ts` → `<area>/index.ts` (`.js` both in the compiled package). */
const indexOf = (file: string): string => {
  const ext = extname(file);
  return join(dirname(file), basename(file, `.test${ext}`), `index${ext}`);
};

export async function importSuiteFiles(files: readonly string[], names: readonly string[]): Promise<void> {
  // The definitions' dependency trees loaded side by side overlap their file reads. Errors are
  // left to the ordered imports below, which report them.
  await Promise.all(files.map((file) => import(pathToFileURL(indexOf(file)).href).catch(() => undefined)));
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
}
