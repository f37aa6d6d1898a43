/**
 * The one outcome scale. Every result (of a check, of a clause, of a run) is one of these.
 * The order is the order of precedence when several checks speak of one clause:
 * a failure outweighs everything, a harness error outweighs a pass (the pass is not trusted
 * while the harness broke), a pass outweighs "not observable", which outweighs "disabled".
 */
export const OUTCOMES = ['disabled', 'notObservable', 'passed', 'harnessError', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The outcome of higher precedence. */
export function worst(a: Outcome, b: Outcome): Outcome {
  return OUTCOMES.indexOf(a) >= OUTCOMES.indexOf(b) ? a : b;
}

/** Human labels, used by every renderer. */
export const OUTCOME_LABEL: Record<Outcome, string> = {
  passed: 'passed',
  failed: 'failed',
  notObservable: 'not observable',
  disabled: 'disabled',
  harnessError: 'harness error',
};
