/**
 * Typed results a check can throw. A Finding is a target deviation attributed to one clause;
 * NotObservable and Disabled explain why nothing could be concluded. Any other throw from a
 * check is a harness error, never a target failure.
 */
import type { Exchange } from '../http/exchange.ts';

/** Everything needed to understand and reproduce one deviation from the report alone. */
export interface Evidence {
  /** The clause the target violated. */
  clause: string;
  /** One sentence: what was wrong. */
  message: string;
  expected?: string;
  received?: string;
  /** The exchange that showed it (already redacted). */
  exchange?: Exchange;
  /** Other exchanges that set the scene (e.g. the create before the replay). */
  context?: Exchange[];
  /** Property-based runs: the seed and path that replay the counterexample. */
  seed?: number;
  path?: string;
  /** Generator scenario, e.g. "name longer than maxLength 80", and the JSON path it touched. */
  scenario?: string;
  counterexample?: string;
}

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
