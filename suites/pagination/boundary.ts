/**
 * Cursors are boundaries, not snapshots (seed part 8, PAGE-008): after the first page is read,
 * new definitions are created; the rest of the walk lists no item that sorts before its cursor,
 * and the new items that sort after the first cursor appear. New items sorting before it need
 * not (and cannot) appear. Ids are random: the number of requests does not depend on where
 * they fall (one round of inserts), only whether the second half can be judged does.
 *
 * Whether the item the cursor names is itself on the page the cursor fetches, part 8 does not
 * say. A cursor may name the last item delivered (the next page starts after it) or the first
 * item of the next page (inclusive: `id >= cursor`, the common "fetch limit + 1" design); both
 * list every item once. So an item equal to the cursor is a finding only when the page that
 * handed out that cursor already listed it: then the boundary lies after it, and the next page
 * repeats it from before the boundary. Other repeats across pages are PAGE-006's finding.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { compareIds, isObject } from '../_shared/json.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { listQuery, MAX_LIMIT, uuidBefore, walkDefinitions, WALK_MAX_PAGES, type Walk } from '../_shared/paging-walk.ts';
import { archivedIncluded, firstDescent, idsOf, seed, visibleUpTo, WRITER } from './support.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';

/**
 * Visible definitions before the first page (made when missing): the first page's cursor is
 * the lowest of them (or, for an inclusive cursor, the second lowest), so the more there are,
 * the likelier a new id sorts after it.
 */
const VISIBLE = 8;
/**
 * Definitions created after the first page, in one round. With random ids all of them sort
 * before the cursor (then only the first half is judged) with a chance of 1 in
 * C(VISIBLE + INSERTS, INSERTS) = 1 in 12870 for a cursor naming the lowest item, and of
 * (1 + INSERTS) in C(VISIBLE + INSERTS, INSERTS) = 1 in 1430 for an inclusive one. With 5 and 5
 * these were 1 in 252 and 1 in 42: a conformant target with inclusive cursors (the reference's
 * lenient variant) went unobserved often enough to show in the project's tests.
 */
const INSERTS = 8;

/** The smallest page puts the cursor low, so that most new ids sort after it; limit=2 if 1 is refused (PAGE-002's concern). */
async function firstSmallPage(ctx: CheckContext, key: KeyHandle): Promise<Exchange> {
  const first = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ limit: 1 }) });
  if (first.response !== undefined && INVALID_STATUSES.includes(first.response.status)) return ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ limit: 2 }) });
  return first;
}

function cursorOf(page: Exchange): string | undefined {
  const body = page.response?.json;
  return isObject(body) && typeof body.nextCursor === 'string' ? body.nextCursor : undefined;
}

/** The items of a page answer (objects only), or none. */
function itemsOf(body: unknown): Record<string, unknown>[] {
  return isObject(body) && Array.isArray(body.items) ? body.items.filter(isObject) : [];
}

