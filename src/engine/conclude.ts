/**
 * The one place that maps how a check ended to outcomes per clause:
 *
 * - completed: every clause passed, except clauses with soft findings (failed);
 * - soft findings recorded before the check stopped stay, whatever stopped it (a later step
 *   not observable, a harness error): a deviation once seen is never dropped. Several on one
 *   clause keep the first as evidence and count the others;
 * - threw a Finding: its clause failed, the check's other clauses were not reached
 *   (notObservable "not reached: the check stopped at <clause>");
 * - threw NotObservable / Disabled: every clause gets that outcome, with the reason;
 * - threw anything else: harness error (message and stack head), never a target failure;
 * - a clause the check said it could not judge (ctx.unobserved) is not observable, with the
 *   reason, where it would otherwise have passed: nothing judged is never a pass;
 * - so is a clause the check judged zero times (judged.ts), when the counts are given.
 */
import type { CheckDef, CheckResult } from './check.ts';
import { Disabled, Finding, NotObservable, type Evidence } from './finding.ts';
import { worst, type Outcome } from './outcome.ts';

export type Conclusion = Pick<CheckResult, 'outcome' | 'clauses' | 'reason' | 'findings' | 'judged' | 'observed' | 'notJudged'>;

/** Why a clause the check completed without judging is not observable. */
export const NOTHING_JUDGED = 'nothing judged: the check completed without seeing anything this clause is about';

// Duck-typed as well as instanceof: a check may load finding.ts through another module
// instance (a different path spelling, a second vitest module graph).
const isFinding = (e: unknown): e is Finding => e instanceof Finding || (e instanceof Error && e.name === 'Finding' && 'evidence' in e);
const isNotObservable = (e: unknown): e is NotObservable => e instanceof NotObservable || (e instanceof Error && e.name === 'NotObservable' && 'reason' in e);
const isDisabled = (e: unknown): e is Disabled => e instanceof Disabled || (e instanceof Error && e.name === 'Disabled' && 'reason' in e);

/** "TypeError: x is undefined (at foo (file.ts:1:2) ← at bar (...))": enough to find the bug. */
export function harnessReason(e: unknown): string {
  if (!(e instanceof Error)) return `the check threw a non-error value: ${String(e)}`;
  const frames = (e.stack ?? '')
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at '))
    .slice(0, 3);
  return `${e.name}: ${e.message}${frames.length ? ` (${frames.join(' ← ')})` : ''}`;
}

/** Every clause of the check with one outcome. */
export function uniform(check: Pick<CheckDef, 'clauses'>, outcome: Outcome, reason: string): Conclusion {
  return { outcome, clauses: Object.fromEntries(check.clauses.map((c) => [c, outcome])), reason, findings: [] };
}

/**
 * Maps the end of a check run to per-clause outcomes. `thrown` is undefined when the check
 * completed; `soft` are findings recorded with ctx.softFail.
 */
export function conclude(
  check: Pick<CheckDef, 'id' | 'clauses'>,
  thrown: unknown,
  soft: readonly Evidence[],
  unobservedIn: ReadonlyMap<string, string> = new Map(),
  judgedCounts?: ReadonlyMap<string, number>,
): Conclusion {
  // A clause the check completed without judging once was not verified (judged.ts).
  const unobserved = new Map(unobservedIn);
  if (judgedCounts && thrown === undefined) {
    for (const c of check.clauses) if (!unobserved.has(c) && !(judgedCounts.get(c) ?? 0) && !soft.some((f) => f.clause === c)) unobserved.set(c, NOTHING_JUDGED);
  }
  const undeclared = [...soft.map((f) => f.clause), ...(isFinding(thrown) ? [thrown.evidence.clause] : []), ...unobserved.keys()].find((c) => !check.clauses.includes(c));
  if (undeclared !== undefined) {
    return uniform(check, 'harnessError', `check ${check.id} reported a finding for clause ${undeclared}, which it does not name`);
  }
  const clauses: Record<string, Outcome> = {};
  const failed = new Set(soft.map((f) => f.clause));
  const findings: Evidence[] = collapse(soft);
  let rest: Outcome = 'passed';
  let reason: string | undefined;

  if (thrown === undefined) {
    rest = 'passed';
  } else if (isFinding(thrown)) {
    failed.add(thrown.evidence.clause);
    findings.push(thrown.evidence);
    rest = 'notObservable';
    reason = `not reached: the check stopped at ${thrown.evidence.clause}`;
  } else if (isNotObservable(thrown)) {
    rest = 'notObservable';
    reason = thrown.reason;
  } else if (isDisabled(thrown)) {
    rest = 'disabled';
    reason = thrown.reason;
  } else {
    rest = 'harnessError';
    reason = harnessReason(thrown);
  }
  // A clause the check said it could not judge is not observable where it would have passed.
  const notJudged = [...unobserved].filter(([c]) => !failed.has(c) && rest === 'passed');
  for (const c of check.clauses) clauses[c] = failed.has(c) ? 'failed' : unobserved.has(c) && rest === 'passed' ? 'notObservable' : rest;
  const outcome = Object.values(clauses).reduce<Outcome>(worst, 'disabled');
  const out: Conclusion = { outcome, clauses, findings, ...(judgedCounts ? { judged: Object.fromEntries(check.clauses.map((c) => [c, judgedCounts.get(c) ?? 0])) } : {}) };
  const notes = notJudged.map(([c, why]) => `${c} not judged: ${why}`);
  if (notes.length > 0) reason = [reason, ...notes].filter((x) => x !== undefined).join('; ');
  if (notJudged.length > 0) out.notJudged = Object.fromEntries(notJudged.map(([c, why]) => [c, `${c} not judged: ${why}`]));
  // A reason explains the clauses that did not get a verdict; a clean pass has none.
  if (reason !== undefined && Object.values(clauses).some((o) => o !== 'failed')) out.reason = reason;
  return out;
}

/**
 * One finding per clause, in the order first seen: the first one's evidence, its message
 * saying how many more cases the check met for that clause.
 */
function collapse(soft: readonly Evidence[]): Evidence[] {
  const first = new Map<string, Evidence>();
  const counts = new Map<string, number>();
  for (const e of soft) {
    if (!first.has(e.clause)) first.set(e.clause, e);
    counts.set(e.clause, (counts.get(e.clause) ?? 0) + 1);
  }
  return [...first].map(([clause, e]) => {
    const more = counts.get(clause)! - 1;
    return more > 0 ? { ...e, message: `${e.message} (and ${more} more case${more === 1 ? '' : 's'} for ${clause})` } : e;
  });
}
