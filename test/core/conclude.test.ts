/**
 * How a check's end maps to outcomes (src/engine/conclude.ts), in particular that a deviation
 * once recorded is never dropped: whatever stops the check afterwards (a read-back that turns
 * out not observable, a disabled step, a harness error), the clauses it failed stay failed.
 */
import { describe, expect, it } from 'vitest';
import { conclude, NOTHING_JUDGED } from '../../src/engine/conclude.ts';
import { judged, Tally, withTally } from '../../src/engine/judged.ts';
import { Disabled, Finding, NotObservable, type Evidence } from '../../src/engine/finding.ts';

const check = { id: 'x/y', clauses: ['A-001', 'A-002', 'A-003'] };
const evidence = (clause: string, message = 'wrong'): Evidence => ({ clause, message });

describe('conclude', () => {
  it.each([
    ['not observable', new NotObservable('the read-back listing answered 500')],
    ['disabled', new Disabled('budget')],
    ['a harness error', new TypeError('boom')],
    ['a finding on another clause', new Finding(evidence('A-002'))],
  ])('keeps soft findings when the check then stops with %s', (_what, thrown) => {
    const out = conclude(check, thrown, [evidence('A-001', 'create without name stored')]);
    expect(out.outcome).toBe('failed');
    expect(out.clauses['A-001']).toBe('failed');
    expect(out.findings.map((f) => f.message)).toContain('create without name stored');
  });

  it('collapses several findings on one clause into the first, counting the rest', () => {
    const out = conclude(check, undefined, [evidence('A-001', 'first'), evidence('A-002', 'other'), evidence('A-001', 'second'), evidence('A-001', 'third')]);
    expect(out.findings.map((f) => [f.clause, f.message])).toEqual([
      ['A-001', 'first (and 2 more cases for A-001)'],
      ['A-002', 'other'],
    ]);
    expect(out.clauses).toEqual({ 'A-001': 'failed', 'A-002': 'failed', 'A-003': 'passed' });
  });

  it('makes a clause the check judged nothing of not observable, with the reason, and leaves the others', () => {
    const out = conclude(
      check,
      undefined,
      [evidence('A-003')],
      new Map([
        ['A-001', 'no replay ran'],
        ['A-003', 'no merge ran'],
      ]),
    );
    expect(out.clauses).toEqual({ 'A-001': 'notObservable', 'A-002': 'passed', 'A-003': 'failed' });
    expect(out.reason).toBe('A-001 not judged: no replay ran');
    expect(out.notJudged).toEqual({ 'A-001': 'A-001 not judged: no replay ran' });
    // A clause the check does not name cannot be declared unjudged: a harness error, as for findings.
    expect(conclude(check, undefined, [], new Map([['B-001', 'x']])).outcome).toBe('harnessError');
  });

  it('passes every clause of a check that completed without findings', () => {
    expect(conclude(check, undefined, [])).toMatchObject({ outcome: 'passed', clauses: { 'A-001': 'passed', 'A-002': 'passed', 'A-003': 'passed' } });
  });
});

describe('conclude with the counts of what the check judged (src/engine/judged.ts)', () => {
  it('passes only clauses judged at least once; a clause judged zero times is not observable, "nothing judged"', () => {
    const out = conclude(check, undefined, [], new Map(), new Map([['A-001', 3]]));
    expect(out.clauses).toEqual({ 'A-001': 'passed', 'A-002': 'notObservable', 'A-003': 'notObservable' });
    expect(out.reason).toContain(`A-002 not judged: ${NOTHING_JUDGED}`);
    // Each clause's own note, for the report's entry of that clause.
    expect(out.notJudged).toEqual({ 'A-002': `A-002 not judged: ${NOTHING_JUDGED}`, 'A-003': `A-003 not judged: ${NOTHING_JUDGED}` });
    expect(out.judged).toEqual({ 'A-001': 3, 'A-002': 0, 'A-003': 0 });
  });

  it('a failed clause stays failed whatever its count, and a check stopped early is not judged by counts', () => {
    const soft = conclude(check, undefined, [evidence('A-002')], new Map(), new Map([['A-001', 1]]));
    expect(soft.clauses).toEqual({ 'A-001': 'passed', 'A-002': 'failed', 'A-003': 'notObservable' });
    const stopped = conclude(check, new NotObservable('no key'), [], new Map(), new Map());
    expect(stopped.clauses).toEqual({ 'A-001': 'notObservable', 'A-002': 'notObservable', 'A-003': 'notObservable' });
    expect(stopped.reason).toBe('no key');
  });

  it('counts follow the async work of the check that runs, not of another one running beside it', async () => {
    const a = new Tally();
    const b = new Tally();
    const work = async (clause: string, n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        await new Promise((r) => setTimeout(r, 1));
        judged(clause);
      }
    };
    await Promise.all([withTally(a, () => work('A-001', 3)), withTally(b, () => work('A-002', 2))]);
    expect([...a.counts]).toEqual([['A-001', 3]]);
    expect([...b.counts]).toEqual([['A-002', 2]]);
    judged('A-003');
    expect(a.count('A-003') + b.count('A-003')).toBe(0);
  });
});
