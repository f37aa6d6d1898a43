/**
 * The outline the worker thread works out for `wgc run` (src/engine/outline.ts) stands for the
 * definitions before the gate opens: it must carry every check of every suite as the definitions
 * do, and the very plan the command would compute from them for the same figures.
 */
import { describe, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runContextFor } from '../../src/engine/context.ts';
import { planCredits } from '../../src/engine/credits.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';
import { figuresOf, outlineOf, outlineSuites, planFor } from '../../src/engine/outline.ts';
import { resolveConfig } from '../../src/config/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITES = fileURLToPath(new URL('../../suites/', import.meta.url));

function runFor(argv: string[], control = true) {
  const { config } = resolveConfig({
    argv,
    env: {},
    readFile: (p) => {
      throw Object.assign(new Error(`ENOENT ${p}`), { code: 'ENOENT' });
    },
  });
  return runContextFor(config, { baseUrl: 'http://127.0.0.1:1', ...(control ? { controlUrl: 'http://127.0.0.1:1/c', controlToken: 't' } : {}) });
}

describe('the suites outline', () => {
  test('holds every check of every suite, with its title and clauses', async () => {
    const files = await discoverSuites(SUITES);
    const defs = await loadSuiteDefs(files, ROOT);
    const outline = await outlineSuites(files, ROOT, figuresOf(runFor(['--seed', '1'])));
    if ('error' in outline) throw new Error(outline.error);
    expect(outline.suites).toEqual(outlineOf(defs));
    expect(outline.suites.map((s) => s.name)).toEqual(defs.map((d) => d.name));
    expect(outline.suites.flatMap((s) => s.checks.map((c) => `${c.id} ${c.title} ${c.clauses.join(',')}`))).toEqual(
      defs.flatMap((d) => d.checks.map((c) => `${c.id} ${c.title} ${c.clauses.join(',')}`)),
    );
    // It crosses a thread as plain data.
    expect(structuredClone(outline)).toEqual(outline);
  });

  test('plans what the command plans from the definitions, whatever the figures', async () => {
    const files = await discoverSuites(SUITES);
    const defs = await loadSuiteDefs(files, ROOT);
    for (const [argv, control] of [
      [['--seed', '1'], true],
      [['--seed', '7', '--runs', '3', '--read-only'], true],
      [['--seed', '4000000000', '--max-credits', '300', '--suite', 'pagination', '--suite', 'sequences'], true],
      [['--seed', '2'], false],
    ] as const) {
      const run = runFor([...argv], control);
      expect(planFor(defs, figuresOf(run)), argv.join(' ')).toEqual(planCredits(defs, run));
    }
  });

  test('a suite that does not load comes back as its message', async () => {
    const files = [{ name: 'gone', testFile: '/nowhere/gone.test.js', indexFile: '/nowhere/gone/index.js' }];
    const outline = await outlineSuites(files, ROOT, figuresOf(runFor(['--seed', '1'])));
    expect(outline).toEqual({ error: expect.stringMatching(/gone\/index\.js: missing/) });
  });
});
