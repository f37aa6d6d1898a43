/**
 * The ordinary bugs issue #14 found passing as CONFORMANT (an off-by-one on one bound, a PATCH
 * that clears what it was not asked to touch, a field dropped from one answer...), each a named
 * fault of the reference: the definitions suite must fail on each alone and on all of them
 * together, on every seed tried, through a clause the fault names. Edges are enumerated, not
 * drawn, so no seed may let one through.
 */
import { describe, expect, it } from 'vitest';
import { controlledRunContext } from '../../src/engine/context.ts';
import { runSuitesInProcess } from '../../src/engine/run.ts';
import { FAULTS, startReference } from '../../src/reference/index.ts';
import { loadAllSuites } from './keys-only.ts';

const BUGS = [
  'name-limit-79',
  'label-length-in-bytes',
  'enum-values-cap-199',
  'archive-slugs-cap-199',
  'patch-clears-description',
  'add-enum-values-replaces',
  'patch-answer-without-archived-at',
  'archive-answer-entity-kinds-string',
  'create-trace-arrays-unbounded',
  'trace-revision-zero',
] as const;
const SEEDS = [1, 7, 20_240_611];

/** The clauses the definitions suite failed against the reference with `faults`. */
async function failedClauses(faults: readonly string[], seed: number): Promise<Set<string>> {
  const suites = (await loadAllSuites()).filter((s) => s.name === 'definitions');
  const ref = await startReference({ faults });
  try {
    const out = await runSuitesInProcess(suites, controlledRunContext(ref, { seed, numRuns: 5 }), { concurrency: 1 });
    expect(out.results.filter((r) => r.outcome === 'harnessError').map((r) => `${r.checkId}: ${r.reason}`)).toEqual([]);
    return new Set(
      out.results.flatMap((r) =>
        Object.entries(r.clauses)
          .filter(([, o]) => o === 'failed')
          .map(([c]) => c),
      ),
    );
  } finally {
    await ref.close();
  }
}

const clausesOf = (name: string): readonly string[] => FAULTS.find((f) => f.name === name)!.clauses;

describe.each(SEEDS)('seed %i', (seed) => {
  it.each(BUGS)(
    'the definitions suite fails on %s alone',
    async (bug) => {
      const failed = await failedClauses([bug], seed);
      expect(
        clausesOf(bug).filter((c) => failed.has(c)),
        `failed: ${[...failed].join(', ')}`,
      ).not.toEqual([]);
    },
    60_000,
  );

  it('the definitions suite fails on all of them together, through a clause of each', async () => {
    const failed = await failedClauses(BUGS, seed);
    expect(BUGS.filter((b) => !clausesOf(b).some((c) => failed.has(c)))).toEqual([]);
  }, 180_000);
});
