/**
 * Cursors are boundaries, not snapshots (seed part 8, PAGE-008): after the first page is read,
 * new definitions are created; the rest of the walk lists only items that sort after their
 * cursor, and the new items that sort after the first cursor appear. New items sorting before
 * it need not (and cannot) appear.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { compareIds, isObject } from '../_shared/json.ts';
import { listQuery, MAX_LIMIT, walkDefinitions, WALK_MAX_PAGES, type Walk } from '../_shared/paging-walk.ts';
import { idsOf, seed, visibleUpTo, WRITER } from './support.ts';

/** Definitions created after the first page, per round (two rounds at most). */
const INSERTS = 4;

export const cursorIsBoundary: CheckDef = {
  id: 'pagination/cursor-is-boundary',
  title: 'After page 1, items inserted after its cursor appear and every later item sorts after its cursor',
  clauses: ['PAGE-008'],
  needs: { mutation: true },
  // Count probe, up to three creates and their clean-up, the first page, two rounds of
  // inserts and their clean-up archives, the rest of the walk.
  credits: 1 + 2 * 3 + 1 + 2 * (2 * INSERTS) + WALK_MAX_PAGES,
  async run(ctx) {
    const key = ctx.key(WRITER);
    const visible = await visibleUpTo(ctx, key, 3);
    if (visible < 3) await seed(ctx, key, 3 - visible, ['customers'], 'boundary');
    // The smallest page puts the cursor low, so that most new ids sort after it; limit=2 if 1 is refused (PAGE-002's concern).
    let first = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ limit: 1 }) });
    if (first.response?.status === 400) first = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ limit: 2 }) });
    const body = first.response?.json;
    const cursor = isObject(body) && typeof body.nextCursor === 'string' ? body.nextCursor : undefined;
    if (cursor === undefined) throw new NotObservable('the first small page has no nextCursor although three items are visible (see PAGE-006 and ENV-001)');

    // A second round of inserts covers the bad luck of every new id sorting before the cursor.
    const inserted: string[] = [];
    for (let round = 0; round < 2 && !inserted.some((id) => compareIds(id, cursor) > 0); round++) {
      inserted.push(...(await seed(ctx, key, INSERTS, ['customers'], 'inserted')).map((k) => k.id.toLowerCase()));
    }
    const expected = inserted.filter((id) => compareIds(id, cursor) > 0);
    if (expected.length === 0) throw new NotObservable(`none of the ${inserted.length} inserted ids sorts after the cursor ${cursor}`);

    let rest: Walk;
    try {
      rest = await walkDefinitions(ctx, key, { limit: MAX_LIMIT }, { from: cursor, maxPages: WALK_MAX_PAGES });
    } catch (e) {
      if (!(e instanceof Finding)) throw e;
      throw new NotObservable(`continuing from the cursor gave no usable page: ${e.evidence.message} (${e.evidence.received ?? ''})`);
    }
    for (const page of rest.pages) {
      const early = idsOf(page.items).find((id) => compareIds(id, page.cursor!) <= 0);
      if (early !== undefined) {
        throw new Finding({
          clause: 'PAGE-008',
          message: `a page fetched with cursor ${page.cursor} lists ${early}, which does not sort after it`,
          expected: `only ids after ${page.cursor}`,
          received: early,
          exchange: page.exchange,
          context: [first],
        });
      }
    }
    if (rest.end !== 'complete') throw new NotObservable(`the rest of the walk did not end (${rest.end}), so whether every inserted item appears cannot be seen`);
    const listed = new Set(idsOf(rest.items));
    const missing = expected.filter((id) => !listed.has(id));
    if (missing.length > 0) {
      throw new Finding({
        clause: 'PAGE-008',
        message: `${missing.length} definition(s) created after page 1, sorting after its cursor, are not listed by the rest of the walk`,
        expected: `${expected.join(', ')} (ids after ${cursor})`,
        received: `missing ${missing.join(', ')}`,
        exchange: rest.pages.at(-1)!.exchange,
        context: [first, ...rest.pages.slice(0, -1).map((p) => p.exchange)],
      });
    }
  },
};
