/**
 * The fault self-test as part of `npm test`: every suite against the conformant reference
 * (nothing may fail) and against the reference with each named fault and every SAMPLE-th
 * fault of each generated family (every fault must be caught), spread over worker processes.
 * `wgc selftest` runs the generated families whole. The matrix is written to reports/selftest/
 * so a failing run can be read in full; the assertion messages list what escaped.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../../src/reference/faults.ts';
import { runSelfTest, type KillMatrix } from '../../src/selftest/index.ts';
import { describeEscape, formatKillRate, renderSelfTestSummary } from '../../src/selftest/render.ts';
import { writeKillMatrix } from '../../src/selftest/write.ts';

const OUT = fileURLToPath(new URL('../../reports/selftest/', import.meta.url));

/** The whole self-test must fit well inside npm test's 15 minutes, even on a loaded 2-core host. */
const BUDGET_MS = 12 * 60_000;

/** Every SAMPLE-th generated fault of each family (the named faults run whole). */
const SAMPLE = 7;

let matrix: KillMatrix;

beforeAll(async () => {
  // A named fault runs the suites whose checks name its clauses (the only ones that can fail
  // them); `wgc selftest` runs every suite for each and so sees every extra.
  matrix = await runSelfTest({ sampleEvery: SAMPLE, narrowNamed: true });
  const files = await writeKillMatrix(matrix, OUT);
  console.log(renderSelfTestSummary(matrix, files));
}, BUDGET_MS);

describe('fault self-test', () => {
  it('runs every named fault once, and a sample of every generated family', () => {
    expect(matrix.faults.filter((f) => f.family === 'named').map((f) => f.fault)).toEqual(FAULTS.map((f) => f.name));
    const bounds = matrix.faults.filter((f) => f.family === 'bounds');
    expect(bounds.length).toBeGreaterThan(30);
    expect(matrix.families.map((f) => f.family)).toEqual(['named', 'bounds', 'shapes', 'patch-semantics', 'rule-cells', 'sequences']);
  });

  it('the conformant reference fails nothing: every clause a check names passes, no harness or run error', () => {
    const c = matrix.conformant;
    const problems = [
      ...c.failures.map((f) => `failed ${f.clause} (${f.checks.join(', ')}): ${f.message ?? ''}`),
      ...c.harnessErrors.map((h) => `harness error in ${h.check} [${h.clauses.join(', ')}]: ${h.reason}`),
      ...c.runErrors.map((e) => `run error: ${e}`),
      ...c.notVerified.map((n) => `not verified ${n.clause}: ${n.outcome}${n.reason ? ` (${n.reason})` : ''}`),
    ];
    expect(problems, `the conformant reference is not clean:\n${problems.join('\n')}`).toEqual([]);
    expect(c.verified.length).toBeGreaterThan(0);
  });

  it('catches every fault (kill rate 100%: every declared clause of each fault fails)', () => {
    const escapes = matrix.faults.filter((f) => !f.caught);
    const message = `kill rate ${formatKillRate(matrix)}; escapes (declared clauses: what happened to them; what failed instead):\n${escapes.map(describeEscape).join('\n')}`;
    expect(
      escapes.map((f) => f.fault),
      message,
    ).toEqual([]);
  });

  it('records failures a fault does not declare (extras) against the conformant baseline', () => {
    const baseline = new Set(matrix.conformant.failures.map((f) => f.clause));
    for (const f of matrix.faults) {
      const expected = f.failures.map((x) => x.clause).filter((id) => !f.declared.includes(id) && !baseline.has(id));
      expect(f.extras, f.fault).toEqual(expected);
      expect(f.failed).toEqual(f.failures.map((x) => x.clause));
    }
    const noisy = matrix.faults.filter((f) => f.extras.length > 0);
    console.log(
      `${noisy.length} of ${matrix.faults.length} faults fail clauses they do not declare:\n${noisy.map((f) => `  ${f.fault} [${f.declared.join(', ')}] also fails ${f.extras.join(', ')}`).join('\n')}`,
    );
  });

  it('reports the coverage gap it was run with: no observable MUST clause without a fault', () => {
    expect(matrix.coverageGap.mustClausesWithoutFault).toEqual([]);
    expect(matrix.coverageGap.faultClausesNotInCatalog).toEqual([]);
  });
});
