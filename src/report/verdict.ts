/**
 * The verdict and its coverage: the one place that decides what a run's clause outcomes
 * mean for the target.
 *
 * - not-conformant: some MUST clause failed (whatever else happened).
 * - inconclusive: no MUST clause failed, but the harness broke (a clause has a harness
 *   error, or the run itself reported errors): a pass cannot be trusted. Also when no
 *   clause at all was verified (everything not observable or disabled): such a run
 *   concluded nothing, and must not exit 0 in CI.
 * - conformant: neither. SHOULD failures are warnings and never change the verdict.
 *
 * "Conformant" speaks only of the clauses that were verified; `coverage` says how many, and
 * `coverage.full` is true only when every observable MUST clause passed.
 */
import { OUTCOMES, type Outcome } from '../engine/outcome.ts';
import type { ClauseEntry, Coverage, OutcomeCounts, Summary, Verdict } from './model.ts';

/** Process exit code of each verdict. */
export const EXIT_CODES = { conformant: 0, 'not-conformant': 1, inconclusive: 2 } as const satisfies Record<Verdict, 0 | 1 | 2>;

/** The exit code of a verdict: conformant 0, not-conformant 1, inconclusive 2. */
export function exitCodeOf(verdict: Verdict): 0 | 1 | 2 {
  return EXIT_CODES[verdict];
}

/** The order renderers list outcomes in: what matters first. */
export const OUTCOME_DISPLAY_ORDER: readonly Outcome[] = ['passed', 'failed', 'harnessError', 'notObservable', 'disabled'];

/** Zero for every outcome. */
export function emptyCounts(): OutcomeCounts {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}

/** The verdict, coverage and counts of a run's clause entries. */
export function summarize(clauses: readonly ClauseEntry[], runErrors: readonly string[]): Summary {
  const counts = emptyCounts();
  for (const c of clauses) counts[c.outcome] += 1;
  const must = clauses.filter((c) => c.level === 'MUST');
  const mustFailed = must.filter((c) => c.outcome === 'failed').map((c) => c.id);
  const warnings = clauses.filter((c) => c.level === 'SHOULD' && c.outcome === 'failed').map((c) => c.id);
  const harnessErrors = clauses.filter((c) => c.outcome === 'harnessError').map((c) => c.id);

  const broken = harnessErrors.length > 0 || runErrors.length > 0;
  const verdict: Verdict = mustFailed.length > 0 ? 'not-conformant' : broken || counts.passed === 0 ? 'inconclusive' : 'conformant';

  const mustObservable = must.filter((c) => c.observable);
  const mustVerified = must.filter((c) => c.outcome === 'passed').length;
  const coverage: Coverage = {
    total: clauses.length,
    observable: clauses.filter((c) => c.observable).length,
    verified: counts.passed,
    mustTotal: must.length,
    mustObservable: mustObservable.length,
    mustVerified,
    full: verdict === 'conformant' && mustObservable.every((c) => c.outcome === 'passed'),
  };
  return {
    verdict,
    exitCode: exitCodeOf(verdict),
    headline: headline(verdict, coverage, mustFailed.length, warnings.length, broken),
    coverage,
    counts,
    mustFailed,
    warnings,
    harnessErrors,
  };
}

/** E.g. "conformant on 40 of 160 clauses (40 of 120 observable); partial: 12 observable MUST clauses not verified". */
export function headline(verdict: Verdict, cov: Coverage, mustFailed: number, warnings: number, broken: boolean): string {
  const scope = `${cov.verified} of ${cov.total} clauses verified (${cov.verified} of ${cov.observable} observable)`;
  const warn = warnings > 0 ? `; ${warnings} SHOULD warning${warnings === 1 ? '' : 's'}` : '';
  switch (verdict) {
    case 'not-conformant':
      return `not conformant: ${mustFailed} MUST clause${mustFailed === 1 ? '' : 's'} failed; ${scope}${warn}`;
    case 'inconclusive':
      return broken ? `inconclusive: the harness broke, no MUST clause failed; ${scope}${warn}` : `inconclusive: no clause was verified; ${scope}${warn}`;
    case 'conformant': {
      const missing = cov.mustObservable - cov.mustVerified;
      const extent = cov.full ? 'full certification: every observable MUST clause verified' : `partial: ${missing} observable MUST clause${missing === 1 ? '' : 's'} not verified`;
      return `conformant on ${cov.verified} of ${cov.total} clauses (${cov.verified} of ${cov.observable} observable); ${extent}${warn}`;
    }
  }
}

/**
 * Why a run's coverage falls short of what was required (`--require-coverage`: a number of
 * verified clauses, a share of the observable ones such as "90%", or "full"), or undefined.
 */
export function coverageShortfall(cov: Coverage, required: number | string | undefined): string | undefined {
  if (required === undefined) return undefined;
  if (required === 'full') return cov.full ? undefined : `full coverage was required, and ${cov.mustObservable - cov.mustVerified} observable MUST clauses were not verified`;
  if (typeof required === 'number') return cov.verified >= required ? undefined : `${required} verified clauses were required, and ${cov.verified} were verified`;
  const pct = Number(required.replace('%', ''));
  const share = cov.observable === 0 ? 0 : (100 * cov.verified) / cov.observable;
  return share >= pct ? undefined : `${required} of the observable clauses were required, and ${share.toFixed(1)}% (${cov.verified} of ${cov.observable}) were verified`;
}

/**
 * The summary of a conformant run whose coverage falls short of `required`: inconclusive
 * (exit 2), the headline saying so. Any other summary is returned as it is.
 */
export function requireCoverage(s: Summary, required: number | string | undefined): Summary {
  const short = s.verdict === 'conformant' ? coverageShortfall(s.coverage, required) : undefined;
  if (!short) return s;
  return { ...s, verdict: 'inconclusive', exitCode: exitCodeOf('inconclusive'), headline: `inconclusive: ${short} (--require-coverage); ${s.headline}`, coverage: { ...s.coverage, full: false } };
}
