/**
 * What the faults that only a sequence of calls shows do (faults.ts SEQUENCE_FAULTS, self-test
 * family `sequences`): each call is right on its own, and wrong after others. The sequences suite (suites/sequences) is built to catch
 * them; a scripted check that happens to make the same sequence may too. Each fault is read at
 * one place; the state they keep is per workspace or per record (weak maps: gone with them).
 */
import type { FaultSet } from './faults.ts';
import type { DefinitionRecord, Workspace } from './model.ts';

/** Listings served, per workspace and query, for listing-lags-writes. */
const listings = new WeakMap<Workspace, Map<string, { at: number; body: unknown }>>();

/** A listing served within the last second for `query` (under listing-lags-writes), else undefined; `fresh` is remembered. */
export function laggingListing(faults: FaultSet, ws: Workspace, query: string, fresh: () => unknown): unknown {
  if (!faults.has('listing-lags-writes')) return fresh();
  const cache = listings.get(ws) ?? new Map<string, { at: number; body: unknown }>();
  listings.set(ws, cache);
  const hit = cache.get(query);
  if (hit && Date.now() - hit.at < 1_000) return hit.body;
  const body = fresh();
  cache.set(query, { at: Date.now(), body });
  return body;
}

const patches = new WeakMap<DefinitionRecord, number>();
/** The fault read by noteMerged and restoredByPatch. */
const RESTORES = 'patch-after-merge-restores-value';
const mergedAway = new WeakMap<DefinitionRecord, Set<string>>();

/**
 * Under third-write-drops-enum-values: whether this write (a PATCH or merge-value, counted here
 * after the create) is the definition's third, which drops the values it does not name.
 */
export function writeDropsValues(faults: FaultSet, rec: DefinitionRecord): boolean {
  if (!faults.has('third-write-drops-enum-values')) return false;
  const n = (patches.get(rec) ?? 1) + 1;
  patches.set(rec, n);
  return n === 3;
}

/** Records a merged-away slug (for patch-after-merge-restores-value). */
export function noteMerged(faults: FaultSet, rec: DefinitionRecord, slug: string): void {
  if (!faults.has(RESTORES)) return;
  const set = mergedAway.get(rec) ?? new Set<string>();
  set.add(slug);
  mergedAway.set(rec, set);
}

/** Under patch-after-merge-restores-value: the slugs a PATCH brings back (then forgotten). */
export function restoredByPatch(faults: FaultSet, rec: DefinitionRecord): ReadonlySet<string> {
  if (!faults.has(RESTORES)) return new Set();
  const set = mergedAway.get(rec) ?? new Set<string>();
  mergedAway.delete(rec);
  return set;
}

/** The fault read by the three functions below (one name, read in one place). */
const FORGETS = 'idempotency-forgets-after-requests';
/** Calls answered per workspace, and the count when each key was stored (idempotency-forgets-after-requests). */
const answered = new WeakMap<Workspace, number>();
const storedAt = new WeakMap<object, number>();

/** Counts one call of the workspace (every API call that reached it). */
export function countCall(faults: FaultSet, ws: Workspace): void {
  if (faults.has(FORGETS)) answered.set(ws, (answered.get(ws) ?? 0) + 1);
}

/** Notes when a stored reply was stored. */
export function noteStored(faults: FaultSet, ws: Workspace, stored: object): void {
  if (faults.has(FORGETS)) storedAt.set(stored, answered.get(ws) ?? 0);
}

/** Under idempotency-forgets-after-requests: the stored reply is forgotten three calls after it was stored. */
export function forgotten(faults: FaultSet, ws: Workspace, stored: object): boolean {
  if (!faults.has(FORGETS)) return false;
  return (answered.get(ws) ?? 0) - (storedAt.get(stored) ?? 0) > 3;
}

const lastWrite = new WeakMap<Workspace, number>();

/**
 * Under close-writes-charged-twice: the credits of a successful definition write (`doubled`: a
 * PATCH, archive or merge-value, which is charged twice when close to the previous write).
 */
export function writeCredits(faults: FaultSet, ws: Workspace, credits: number, doubled: boolean): number {
  if (!faults.has('close-writes-charged-twice')) return credits;
  const previous = lastWrite.get(ws);
  lastWrite.set(ws, Date.now());
  return doubled && previous !== undefined && Date.now() - previous < 50 ? credits * 2 : credits;
}

/** The fault read by notePoll and forgottenAfterPoll. */
const POLL_FORGETS = 'poll-forgets-submission-keys';
const polled = new WeakSet<Workspace>();

/** Notes a receipt polled in the workspace (GET /operations/{id}), under poll-forgets-submission-keys. */
export function notePoll(faults: FaultSet, ws: Workspace, surface: string): void {
  if (faults.has(POLL_FORGETS) && surface === 'api:operations.get') polled.add(ws);
}

/** Under poll-forgets-submission-keys: once a receipt of the workspace was polled, its catalog submissions' keys are forgotten. */
export function forgottenAfterPoll(faults: FaultSet, ws: Workspace, surface: string): boolean {
  return faults.has(POLL_FORGETS) && surface === 'api:operations' && polled.has(ws);
}
