/**
 * What a check judged: per clause, how many times a condition of it was looked at and held (a
 * status, an envelope, a cursor, a replay, a charge...). A check that completes without judging
 * one of its clauses even once has not verified it: that clause ends not observable ("nothing
 * judged"), never passed (conclude.ts). The shared expectations (expect.ts) count what they
 * judge by themselves; a check that judges by hand says so with ctx.judged(clause).
 *
 * The tally of the check running now travels with its async work (AsyncLocalStorage), so the
 * helpers need no context argument and checks run side by side keep separate tallies.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export class Tally {
  readonly counts = new Map<string, number>();
  add(clause: string, n = 1): void {
    this.counts.set(clause, (this.counts.get(clause) ?? 0) + n);
  }
  count(clause: string): number {
    return this.counts.get(clause) ?? 0;
  }
}

const current = new AsyncLocalStorage<Tally>();

/** Runs `fn` with `tally` receiving every judgement made inside it. */
export function withTally<T>(tally: Tally, fn: () => T): T {
  return current.run(tally, fn);
}

/** How many judgements of `clause` the check running now has made so far (0 outside a check). */
export function judgedCount(clause: string): number {
  return current.getStore()?.count(clause) ?? 0;
}

/** Counts one judgement of `clause` (n of them) for the check running now; outside a check, nothing. */
export function judged(clause: string, n = 1): void {
  current.getStore()?.add(clause, n);
}
