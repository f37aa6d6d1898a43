/**
 * Typed results a check can throw. A Finding is a target deviation attributed to one clause;
 * NotObservable and Disabled explain why nothing could be concluded. Any other throw from a
 * check is a harness error, never a target failure.
 */
import { z } from 'zod';
import { ExchangeSchema } from '../http/exchange.ts';

/**
 * Everything needed to understand and reproduce one deviation from the report alone: the clause
 * the target violated, one sentence of what was wrong, expected and received, the exchange that
 * showed it (already redacted) and others that set the scene (e.g. the create before the
 * replay); for property-based runs the seed and path that replay the counterexample, the
 * generator's scenario (e.g. "name longer than maxLength 80", and the JSON path it touched).
 * The one declaration of the shape: the report's view (src/report/model.ts) is derived from it.
 */
export const EvidenceSchema = z.object({
  clause: z.string(),
  message: z.string(),
  expected: z.string().optional(),
  received: z.string().optional(),
  exchange: ExchangeSchema.optional(),
  context: z.array(ExchangeSchema).optional(),
  seed: z.number().optional(),
  path: z.string().optional(),
  scenario: z.string().optional(),
  counterexample: z.string().optional(),
  /**
   * How the counterexample was shrunk (src/generators/minimize.ts): candidates tried, kept, and
   * whether it is minimal (no smaller candidate still fails) or the budget ran out first; the
   * value as first generated (truncated).
   */
  /**
   * The id of the exchange the finding's reproduction starts at (after the set-up): a run that
   * needs nothing sent before it, such as one sequence of the sequences suite, which starts
   * from an empty model and makes its own records.
   */
  from: z.string().optional(),
  shrunk: z.object({ calls: z.number().int(), steps: z.number().int(), minimal: z.boolean(), original: z.string() }).strict().optional(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export class Finding extends Error {
  readonly evidence: Evidence;
  constructor(evidence: Evidence) {
    super(`${evidence.clause}: ${evidence.message}`);
    this.name = 'Finding';
    this.evidence = evidence;
  }
}

/** The check cannot conclude on this target (missing control, ledger, key...). */
export class NotObservable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'NotObservable';
  }
}

/** The check was switched off by configuration (--read-only, --max-credits, --suite). */
export class Disabled extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'Disabled';
  }
}
