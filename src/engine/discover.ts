/**
 * Finds the suites of a suites folder: every `<area>.test.ts` (the vitest entry, which only
 * calls defineSuite) has its definition in `<area>/index.ts`, exporting `suite` (a SuiteDef).
 * The runner loads the definitions itself to plan credits and validate --suite before any
 * request is sent.
 */
import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SuiteDef } from './check.ts';
import { SOURCE_EXT } from '../vocabulary.ts';

/** A suite file's name: `<area>.test.ts` in a clone, `<area>.test.js` in the compiled package. */
const TEST_SUFFIX = `.test${SOURCE_EXT}`;

export interface SuiteFile {
  /** Suite name, from the file name ("auth" for auth.test.ts). */
  name: string;
  /** Absolute path of <area>.test.ts. */
  testFile: string;
  /** Absolute path of <area>/index.ts. */
  indexFile: string;
}

/** A suite folder or definition that cannot be used; a usage or harness error, never a target finding. */
export class SuiteLoadError extends Error {
  override name = 'SuiteLoadError';
}

/** Lists the suites of `dir` (recursively), sorted by name. */
export async function discoverSuites(dir: string): Promise<SuiteFile[]> {
  const root = resolve(dir);
  let entries: string[];
  try {
    entries = await readdir(root, { recursive: true });
  } catch (e) {
    throw new SuiteLoadError(`cannot read the suites folder ${root}: ${(e as Error).message}`);
  }
  return entries
    .filter((p) => p.endsWith(TEST_SUFFIX) && !p.split(/[\\/]/).includes('node_modules'))
    .map((p) => {
      const testFile = join(root, p);
      const name = basename(p, TEST_SUFFIX);
      return { name, testFile, indexFile: join(dirname(testFile), name, `index${SOURCE_EXT}`) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

function isSuiteDef(x: unknown): x is SuiteDef {
  const s = x as SuiteDef | undefined;
  return typeof s === 'object' && s !== null && typeof s.name === 'string' && Array.isArray(s.checks) && typeof s.cast === 'object';
}

/** Imports each suite's definition. Throws SuiteLoadError naming the file on any problem. */
export async function loadSuiteDefs(files: readonly SuiteFile[], root: string = process.cwd()): Promise<SuiteDef[]> {
  const defs: SuiteDef[] = [];
  for (const f of files) {
    const shown = relative(root, f.indexFile) || f.indexFile;
    if (!existsSync(f.indexFile)) throw new SuiteLoadError(`${shown}: missing; ${basename(f.testFile)} needs its definition there (export const suite: SuiteDef)`);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(f.indexFile).href)) as Record<string, unknown>;
    } catch (e) {
      throw new SuiteLoadError(`${shown}: cannot be loaded: ${(e as Error).message}`);
    }
    const def = [mod.suite, mod.default, ...Object.values(mod)].find(isSuiteDef);
    if (!def) throw new SuiteLoadError(`${shown}: exports no SuiteDef (expected: export const suite: SuiteDef)`);
    if (def.name !== f.name) throw new SuiteLoadError(`${shown}: defines suite "${def.name}" but its file is ${basename(f.testFile)}`);
    defs.push(def);
  }
  const ids = new Map<string, string>();
  for (const d of defs) {
    for (const c of d.checks) {
      const other = ids.get(c.id);
      if (other) throw new SuiteLoadError(`check id ${c.id} is used by suites ${other} and ${d.name}; check ids must be unique`);
      ids.set(c.id, d.name);
    }
  }
  return defs;
}
