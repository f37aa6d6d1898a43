/**
 * Readable counterexamples (issue 29 item 5): against a reference that refuses one valid optional
 * field (an enum value's color: fault create-refuses-enum-color), definitions/create-property
 * reports a create body shrunk to that field and the required ones only, and says how it was
 * shrunk (src/generators/minimize.ts through suites/definitions/support.ts forEachGenerated).
 */
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { controlledRunContext } from '../../src/engine/context.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';
import { runSuitesInProcess } from '../../src/engine/run.ts';
import { startReference } from '../../src/reference/index.ts';
import { loadSpec } from '../../src/spec/load.ts';

const SUITES_DIR = fileURLToPath(new URL('../../suites/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHECK = 'definitions/create-property';

test('a create refused for one optional field is reported with that field and the required ones only', async () => {
  const required = new Set((await loadSpec()).operation('createDefinition').requestBodySchema?.required ?? []);
  const suites = (await loadSuiteDefs(await discoverSuites(SUITES_DIR), ROOT))
    .filter((s) => s.checks.some((c) => c.id === CHECK))
    .map((s) => ({ ...s, checks: s.checks.filter((c) => c.id === CHECK), lanes: [] }));
  const ref = await startReference({ faults: ['create-refuses-enum-color'] });
  try {
    const { results } = await runSuitesInProcess(suites, controlledRunContext(ref, { seed: 5, numRuns: 25, timeoutMs: 20_000 }), { concurrency: 1 });
    const shrunk = results.flatMap((r) => r.findings).filter((f) => f.clause === 'DEF-012' && f.shrunk !== undefined);
    expect(shrunk.length).toBeGreaterThan(0);
    for (const f of shrunk) {
      const body = JSON.parse(f.counterexample!) as Record<string, unknown>;
      expect(Object.keys(body).filter((k) => !required.has(k))).toEqual(['enumValues']);
      const values = body.enumValues as Record<string, unknown>[];
      expect(values).toHaveLength(1);
      expect(Object.keys(values[0]!).sort()).toEqual(['color', 'label']);
      expect(f.shrunk!.steps).toBeGreaterThan(0);
      expect(f.shrunk!.original.length).toBeGreaterThan(f.counterexample!.length);
    }
  } finally {
    await ref.close();
  }
}, 120_000);
