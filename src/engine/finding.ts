/**
 * Typed results a check can throw. A Finding is a target deviation attributed to one clause;
 * NotObservable and Disabled explain why nothing could be concluded. Any other throw from a
 * check is a harness error, never a target failure.
 */
import type { Evidence } from './result-schema.ts';

/** Everything needed to understand and reproduce one deviation (declared in result-schema.ts). */
export type { Evidence };

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
