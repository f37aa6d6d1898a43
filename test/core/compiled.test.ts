/**
 * bin/compiled.mjs: a clone's command runs dist/ only while it was built from exactly the current
 * sources. A stamp of a made-up tree, then every way the tree can move away from it.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript without declarations (the bin runs before any compiler)
import { compiledIsFresh, listInputs, stampOf, writeStamp } from '../../bin/compiled.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A checkout with a few inputs, built (stamped) into dist/. */
function built(): { root: string; dist: string } {
  const root = mkdtempSync(join(tmpdir(), 'wgc-compiled-'));
  dirs.push(root);
  for (const d of ['src/cli', 'suites', 'reporters', 'specs', 'dist']) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'src/cli/main.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'suites/auth.test.ts'), 'export const b = 2;\n');
  writeFileSync(join(root, 'specs/clauses.yaml'), 'version: 1\n');
  writeFileSync(join(root, 'package.json'), '{}\n');
  writeFileSync(join(root, 'notes.md'), 'not an input\n');
  const dist = join(root, 'dist');
  writeStamp(dist, stampOf(root));
  return { root, dist };
}

describe('compiledIsFresh', () => {
  it('is fresh right after the build, and without a stamp never', () => {
    const { root, dist } = built();
    expect(compiledIsFresh(root, dist)).toBe(true);
    rmSync(join(dist, 'build-stamp.json'));
    expect(compiledIsFresh(root, dist)).toBe(false);
  });

  it('lists the inputs only: sources, suites, reporters, specs and the build settings', () => {
    const { root } = built();
    expect(listInputs(root).map((f: { path: string }) => f.path)).toEqual(['package.json', 'specs/clauses.yaml', 'src/cli/main.ts', 'suites/auth.test.ts']);
  });

  it('stays fresh when only a time moved (a checkout, a touch) or a file that is no input changed', () => {
    const { root, dist } = built();
    utimesSync(join(root, 'src/cli/main.ts'), new Date(), new Date(Date.now() + 60_000));
    writeFileSync(join(root, 'notes.md'), 'changed, and no input\n');
    expect(compiledIsFresh(root, dist)).toBe(true);
  });

  it('is stale after an edit of the same size, an edit of another size, an added file or a removed one', () => {
    const edits: ((root: string) => void)[] = [
      (root) => writeFileSync(join(root, 'src/cli/main.ts'), 'export const a = 2;\n'),
      (root) => writeFileSync(join(root, 'suites/auth.test.ts'), 'export const b = 22;\n'),
      (root) => writeFileSync(join(root, 'suites/new.test.ts'), 'export {};\n'),
      (root) => rmSync(join(root, 'specs/clauses.yaml')),
    ];
    for (const edit of edits) {
      const { root, dist } = built();
      edit(root);
      // A same-size edit within the file system's time resolution would keep the time: move it on.
      for (const f of listInputs(root)) utimesSync(join(root, f.path), new Date(), new Date(Date.now() + 120_000));
      expect(compiledIsFresh(root, dist), String(edit)).toBe(false);
    }
  });
});
