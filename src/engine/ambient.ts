/**
 * Ambient clauses: requirements that hold for every response of every check, not just the
 * ones a check was written for. Part 7 says every error body follows the envelope, so every
 * error answer any check provokes is validated (ERR-001, ERR-002), and the check's result
 * gains those clauses: passed when it saw error answers and all were envelopes, failed with
 * the first offending exchange as evidence otherwise.
 *
 * Checks that name ERR-001/ERR-002 themselves attribute envelope defects deliberately (e.g.
 * to the clause of the situation that provoked them); the ambient check stays out of their way.
 */
import type { CheckDef } from './check.ts';
import type { Conclusion } from './conclude.ts';
import { expectErrorEnvelope, KNOWN_ERRORS } from './expect.ts';
import { Finding, type Evidence } from './finding.ts';
import { worst, type Outcome } from './outcome.ts';
import type { Exchange } from '../http/exchange.ts';

export const AMBIENT_ENVELOPE = { envelope: 'ERR-001', known: 'ERR-002' } as const;
const AMBIENT_IDS: readonly string[] = [AMBIENT_ENVELOPE.envelope, AMBIENT_ENVELOPE.known];

/** Collects the envelope verdicts of one check run. */
export class AmbientEnvelope {
  private checked = 0;
  /** Of those, answers with a status of part 7's table (ERR-002's). */
  private known = 0;
  private readonly findings = new Map<string, Evidence>();
  private readonly active: boolean;

  constructor(check: Pick<CheckDef, 'clauses'>) {
    this.active = !check.clauses.some((c) => AMBIENT_IDS.includes(c));
  }

  /** Looks at one exchange of the check: only complete API answers with status >= 400 count. */
  observe(ex: Exchange): void {
    const res = ex.response;
    if (!this.active || !res || res.status < 400 || res.truncated) return;
    this.checked += 1;
    if (KNOWN_ERRORS[res.status]) this.known += 1;
    try {
      expectErrorEnvelope(AMBIENT_ENVELOPE, ex);
    } catch (e) {
      if (!(e instanceof Finding)) throw e;
      const clause = e.evidence.clause;
      // The first offending exchange per clause is evidence enough; the rest would repeat it.
      if (!this.findings.has(clause)) this.findings.set(clause, { ...e.evidence, message: `${e.evidence.message} (checked on every error answer)` });
    }
  }

  /** Adds the ambient clauses to a check's conclusion. Nothing is added when no error answer was seen. */
  merge(conclusion: Conclusion): Conclusion {
    if (!this.active || this.checked === 0) return conclusion;
    const clauses: Record<string, Outcome> = { ...conclusion.clauses };
    const findings = [...conclusion.findings];
    for (const id of AMBIENT_IDS) {
      const finding = this.findings.get(id);
      clauses[id] = finding ? 'failed' : 'passed';
      if (finding) findings.push(finding);
    }
    // What was judged: every error answer for the envelope, those of the table for its constants.
    const judged = { ...(conclusion.judged ?? {}), [AMBIENT_ENVELOPE.envelope]: this.checked, [AMBIENT_ENVELOPE.known]: this.known };
    let reason = conclusion.reason;
    let notJudged = conclusion.notJudged;
    if (!this.findings.has(AMBIENT_ENVELOPE.known) && this.known === 0) {
      clauses[AMBIENT_ENVELOPE.known] = 'notObservable';
      const note = `${AMBIENT_ENVELOPE.known} not judged: no error answer with a status of part 7's table was seen`;
      reason = [reason, note].filter((x) => x !== undefined).join('; ');
      notJudged = { ...notJudged, [AMBIENT_ENVELOPE.known]: note };
    }
    return {
      ...conclusion,
      outcome: Object.values(clauses).reduce<Outcome>(worst, 'disabled'),
      clauses,
      findings,
      judged,
      ...(reason !== undefined ? { reason } : {}),
      ...(notJudged !== undefined ? { notJudged } : {}),
    };
  }
}
