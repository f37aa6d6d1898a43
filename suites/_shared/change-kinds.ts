/**
 * The change kinds of graph.apply_update as the target's live catalog lists them (part 9 rule 2:
 * allowed change kinds are read live from GET /capabilities; 4.8 shows only person_field). The
 * checks that judge a rule of a change kind the document does not show (OPS-007's account
 * fields, ROLE-006's workspace labels) find the kind here, by its name, and form its change
 * objects from what the catalog says of it: the fields it lists and the argument names its notes
 * mention. A target whose catalog lists no such kind leaves those rules not observable.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { changeKindEntries, type ChangeKindEntry } from '../../src/target/live-catalog.ts';
import { is2xx } from './definitions.ts';
import { receiptPath, submitOperation } from './ops-fixtures.ts';
import { pollUntil, receiptProgress } from './receipts.ts';

export const APPLY_UPDATE = 'graph.apply_update';

/** The live catalog's change kinds of graph.apply_update (GET /capabilities: free). */
export async function applyUpdateKinds(ctx: CheckContext, key: KeyHandle): Promise<ChangeKindEntry[]> {
  const ex = await ctx.api.send({ method: 'GET', path: '/capabilities', key });
  if (!is2xx(ex)) throw new NotObservable(`GET /capabilities answered ${ex.response?.status ?? ex.error?.kind}, so the live catalog's change kinds cannot be read`);
  return changeKindEntries(ex.response?.json, APPLY_UPDATE);
}

/** The first change kind whose name matches every pattern, or not observable with `what`. */
export function kindNamed(kinds: readonly ChangeKindEntry[], patterns: readonly RegExp[], what: string): ChangeKindEntry {
  const found = kinds.find((k) => patterns.every((p) => p.test(k.kind)));
  if (!found) {
    const listed = kinds.length > 0 ? `it lists ${kinds.map((k) => k.kind).join(', ')}` : 'it lists none (or in a layout the suite cannot find)';
    throw new NotObservable(`the live catalog (GET /capabilities) shows no ${what} change kind of ${APPLY_UPDATE}: ${listed}`);
  }
  return found;
}

/** An apply_update body for one account with these change objects. */
export function applyUpdate(accountId: string, summary: string, changes: Record<string, unknown>[]): Record<string, unknown> {
  return { operation: APPLY_UPDATE, reason: `conformance check: ${summary}`, arguments: { customer_id: accountId, summary, changes } };
}

/** A submission and, when it was accepted, its receipt polled until it is finished (or the bound ran out). */
export interface Settled {
  submitted: Exchange;
  accepted: boolean;
  /** The last poll of its receipt (accepted submissions naming one). */
  last?: Exchange;
  /** Whether the receipt was seen finished. */
  finished: boolean;
}

/**
 * How long a receipt may take to finish before the check gives up on seeing its effect (under
 * --patience): the document sets no time (4.8: execution may complete asynchronously); twice
 * the suite's bound for a receipt becoming readable, as finishing comes after.
 */
export const FINISH_MS = 6_000;

/** Submits `body` with `key` and waits for its receipt to finish (FINISH_MS × --patience, polls free). */
export async function submitAndSettle(ctx: CheckContext, key: KeyHandle, body: Record<string, unknown>): Promise<Settled> {
  const submitted = await submitOperation(ctx, key, body);
  if (!is2xx(submitted)) return { submitted, accepted: false, finished: false };
  const path = receiptPath(submitted);
  if (receiptProgress(submitted.response?.json) === 'terminal') return { submitted, accepted: true, finished: true };
  if (path === undefined) return { submitted, accepted: true, finished: false };
  const polled = await pollUntil(ctx, key, path, (ex) => is2xx(ex) && receiptProgress(ex.response?.json) === 'terminal', FINISH_MS);
  return { submitted, accepted: true, last: polled.last, finished: polled.satisfied };
}
