/**
 * Walking GET /definitions for checks that need to see the whole visible set (the idempotency
 * and pagination suites). Unlike walkCollection (paging.ts), a walk here reports how it ended
 * (complete, cursor loop, page cap) instead of deciding which clause failed: only the caller
 * knows whether a loop is the finding it is looking for (PAGE-006) or a reason it cannot
 * conclude (every other clause). Queries are built as raw strings so that the moduleKeys wire
 * form can be chosen (paging-forms.ts).
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { compareIds, isObject } from './json.ts';
import { pageOf, type Page } from './paging.ts';

/**
 * Pages a bookkeeping walk may take: 10 pages of 200 is 2000 definitions (each page is billed).
 * A workspace others share (keys-only) holds what they left and make, and what the run's other
 * suites make side by side: 5 pages (1000) overflowed there on a loaded machine, where more
 * suites overlap. A walk ends at its last page; the bound only caps a workspace without end.
 */
export const WALK_MAX_PAGES = 10;
/** The largest page the seed allows, used for bookkeeping walks (fewest billed pages). */
export const MAX_LIMIT = 200;

/**
 * Pages a complete walk of `items` visible items takes with `limit` (each page billed): the
 * last page carries nextCursor null, as on the reference target. A server whose walks end on
 * an empty page instead (allowed: the last non-empty page may carry a cursor) takes one more.
 */
export function pagesFor(items: number, limit: number): number {
  return Math.max(1, Math.ceil(items / limit));
}

/** The parameters of one listing. `moduleKeys` is an already-encoded query fragment (paging-forms.ts). */
export interface ListQuery {
  limit?: number;
  includeArchived?: boolean;
  moduleKeys?: string;
}

/** One page of a walk with the cursor it was fetched with (null for the first page). */
export interface WalkPage extends Page {
  cursor: string | null;
}

export interface Walk {
  pages: WalkPage[];
  /** Items of every page that are objects, in the order received. */
  items: Record<string, unknown>[];
  /** complete: nextCursor became null; loop: a cursor came back; capped: maxPages reached. */
  end: 'complete' | 'loop' | 'capped';
}

/** The raw query string of a listing (no leading "?"). */
export function listQuery(q: ListQuery, cursor: string | null = null): string {
  const parts: string[] = [];
  if (q.limit !== undefined) parts.push(`limit=${encodeURIComponent(String(q.limit))}`);
  if (q.includeArchived !== undefined) parts.push(`includeArchived=${String(q.includeArchived)}`);
  if (q.moduleKeys) parts.push(q.moduleKeys);
  if (cursor !== null) parts.push(`cursor=${encodeURIComponent(cursor)}`);
  return parts.join('&');
}

/** The id of a listed item, or undefined. */
export const idOf = (item: unknown): string | undefined => (isObject(item) && typeof item.id === 'string' ? item.id : undefined);

/**
 * pageOf, except that a body nested too deeply to render (its evidence text overflows the
 * stack) is a finding on the clause too, not a harness error.
 */
function readPage(clause: string, ex: Exchange): Page {
  try {
    return pageOf(clause, ex);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const r = ex.response;
    throw new Finding({
      clause,
      message: 'the answer is not a collection envelope (a JSON value nested too deeply to show)',
      expected: '{ items: [...], nextCursor: uuid | null }',
      received: `${r?.status ?? ''} ${(r?.text ?? '').slice(0, 200)}…`,
      exchange: ex,
    });
  }
}

/** How a walk starts and where it stops. */
export interface WalkOptions {
  /** Page cap; default WALK_MAX_PAGES. */
  maxPages?: number;
  /** Start after this cursor instead of at the first page. */
  from?: string | null;
  /** The clause an answer that is not a 2xx collection envelope is a finding for; default ENV-001. */
  envelopeClause?: string;
}

/**
 * Follows nextCursor until it is null. An answer that is not a 2xx collection envelope throws
 * the Finding of pageOf on the envelope clause: callers that do not verify the envelope
 * catch it (the status tells a refused query, 400 or 422, from a broken listing), or use
 * {@link walkOrNotObservable}.
 */
