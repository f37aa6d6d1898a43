import { describe, expect, test } from 'vitest';
import { buildRunResult, NO_CHECK_RAN } from '../../src/report/build.ts';
import { exitCodeOf } from '../../src/report/verdict.ts';
import { check, exchange, fixtureCatalog, fixtureMeta, mixedResults, passingResults } from './fixtures/results.ts';

const catalog = fixtureCatalog();
const build = (results = mixedResults(), meta = fixtureMeta()) => buildRunResult(results, catalog, meta);
const clause = (r: ReturnType<typeof build>, id: string) => r.clauses.find((c) => c.id === id)!;

describe('clause aggregation', () => {
  test('a clause takes the highest-precedence outcome among the checks naming it', () => {
    const cases = [
      [['passed', 'failed'], 'failed'],
      [['harnessError', 'failed'], 'failed'],
      [['passed', 'harnessError'], 'harnessError'],
      [['notObservable', 'passed'], 'passed'],
      [['disabled', 'notObservable'], 'notObservable'],
      [['disabled', 'disabled'], 'disabled'],
    ] as const;
    for (const [outcomes, expected] of cases) {
      const results = outcomes.map((o, i) => check(`auth/check-${i}`, { 'AUTH-002': o }, { reason: `reason ${i}` }));
      expect(clause(build(results), 'AUTH-002').outcome, outcomes.join('+')).toBe(expected);
    }
  });

  test('the reason comes from the checks with the winning outcome', () => {
    const r = build([check('a/one', { 'AUTH-002': 'notObservable' }, { reason: 'needs control' }), check('a/two', { 'AUTH-002': 'disabled' }, { reason: 'disabled by --read-only' })]);
    expect(clause(r, 'AUTH-002')).toMatchObject({ outcome: 'notObservable', reason: 'needs control' });
    expect(clause(r, 'AUTH-002').checks.map((c) => c.checkId)).toEqual(['a/one', 'a/two']);
  });

  test("a clause's entry gives the check's note for that clause alone, and a verdict no reason", () => {
    const notes = { 'AUTH-002': 'AUTH-002 not judged: no replay ran', 'AUTH-003': 'AUTH-003 not judged: no merge ran' };
    const r = build([check('a/many', { 'AUTH-001': 'passed', 'AUTH-002': 'notObservable', 'AUTH-003': 'notObservable' }, { reason: Object.values(notes).join('; '), notJudged: notes })]);
    expect(clause(r, 'AUTH-002').checks[0]).toMatchObject({ checkId: 'a/many', reason: notes['AUTH-002'] });
    expect(clause(r, 'AUTH-003').checks[0]).toMatchObject({ reason: notes['AUTH-003'] });
    expect(clause(r, 'AUTH-002').reason).toBe(notes['AUTH-002']);
    expect(clause(r, 'AUTH-001').checks[0]!.reason).toBeUndefined();
    // The check's own view keeps the whole reason, and no separate notes.
    const summary = r.checks.find((c) => c.checkId === 'a/many')!;
    expect(summary.reason).toBe(Object.values(notes).join('; '));
    expect(summary).not.toHaveProperty('notJudged');
  });

  test('a catalog clause marked unobservable is notObservable with the catalog reason', () => {
    const c = clause(build(), 'BILL-002');
    expect(c).toMatchObject({ outcome: 'notObservable', observable: false, reason: 'The order of charging and responding is internal to the service.' });
  });

  test('an observable clause no check named is notObservable "no check ran", or disabled when said so', () => {
    expect(clause(build(), 'PAGE-002')).toMatchObject({ outcome: 'notObservable', reason: NO_CHECK_RAN, observable: true });
    const r = build(mixedResults(), fixtureMeta({ disabledClauses: { 'PAGE-002': 'suite pagination not selected (--suite auth)' } }));
    expect(clause(r, 'PAGE-002')).toMatchObject({ outcome: 'disabled', reason: 'suite pagination not selected (--suite auth)' });
  });

  test('evidence is attached to its clause and de-duplicated (same clause, message and request line)', () => {
    const auth = clause(build(), 'AUTH-001');
    expect(auth.evidence).toHaveLength(1);
    expect(auth.evidence[0]).toMatchObject({ checkId: 'auth/no-credential', occurrences: 2, expected: 'status 401 with the error envelope' });
    expect(auth.evidence[0]!.exchange!.curl).toMatch(/^curl /);
    const def = clause(build(), 'DEF-001').evidence[0]!;
    expect(def).toMatchObject({ seed: 1337, path: '3:1:0', scenario: 'name longer than maxLength 80 (at $.name)' });
    expect(def.context).toHaveLength(1);
  });

  test('different request lines are kept apart', () => {
    const f = (path: string) => ({ clause: 'AUTH-002', message: 'answered 200', exchange: exchange('GET', path, 200, '{}') });
    const r = build([check('auth/x', { 'AUTH-002': 'failed' }, { findings: [f('/me'), f('/definitions'), f('/me')] })]);
    expect(clause(r, 'AUTH-002').evidence.map((e) => e.occurrences)).toEqual([2, 1]);
  });

  test('unknown clause ids are run errors (the harness is wrong), never silently dropped', () => {
    const r = build([...passingResults(), check('auth/typo', { 'AUTH-999': 'passed' })]);
    expect(r.meta.runErrors).toEqual(['check auth/typo names unknown clause AUTH-999']);
    expect(r.summary.verdict).toBe('inconclusive');
  });

  test('the result is the same whatever the order of the check results', () => {
    const results = mixedResults();
    expect(build([...results].reverse())).toEqual(build(results));
  });

  test('per-area counts add up to the catalog', () => {
    const r = build();
    expect(r.areas.map((a) => a.area)).toEqual(['DEF', 'IDEM', 'AUTH', 'ERR', 'PAGE', 'BILL']);
    expect(r.areas.reduce((n, a) => n + a.total, 0)).toBe(catalog.clauses.length);
    expect(r.areas.find((a) => a.area === 'AUTH')).toEqual({
      area: 'AUTH',
      total: 3,
      observable: 3,
      passed: 1,
      failed: 2,
      notObservable: 0,
      disabled: 0,
      harnessError: 0,
    });
    expect(r.areas.find((a) => a.area === 'BILL')).toMatchObject({ total: 2, observable: 1, notObservable: 2 });
  });

  test('run facts: defaults from the results, config redacted, suite from package.json', () => {
    const r = build();
    expect(r.meta.requests).toBe(14);
    expect(r.meta.creditPlan).toEqual({ planned: 18, ceiling: 18, wanted: 18, limit: 500, excluded: [] });
    // The engine's CreditPlan fits as is; its per-check entries are not copied.
    const plan = { planned: 9, ceiling: 12, wanted: 30, limit: 12, excluded: ['billing/b', 'billing/a'], entries: [{ checkId: 'auth/x', suite: 'auth', credits: 2, maxCredits: 3 }] };
    expect(build(mixedResults(), fixtureMeta({ creditPlan: plan })).meta.creditPlan).toEqual({ planned: 9, ceiling: 12, wanted: 30, limit: 12, excluded: ['billing/a', 'billing/b'] });
    expect(r.meta.suite).toEqual({ name: 'wg-conformance', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(r.meta.catalogHash).toBe(catalog.hash);
    expect(r.meta.config.keys).toEqual({ owner: '[REDACTED:owner]' });
    expect(clause(r, 'IDEM-001').seedLink).toBe('https://example.test/seed/service-api-v1-beta.md#41-idempotency-key-header');
    expect(clause(r, 'DEF-001').seedLink).toBe('https://example.test/seed/service-api-v1-beta.md#44-post-definitions');
  });
});

describe('verdict and coverage', () => {
  test('a failed MUST clause makes the target not conformant (exit 1), whatever else happened', () => {
    const r = build();
    expect(r.summary).toMatchObject({ verdict: 'not-conformant', exitCode: 1, mustFailed: ['AUTH-001', 'ERR-001', 'DEF-001'], warnings: ['AUTH-003'], harnessErrors: ['IDEM-002'] });
    expect(r.summary.counts).toEqual({ passed: 3, failed: 4, notObservable: 3, disabled: 1, harnessError: 1 });
  });

  test('harness errors without MUST failures are inconclusive (exit 2), never a target failure', () => {
    const results = passingResults().map((c) => (c.checkId === 'idempotency/replay' ? check(c.checkId, { 'IDEM-001': 'passed', 'IDEM-002': 'harnessError' }, { reason: 'boom' }) : c));
    const r = build(results);
    expect(r.summary).toMatchObject({ verdict: 'inconclusive', exitCode: 2, mustFailed: [] });
    expect(build(passingResults(), fixtureMeta({ runErrors: ['suites/auth.test.ts: SyntaxError'] })).summary.verdict).toBe('inconclusive');
  });

  test('SHOULD failures are warnings: still conformant', () => {
    const results = passingResults().map((c) => (c.checkId === 'pagination/limit' ? check(c.checkId, { 'PAGE-001': 'passed', 'PAGE-002': 'failed' }) : c));
    const r = build(results);
    expect(r.summary).toMatchObject({ verdict: 'conformant', exitCode: 0, warnings: ['PAGE-002'], mustFailed: [] });
    expect(r.summary.headline).toContain('1 SHOULD warning');
  });

  test('full certification only when every observable MUST clause passed', () => {
    const full = build(passingResults());
    expect(full.summary.verdict).toBe('conformant');
    expect(full.summary.coverage).toEqual({ total: 12, observable: 11, verified: 11, mustTotal: 9, mustObservable: 8, mustVerified: 8, full: true });
    expect(full.summary.headline).toBe('conformant on 11 of 12 clauses (11 of 11 observable); full certification: every observable MUST clause verified');
  });

  test('conformant on a few clauses is stated as partial, never as a certification', () => {
    const r = build([check('auth/unknown-key', { 'AUTH-002': 'passed' }), check('billing/x', { 'BILL-001': 'notObservable' }, { reason: 'no ledger' })]);
    expect(r.summary.verdict).toBe('conformant');
    expect(r.summary.coverage).toMatchObject({ verified: 1, total: 12, observable: 11, mustVerified: 1, mustObservable: 8, full: false });
    expect(r.summary.headline).toBe('conformant on 1 of 12 clauses (1 of 11 observable); partial: 7 observable MUST clauses not verified');
  });

  test('a run that verified nothing is inconclusive, not conformant', () => {
    const r = build([check('billing/x', { 'BILL-001': 'notObservable' }, { reason: 'no ledger' }), check('pagination/limit', { 'PAGE-001': 'disabled' }, { reason: '--read-only' })]);
    expect(r.summary).toMatchObject({ verdict: 'inconclusive', exitCode: 2 });
    expect(r.summary.headline).toBe('inconclusive: no clause was verified; 0 of 12 clauses verified (0 of 11 observable)');
  });

  test('exit codes map the verdicts', () => {
    expect([exitCodeOf('conformant'), exitCodeOf('not-conformant'), exitCodeOf('inconclusive')]).toEqual([0, 1, 2]);
  });
});