export const cursorIsBoundary: CheckDef = {
  id: 'pagination/cursor-is-boundary',
  title: 'After page 1, items inserted after its cursor appear and no later page lists an item before its cursor (or the one it names, once delivered)',
  clauses: ['PAGE-008'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  // The count probe, the VISIBLE creates (the suite's earlier checks leave no live definition),
  // the first page, the inserts, one page for the rest of the walk, and the clean-up archives.
  credits: 1 + VISIBLE + 1 + INSERTS + 1 + VISIBLE + INSERTS,
  // The rest of the walk over a workspace holding more (or ending on an empty page); a second
  // round of VISIBLE creates, a second first page and their archives when items counted at the
  // start were archived meanwhile by others; a refused limit=1, twice.
  maxCredits: 1 + 2 * VISIBLE + 2 + INSERTS + WALK_MAX_PAGES + 2 * VISIBLE + INSERTS + 2,
  async run(ctx) {
    const key = ctx.key(WRITER);
    const visible = await visibleUpTo(ctx, key, VISIBLE);
    if (visible < VISIBLE) await seed(ctx, key, VISIBLE - visible, ['customers'], 'boundary');
    let first = await firstSmallPage(ctx, key);
    // Items counted but not made here may be archived by checks running beside this one (their
    // clean-up): then the page can be the last one. With VISIBLE of its own, it cannot.
    if (cursorOf(first) === undefined && visible > 0) {
      await seed(ctx, key, VISIBLE, ['customers'], 'boundary');
      first = await firstSmallPage(ctx, key);
    }
    const cursor = cursorOf(first);
    if (cursor === undefined) throw new NotObservable(`the first small page has no nextCursor although ${VISIBLE} items are visible (see PAGE-006 and ENV-001)`);

    const inserted = (await seed(ctx, key, INSERTS, ['customers'], 'inserted')).map((k) => k.id.toLowerCase());
    // When every inserted id sorts before the cursor (random ids: 1 in 12870 for a cursor naming
    // the item delivered, 1 in 1430 for an inclusive one), only the first half is judged: the
    // walk goes on as planned, so the requests and credits stay those of the plan.
    const expected = inserted.filter((id) => compareIds(id, cursor) > 0);

    let rest: Walk;
    try {
      rest = await walkDefinitions(ctx, key, { limit: MAX_LIMIT }, { from: cursor, maxPages: WALK_MAX_PAGES });
    } catch (e) {
      if (!(e instanceof Finding)) throw e;
      throw new NotObservable(`continuing from the cursor gave no usable page: ${e.evidence.message} (${e.evidence.received ?? ''})`);
    }
    // The page that handed out each page's cursor: the first page, then the walk's own pages.
    const handedOut = [first, ...rest.pages.map((p) => p.exchange)];
    for (const [i, page] of rest.pages.entries()) {
      const before = handedOut[i]!;
      const delivered = new Set(idsOf(itemsOf(before.response?.json)));
      ctx.judged('PAGE-008');
      const early = idsOf(page.items).find((id) => compareIds(id, page.cursor!) < 0 || (compareIds(id, page.cursor!) === 0 && delivered.has(id)));
      if (early !== undefined) {
        const at = compareIds(early, page.cursor!) < 0 ? 'which sorts before it' : 'the item the cursor names, which the page that handed out the cursor already listed';
        throw new Finding({
          clause: 'PAGE-008',
          message: `a page fetched with cursor ${page.cursor} lists ${early}, ${at}`,
          expected: `no id before ${page.cursor}, nor the cursor's own item once delivered`,
          received: early,
          exchange: page.exchange,
          context: [before],
        });
      }
    }
    if (expected.length === 0) return;
    if (rest.end === 'loop') throw new NotObservable('the rest of the walk did not end (a cursor came back; see PAGE-006), so whether every inserted item appears cannot be seen');
    // A walk that others' inserts kept going past its page cap is judged as far as it got, in
    // id order: the inserted items up to its last one must be there.
    const ids = idsOf(rest.items);
    const reach = rest.end === 'complete' ? undefined : firstDescent(ids) === undefined ? ids.at(-1) : null;
    if (reach === null)
      throw new NotObservable(`the rest of the walk did not end within ${rest.pages.length} pages and is not in id order (see PAGE-005), so whether every inserted item appears cannot be seen`);
    const inReach = expected.filter((id) => reach === undefined || compareIds(id, reach) <= 0);
    if (inReach.length === 0) throw new NotObservable(`the rest of the walk did not end within ${rest.pages.length} pages, and did not reach the first inserted id after the cursor`);
    const listed = new Set(ids);
    const missing = inReach.filter((id) => !listed.has(id));
    ctx.judged('PAGE-008');
    if (missing.length > 0) {
      throw new Finding({
        clause: 'PAGE-008',
        message: `${missing.length} definition(s) created after page 1, sorting after its cursor, are not listed by the rest of the walk`,
        expected: `${inReach.join(', ')} (ids after ${cursor}${reach === undefined ? '' : `, up to ${reach}, where the walk stopped at its page cap`})`,
        received: `missing ${missing.join(', ')}`,
        exchange: rest.pages.at(-1)!.exchange,
        context: [first, ...rest.pages.slice(0, -1).map((p) => p.exchange)],
      });
    }
  },
};

/**
 * The cursors sent: the uuid just before the 1st and the 5th item after the first of a page
 * (of those whose id does not end in 0), which no item can sort between (nothing sorts
 * strictly between a uuid and the one just before it).
 */
const PICKS = [1, 5] as const;

/**
 * A well-formed cursor that names no current item is a boundary too (part 8 makes cursors
 * boundaries, not pointers to records): the page it fetches starts at the first item after
 * it. A server that looks the cursor up and starts over, or refuses it, when it names nothing
 * breaks walks whose last item was archived meanwhile.
 */
export const unknownCursorIsBoundary: CheckDef = {
  id: 'pagination/unknown-cursor-is-boundary',
  title: 'A well-formed cursor that names no item fetches the page that starts at the first item after it',
  clauses: ['PAGE-008'],
  endpoints: ['listDefinitions'],
  // The includeArchived probe, the first page, one page per cursor (the earlier checks leave
  // more than six definitions visible).
  credits: 1 + 1 + PICKS.length,
  async run(ctx) {
    const key = ctx.key(WRITER);
    // With includeArchived nothing leaves the listing while the check runs.
    const q = await archivedIncluded(ctx, key);
    const first = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ ...q, limit: 10 }) });
    const ids = idsOf(itemsOf(first.response?.json));
    if (ids.length <= PICKS.at(-1)! || firstDescent(ids) !== undefined)
      throw new NotObservable(
        `the first page of 10 lists ${ids.length} items${firstDescent(ids) !== undefined ? ' out of id order (see PAGE-005)' : ''}, so no cursor between two of them can be formed`,
      );
    // Not across a borrow into the uuid's version or variant digits (a strict server may check
    // them): only ids whose predecessor keeps both are picked, past the first (so a restart
    // shows). A borrow reaches them only from fifteen trailing zeros, so nearly every id is
    // eligible (excluding every id ending in 0, as before, left too few one run in a few).
    const keepsVersion = (id: string): boolean => {
      const before = uuidBefore(id);
      const digits = (u: string): string => u.replace(/-/g, '').toLowerCase();
      return before !== undefined && digits(before)[12] === digits(id)[12] && digits(before)[16] === digits(id)[16];
    };
    const eligible = ids.slice(1).filter(keepsVersion);
    if (eligible.length <= PICKS.at(-1)! - 1) throw new NotObservable('too few listed ids to form cursors between them');
    // The cursors formed, up to the first pick that forms none (not observable, once those before it are judged).
    const picked: { target: string; cursor: string }[] = [];
    let unformed: string | undefined;
    for (const i of PICKS) {
      const target = eligible[i - 1]!;
      const cursor = uuidBefore(target);
      if (cursor === undefined || ids.includes(cursor)) {
        unformed = target;
        break;
      }
      picked.push({ target, cursor });
    }
    // Their pages at once (reads), judged in order.
    const pages = await inParallel(picked, CHECK_PARALLEL, ({ cursor }) => ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ ...q, limit: 3 }, cursor) }));
    for (const [n, { target, cursor }] of picked.entries()) {
      const ex = pages[n]!;
      const got = idsOf(itemsOf(ex.response?.json));
      ctx.judged('PAGE-008');
      if (ex.response && ex.response.status < 300 && got[0] === target) continue;
      throw new Finding({
        clause: 'PAGE-008',
        message: `a page fetched with cursor ${cursor}, a uuid no item has, does not start at ${target}, the first item after it`,
        expected: `a 2xx page starting with ${target}`,
        received: ex.response ? `${ex.response.status}, items ${got.slice(0, 3).join(', ') || '(none)'}` : `no response (${ex.error?.kind})`,
        exchange: ex,
        context: [first],
      });
    }
    if (unformed !== undefined) throw new NotObservable(`no cursor could be formed just before ${unformed}`);
  },
};