export async function walkDefinitions(ctx: CheckContext, key: KeyHandle, q: ListQuery, opts: WalkOptions = {}): Promise<Walk> {
  const maxPages = opts.maxPages ?? WALK_MAX_PAGES;
  const pages: WalkPage[] = [];
  const seen = new Set<string>();
  let cursor: string | null = opts.from ?? null;
  // Items that are not objects are the envelope check's concern; walks only carry objects.
  const done = (end: Walk['end']): Walk => ({ pages, items: pages.flatMap((p) => p.items).filter(isObject), end });
  for (;;) {
    const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery(q, cursor) });
    const page: WalkPage = { ...readPage(opts.envelopeClause ?? 'ENV-001', ex), cursor };
    pages.push(page);
    const next = page.nextCursor?.toLowerCase() ?? null;
    if (next === null) return done('complete');
    if (seen.has(next) || next === cursor?.toLowerCase()) return done('loop');
    if (pages.length >= maxPages) return done('capped');
    seen.add(next);
    cursor = page.nextCursor;
  }
}

/**
 * A walk for bookkeeping (counting what a mutation did): anything that keeps the walk from
 * listing the whole set is a reason the caller cannot conclude, never a finding of its own.
 * A limit refused as invalid (400 or 422) is retried with the default page size, so a server whose paging is
 * broken elsewhere still lets the caller observe its own clause.
 */
export async function walkOrNotObservable(ctx: CheckContext, key: KeyHandle, q: ListQuery = { limit: MAX_LIMIT }, maxPages = WALK_MAX_PAGES): Promise<Walk> {
  let walk: Walk;
  try {
    walk = await walkDefinitions(ctx, key, q, { maxPages });
  } catch (e) {
    if (!(e instanceof Finding)) throw e;
    const status = e.evidence.exchange?.response?.status;
    if (status !== undefined && INVALID_STATUSES.includes(status) && q.limit !== undefined) return walkOrNotObservable(ctx, key, { ...q, limit: undefined }, maxPages * 4);
    throw new NotObservable(`GET /definitions could not be listed to observe the outcome: ${e.evidence.message} (${e.evidence.received ?? ''})`);
  }
  if (walk.end === 'loop') throw new NotObservable('GET /definitions could not be listed to observe the outcome: a nextCursor repeated (see the pagination suite)');
  if (walk.end === 'capped')
    throw new NotObservable(`GET /definitions could not be listed to observe the outcome: more than ${maxPages} pages (the workspace is too large for this check's credit plan)`);
  return walk;
}

/** Distinct ids of listed items whose `field` equals `value`. */
export function idsWhere(items: readonly Record<string, unknown>[], field: string, value: unknown): string[] {
  const out = new Set<string>();
  for (const item of items) {
    const id = idOf(item);
    if (id !== undefined && item[field] === value) out.add(id.toLowerCase());
  }
  return [...out];
}

/** The uuid just before `id` in ascending order (lower-case), or undefined for the smallest uuid. */
export function uuidBefore(id: string): string | undefined {
  const hex = id.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  const n = BigInt(`0x${hex}`);
  if (n === 0n) return undefined;
  const p = (n - 1n).toString(16).padStart(32, '0');
  return `${p.slice(0, 8)}-${p.slice(8, 12)}-${p.slice(12, 16)}-${p.slice(16, 20)}-${p.slice(20)}`;
}

/**
 * Reads one definition as listed. Cursors are boundaries (seed part 8), so the page after the
 * uuid just before `id` starts with the definition itself: one billed request. When that probe
 * does not show it (a server that refuses unknown cursors, say), a bounded full walk decides.
 * Undefined when the definition is not listed.
 */
export async function findDefinition(ctx: CheckContext, key: KeyHandle, id: string, includeArchived: boolean): Promise<{ item: Record<string, unknown> | undefined; exchange?: Exchange }> {
  const q: ListQuery = includeArchived ? { includeArchived: true } : {};
  const before = uuidBefore(id);
  if (before !== undefined) {
    const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ ...q, limit: 1 }, before) });
    const first = Array.isArray((ex.response?.json as { items?: unknown })?.items) ? (ex.response!.json as { items: unknown[] }).items[0] : undefined;
    if (
      ex.response !== undefined &&
      ex.response.status >= 200 &&
      ex.response.status < 300 &&
      typeof first === 'object' &&
      first !== null &&
      compareIds(String((first as { id?: unknown }).id), id) === 0
    ) {
      return { item: first as Record<string, unknown>, exchange: ex };
    }
  }
  const walk = await walkOrNotObservable(ctx, key, { ...q, limit: MAX_LIMIT });
  const item = walk.items.find((i) => typeof i.id === 'string' && compareIds(i.id, id) === 0);
  const last = walk.pages.at(-1)?.exchange;
  return { item, ...(last ? { exchange: last } : {}) };
}
