/**
 * Shared by the pagination checks: the cast names, seeding definitions (the visible set is
 * reasoned about from a walk, never assumed empty: other data may be there), and readers of
 * ids and their order.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { minimalCreateBody, uniqueName, type ModuleKey } from '../_shared/definitions.ts';
import { brief, compareIds, isObject } from '../_shared/json.ts';
import type { KnownItem } from '../_shared/paging-forms.ts';
import { idOf, listQuery, type ListQuery } from '../_shared/paging-walk.ts';
import { inParallel } from '../_shared/parallel.ts';

/** Owner key with admin + graph:read: creates what the paging checks look at. */
export const WRITER = 'writer';
/** Key with exactly graph:read: the read-only checks. */
export const READER = 'reader';

/**
 * Creates of one seeding in flight at once (the run's in-flight bound still caps them): the
 * suite's definitions go out in one or two waves (51 for the default page, 97 for the full
 * pages), not two to four of WIDE_PARALLEL, on the run's longest lane when the target is far.
 */
const SEED_PARALLEL = 64;

/**
 * Creates `count` definitions whose module keys cycle through `modules`, SEED_PARALLEL at a
 * time; each is archived at clean-up (one billed call each), as many at a time. A refused
 * create leaves the check not observable (no create after it is started): creating definitions
 * is the definitions suite's concern.
 */
export async function seed(ctx: CheckContext, key: KeyHandle, count: number, modules: readonly ModuleKey[] = ['customers'], hint = 'page'): Promise<KnownItem[]> {
  const made: string[] = [];
  // One clean-up, archiving every definition made together.
  ctx.cleanup(async () => {
    await inParallel(made, SEED_PARALLEL, (id) => ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'conformance run clean-up' } }));
  });
  const modulesInTurn = Array.from({ length: count }, (_, i) => modules[i % modules.length]!);
  return inParallel(modulesInTurn, SEED_PARALLEL, async (moduleKey) => {
    const ex = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx, { name: uniqueName(ctx, hint), moduleKey }) });
    const body = ex.response?.json;
    const id = ex.response && ex.response.status < 300 && isObject(body) && typeof body.id === 'string' ? body.id : undefined;
    if (id === undefined) throw new NotObservable(`could not create the definitions the check needs (${ex.response?.status ?? ex.error?.kind}: ${brief(ex.response?.json ?? ex.response?.text)})`);
    made.push(id);
    return { id, module_key: moduleKey };
  });
}

/**
 * The listing query with includeArchived=true where the target accepts it (one page of one
 * item, billed), else none: with archived definitions listed, nothing leaves the listing while
 * a check runs (nothing un-archives), and archived leftovers count as items.
 */
export async function archivedIncluded(ctx: CheckContext, key: KeyHandle): Promise<ListQuery> {
  const probe = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ limit: 1, includeArchived: true }) });
  return probe.response !== undefined && probe.response.status >= 200 && probe.response.status < 300 ? { includeArchived: true } : {};
}

/** Archives one definition now; the check cannot go on if it is refused. */
export async function archiveNow(ctx: CheckContext, key: KeyHandle, id: string): Promise<void> {
  const ex = await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'paging check: hidden item' } });
  if (!ex.response || ex.response.status >= 300) throw new NotObservable(`could not archive definition ${id} (${ex.response?.status ?? ex.error?.kind})`);
}

/**
 * How many items one page of `q` lists (at most `atLeast`): enough to tell whether `atLeast`
 * visible items exist without walking everything.
 */
export async function visibleUpTo(ctx: CheckContext, key: KeyHandle, atLeast: number, q: ListQuery = {}): Promise<number> {
  const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ ...q, limit: atLeast }) });
  const body = ex.response?.json;
  if (!ex.response || ex.response.status >= 300 || !isObject(body) || !Array.isArray(body.items)) {
    throw new NotObservable(`GET /definitions?limit=${atLeast} gave no usable page (${ex.response?.status ?? ex.error?.kind})`);
  }
  return Math.min(body.items.length, atLeast);
}

/** Lower-cased ids of items, in order (items without a string id are left out). */
export function idsOf(items: readonly Record<string, unknown>[]): string[] {
  return items
    .map(idOf)
    .filter((id): id is string => id !== undefined)
    .map((id) => id.toLowerCase());
}

/** The first place where `ids` goes down (ids[i] sorts before ids[i - 1]), or undefined. */
export function firstDescent(ids: readonly string[]): number | undefined {
  for (let i = 1; i < ids.length; i++) if (compareIds(ids[i]!, ids[i - 1]!) < 0) return i;
  return undefined;
}

/** Ids listed more than once. */
export function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const id of ids) (seen.has(id) ? dup : seen).add(id);
  return [...dup];
}

/** The exchange that listed `id` first, for evidence. */
export function exchangeListing(pages: readonly { items: Record<string, unknown>[]; exchange: Exchange }[], id: string): Exchange | undefined {
  return pages.find((p) => idsOf(p.items).includes(id))?.exchange;
}
