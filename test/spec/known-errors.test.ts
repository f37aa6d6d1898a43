/**
 * The part 7 error table is written three times on purpose: as data in specs/openapi.yaml
 * (x-wgc-known-errors on ErrorEnvelope), in the checker (src/engine/expect.ts) and in the
 * reference target (src/reference/errors.ts), so that a slip in one cannot hide the same slip
 * in another. This test keeps the three equal.
 */
import { expect, test } from 'vitest';
import { KNOWN_ERRORS as CHECKER } from '../../src/engine/expect.ts';
import { KNOWN_ERRORS as REFERENCE } from '../../src/reference/errors.ts';
import { loadSpec } from '../../src/spec/load.ts';

type Row = { status: number; code: string; message: string };

const rows = (table: Readonly<Record<number, { code: string; message: string }>>): Row[] =>
  Object.entries(table)
    .map(([status, { code, message }]) => ({ status: Number(status), code, message }))
    .sort((a, b) => a.status - b.status);

test('the checker and the reference carry the error table of specs/openapi.yaml, row for row', async () => {
  const spec = await loadSpec();
  const documented = (spec.componentSchema('ErrorEnvelope')['x-wgc-known-errors'] as Row[]).slice().sort((a, b) => a.status - b.status);
  expect(documented.length).toBeGreaterThan(0);
  expect(rows(CHECKER)).toEqual(documented);
  expect(rows(REFERENCE)).toEqual(documented);
});
