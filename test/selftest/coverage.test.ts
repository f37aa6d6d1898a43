/**
 * What the self-test can catch at all, without running it: every observable MUST clause of
 * the catalog has a fault that plants its violation (a clause added without one fails here),
 * and every clause a fault declares exists in the catalog and is named by at least one check
 * (otherwise that fault can never be caught).
 */
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load.ts';
import { FAULTS } from '../../src/reference/faults.ts';
import { DEFAULT_SUITES_DIR } from '../../src/selftest/index.ts';
import { coverageGap } from '../../src/selftest/matrix.ts';
import { loadSuites } from '../../src/selftest/worker.ts';

const catalog = loadCatalog();
const { outlines } = await loadSuites({ suitesDir: DEFAULT_SUITES_DIR, root: process.cwd() });
const gap = coverageGap(catalog, FAULTS, outlines);

describe('fault coverage', () => {
  it('every observable MUST clause has at least one fault', () => {
    expect(gap.mustClausesWithoutFault, `observable MUST clauses no fault of src/reference/faults.ts declares: ${gap.mustClausesWithoutFault.join(', ')}`).toEqual([]);
  });

  it('every clause a fault declares is in the catalog', () => {
    expect(gap.faultClausesNotInCatalog).toEqual([]);
  });

  it('every clause a fault declares is named by at least one check', () => {
    const lines = gap.faultClausesNoCheckNames.map((p) => `${p.clause} (declared by ${p.fault})`);
    expect(lines, `no check names these clauses, so their faults can never be caught:\n${lines.join('\n')}`).toEqual([]);
  });
});
