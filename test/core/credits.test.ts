/**
 * The credit plan (src/engine/credits.ts): exact credits and ceilings summed, --max-credits
 * admitting by ceiling, the terminal line; and the declarations of every suite check: whole,
 * non-negative figures with the ceiling never below the exact figure, whatever --runs.
 */
import { measuredCredits } from '../../src/engine/measured-credits.ts';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { CheckDef, SuiteDef } from '../../src/engine/check.ts';
import { describeCreditPlan, maxCredits, planCredits, plannedCredits } from '../../src/engine/credits.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';

const check = (id: string, extra: Partial<CheckDef>): CheckDef => ({ id: `t/${id}`, title: id, clauses: ['AUTH-001'], credits: 0, run: async () => {}, ...extra });
const suite = (name: string, checks: CheckDef[]): SuiteDef => ({ name, title: name, cast: {}, checks });
const run = (over: Partial<Parameters<typeof planCredits>[1]> = {}) => ({ suites: [], readOnly: false, numRuns: 10, controlUrl: 'http://control.invalid', controlToken: 't', ...over });

describe('planCredits', () => {
  const suites = [
    suite('a', [check('exact', { credits: 3 }), check('varies', { credits: 2, maxCredits: 7 }), check('property', { credits: (n) => n, maxCredits: (n) => 2 * n })]),
    suite('b', [check('cheap', { credits: 1 }), check('mutates', { credits: 4, needs: { mutation: true } })]),
  ];

  test('sums the exact credits and the ceilings; a ceiling defaults to the credits and is never below them', () => {
    const plan = planCredits(suites, run());
    expect(plan).toMatchObject({ planned: 3 + 2 + 10 + 1 + 4, ceiling: 3 + 7 + 20 + 1 + 4, wanted: 20, limit: null, excluded: [] });
    expect(plan.entries.find((e) => e.checkId === 't/varies')).toEqual({ checkId: 't/varies', suite: 'a', credits: 2, maxCredits: 7 });
    expect(maxCredits(check('low', { credits: 5, maxCredits: 2 }), 10)).toBe(5);
    expect(plannedCredits(check('nan', { credits: Number.NaN }), 10)).toBe(0);
  });

  test('--max-credits admits checks in suite order by their ceiling', () => {
    // 3 fits (left 9); "varies" may cost 7 (left 2); "property" may cost 20: out; "cheap" fits; "mutates" (4) does not.
    const plan = planCredits(suites, run({ maxCredits: 12 }));
    expect(plan.excluded).toEqual(['t/property', 't/mutates']);
    expect(plan).toMatchObject({ planned: 3 + 2 + 1, ceiling: 3 + 7 + 1, wanted: 20, limit: 12 });
    expect(describeCreditPlan(plan)).toBe('credit plan: 6 credits for 3 checks (ceiling 11; limit 12); 2 checks (14 credits) disabled by --max-credits');
  });

  test('checks sharing a ceiling (creditPool) add at most the pool to the run, each still listed with its own', () => {
    // Three parts, each may be charged 1 + 25 (its sequence and every shrink); together 3 + 25.
    const pool = { id: 'parts', maxCredits: (n: number) => n / 10 + 25 };
    const parts = [1, 2, 3].map((i) => check(`part-${i}`, { credits: 1, maxCredits: 26, creditPool: pool }));
    const plan = planCredits([suite('p', [check('alone', { credits: 2, maxCredits: 5 }), ...parts])], run());
    expect(plan).toMatchObject({ planned: 2 + 3, ceiling: 5 + 28, excluded: [] });
    expect(plan.entries.filter((e) => e.checkId.startsWith('t/part')).map((e) => e.maxCredits)).toEqual([26, 26, 26]);
    // A pool emptied by the first parts still counts each later part's exact credits.
    const tight = { id: 'tight', maxCredits: 4 };
    const plan2 = planCredits(
      [
        suite(
          'q',
          [1, 2, 3].map((i) => check(`t-${i}`, { credits: 1, maxCredits: 3, creditPool: tight })),
        ),
      ],
      run(),
    );
    expect(plan2.ceiling).toBe(3 + 1 + 1);
    // --max-credits admits the parts by what each adds to the run.
    const plan3 = planCredits([suite('p', parts)], run({ maxCredits: 28 }));
    expect(plan3).toMatchObject({ excluded: [], ceiling: 28 });
    expect(planCredits([suite('p', parts)], run({ maxCredits: 27 })).excluded).toEqual(['t/part-3']);
  });

  test('idle checks plan nothing', () => {
    const plan = planCredits(suites, run({ readOnly: true, suites: ['a'] }));
    expect(plan).toMatchObject({ planned: 15, ceiling: 30, wanted: 15 });
    expect(describeCreditPlan(plan)).toBe('credit plan: 15 credits for 3 checks (ceiling 30; no --max-credits limit)');
  });
});

describe('the suites declare their credits', async () => {
  const suites = await loadSuiteDefs(await discoverSuites(fileURLToPath(new URL('../../suites/', import.meta.url))), fileURLToPath(new URL('../../', import.meta.url)));
  const checks = suites.flatMap((s) => s.checks);

  test.each([1, 2, 10, 25, 100, 1000])('whole, non-negative credits and a ceiling at least as high, for --runs %i', (numRuns) => {
    const wrong = checks.flatMap((c) => {
      // Declared, or measured on the reference (specs/credit-plan.json: every check without declared credits must be in it); the run count stands in for a seed too.
      const exact = c.credits === undefined ? measuredCredits(c.id, numRuns) : typeof c.credits === 'function' ? c.credits(numRuns, numRuns) : c.credits;
      const most = c.maxCredits === undefined ? exact : typeof c.maxCredits === 'function' ? c.maxCredits(numRuns, numRuns) : c.maxCredits;
      const ok = Number.isInteger(exact) && exact >= 0 && Number.isInteger(most) && most >= exact;
      return ok ? [] : [`${c.id}: credits ${exact}, maxCredits ${most}`];
    });
    expect(wrong).toEqual([]);
  });
});
