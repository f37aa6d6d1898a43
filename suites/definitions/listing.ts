/**
 * Reading definitions back. The API has no GET of one definition, so the suite walks
 * GET /definitions (page size 200, bounded). A workspace too large for the walk (a shared
 * staging workspace holding earlier runs' definitions, archived ones included) is read for
 * the definitions the check names instead, one page of one item each, starting just before
 * the id: cursors are boundaries (seed part 8). Paging and envelope rules belong to the
 * pagination and envelope clauses: here a listing that cannot be read makes the calling check
 * not observable (with the reason), never failed, and never passed.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { compareIds, isObject } from '../_shared/json.ts';
import { uuidBefore } from '../_shared/paging-walk.ts';
import { shown } from './support.ts';
import { changedFields } from './violation-map.ts';

/** Pages one walk may read; with 200 per page that is 1000 definitions. */
export const WALK_PAGES = 5;
/** The most one walk costs (one credit per page) when it names no definitions to read instead. */
export const WALK_MAX_CREDITS = WALK_PAGES;
/** The most one walk naming `ids` definitions costs: the capped walk, then a page per id. */
export const walkMaxCredits = (ids: number): number => WALK_MAX_CREDITS + ids;
/** Definitions per page of a walk. */
export const PAGE_LIMIT = 200;
/**
 * What one walk costs while the suite's workspace holds at most PAGE_LIMIT definitions (archived
 * included): one page. That holds for every walk of the suite but the last check's, which the
 * suite runs after the checks that create many (suites/definitions/index.ts).
 */
export const SMALL_WALK_CREDITS = 1;

/** The includeArchived forms a walk can send (absent, or a boolean on the wire). */
export type ArchivedParam = 'absent' | 'true' | 'false';

/** Every listed definition by id, and the exchanges that showed them. */
export interface Listing {
  byId: Map<string, Record<string, unknown>>;
  /** The page that listed each id (evidence for a finding about that item). */
  pageOf: Map<string, Exchange>;
  exchanges: Exchange[];
}

/**
 * Walks GET /definitions from the first page until nextCursor is null.
 * @throws NotObservable when a page is refused, is not the collection envelope, a cursor
 *   repeats, or the walk needs more than WALK_PAGES pages.
 */
export async function listDefinitions(ctx: CheckContext, key: KeyHandle, includeArchived: ArchivedParam, opts: { ids?: readonly string[] } = {}): Promise<Listing> {
  const byId = new Map<string, Record<string, unknown>>();
  const pageOf = new Map<string, Exchange>();
  const exchanges: Exchange[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < WALK_PAGES; page++) {
    const query: Record<string, string | number> = { limit: PAGE_LIMIT };
    if (includeArchived !== 'absent') query.includeArchived = includeArchived;
    if (cursor !== undefined) query.cursor = cursor;
    const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query });
    exchanges.push(ex);
    const body = ex.response?.json;
    const status = ex.response?.status ?? 0;
    if (status < 200 || status >= 300) throw new NotObservable(`the definitions could not be read back: GET /definitions answered ${shown(ex)}`);
    if (!isObject(body) || !Array.isArray(body.items) || !(body.nextCursor === null || typeof body.nextCursor === 'string')) {
      throw new NotObservable(`the definitions could not be read back: GET /definitions did not answer the collection envelope (${shown(ex)})`);
    }
    for (const item of body.items) {
      if (!isObject(item) || typeof item.id !== 'string') continue;
      byId.set(item.id, item);
      pageOf.set(item.id, ex);
    }
    if (body.nextCursor === null) return { byId, pageOf, exchanges };
    if (seen.has(body.nextCursor)) throw new NotObservable(`the definitions could not be read back: nextCursor ${body.nextCursor} repeats`);
    seen.add(body.nextCursor);
    cursor = body.nextCursor;
  }
  if (opts.ids?.length) return probeIds(ctx, key, includeArchived, opts.ids);
  throw new NotObservable(`the definitions could not be read back within ${WALK_PAGES} pages of ${PAGE_LIMIT}: the workspace holds too many`);
}

/**
 * The listing as far as `ids` go: for each, the one-item page after the uuid just before it,
 * which lists the definition itself when the query shows it.
 */
async function probeIds(ctx: CheckContext, key: KeyHandle, includeArchived: ArchivedParam, ids: readonly string[]): Promise<Listing> {
  const byId = new Map<string, Record<string, unknown>>();
  const pageOf = new Map<string, Exchange>();
  const exchanges: Exchange[] = [];
  for (const id of ids) {
    const before = uuidBefore(id);
    if (before === undefined) throw new NotObservable(`the workspace holds too many definitions to walk, and ${id} is no uuid to start a page just before`);
    const query: Record<string, string | number> = { limit: 1, cursor: before };
    if (includeArchived !== 'absent') query.includeArchived = includeArchived;
    const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query });
    exchanges.push(ex);
    const body = ex.response?.json;
    const status = ex.response?.status ?? 0;
    if (status < 200 || status >= 300 || !isObject(body) || !Array.isArray(body.items)) {
      throw new NotObservable(`the workspace holds too many definitions to walk, and the page just before ${id} could not be read: GET /definitions answered ${shown(ex)}`);
    }
    const first = body.items[0];
    if (isObject(first) && typeof first.id === 'string' && compareIds(first.id, id) === 0) {
      byId.set(first.id, first);
      pageOf.set(first.id, ex);
    }
  }
  return { byId, pageOf, exchanges };
}

/**
 * One definition as listed with includeArchived=true; undefined when it is not there.
 * Convenience for checks that read a few ids back after their writes.
 */
export async function readBack(ctx: CheckContext, key: KeyHandle, ids: readonly string[]): Promise<{ found: Map<string, Record<string, unknown>>; listing: Listing }> {
  const listing = await listDefinitions(ctx, key, 'true', { ids });
  const found = new Map<string, Record<string, unknown>>();
  for (const id of ids) {
    const item = listing.byId.get(id);
    if (item) found.set(id, item);
  }
  return { found, listing };
}

/**
 * The stored copy is what a write answered: for each id of `answers`, the listed copy shows
 * the same writable fields (changedFields: what a server moves on its own left out). A finding
 * on `clause` per definition that differs; ids the listing did not show are not judged here.
 */
export function expectListedAsAnswered(ctx: CheckContext, clause: string, answers: ReadonlyMap<string, Record<string, unknown>>, listing: Listing, write: string): void {
  for (const [id, answered] of answers) {
    const listed = listing.byId.get(id);
    if (!listed) continue;
    ctx.judged(clause);
    const changed = changedFields(answered, listed);
    if (changed.length === 0) continue;
    ctx.softFail({
      clause,
      message: `the listed copy of definition ${id} differs from the ${write} answer in ${changed.join(', ')}`,
      expected: JSON.stringify(Object.fromEntries(changed.map((f) => [f, answered[f]]))).slice(0, 300),
      received: JSON.stringify(Object.fromEntries(changed.map((f) => [f, listed[f]]))).slice(0, 300),
      exchange: listing.pageOf.get(id)!,
    });
  }
}
