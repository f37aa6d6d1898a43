/**
 * Filters apply before the limit (seed part 8, PAGE-007): with archived items (hidden by
 * default) or items of other modules (left out by moduleKeys) between the matching ones, a
 * page is full while matching items remain. What "remain" means is read from a walk with the
 * largest page; a short page is only a finding when a second reference walk agrees.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { compareIds } from '../_shared/json.ts';
import { describeVerdicts, MODULE_KEYS_FORMS, probeForms } from '../_shared/paging-forms.ts';
import { MAX_LIMIT, pagesFor, walkDefinitions, walkOrNotObservable, WALK_MAX_PAGES, type ListQuery, type Walk } from '../_shared/paging-walk.ts';
import { archiveNow, idsOf, seed, WRITER } from './support.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';

/** Items seeded per check. */
const SEEDED = 8;
/** Pages of the walk under test: the limit grows with the visible set so that this bounds the walk. */
const TEST_PAGES = 10;
/** The smallest limit of the walk under test (a page of one cannot be short). */
const SMALL_LIMIT = 2;

/** The ids of `reference` after `cursor` (all of them for the first page). */
const after = (ids: readonly string[], cursor: string | null): string[] => (cursor === null ? [...ids] : ids.filter((id) => compareIds(id, cursor) > 0));

/**
 * Walks `q` with a small limit and fails PAGE-007 for the first page that holds fewer items
 * than the limit while more matching items (per the reference walks) sort after its cursor.
 */
async function expectFullPages(ctx: CheckContext, key: KeyHandle, q: ListQuery, what: string): Promise<void> {
  // A reference walk others keep inserting into past its page cap is what it saw up to its last
  // id: pages are then judged against fewer matching items, never more.
  const reference = async (): Promise<string[]> => {
    let walk: Walk;
    try {
      walk = await walkDefinitions(ctx, key, { ...q, limit: MAX_LIMIT }, { maxPages: WALK_MAX_PAGES });
    } catch (e) {
      if (!(e instanceof Finding)) throw e;
      return idsOf((await walkOrNotObservable(ctx, key, { ...q, limit: MAX_LIMIT })).items);
    }
    if (walk.end === 'loop') throw new NotObservable(`the reference walk with limit=${MAX_LIMIT} did not end (a cursor came back; see PAGE-006)`);
    return idsOf(walk.items);
  };
  let matching = await reference();
  const limit = Math.max(SMALL_LIMIT, Math.ceil(matching.length / TEST_PAGES));
  let walk: Walk;
  try {
    walk = await walkDefinitions(ctx, key, { ...q, limit }, { maxPages: 3 * TEST_PAGES + 2 });
  } catch (e) {
    if (!(e instanceof Finding)) throw e;
    throw new NotObservable(`GET /definitions gave no usable page with limit=${limit}: ${e.evidence.message} (${e.evidence.received ?? ''})`);
  }
  // Pages are judged as far as the walk got: short pages are exactly what makes a walk long.
  let rechecked = false;
  for (let i = 0; i < walk.pages.length; i++) {
    const page = walk.pages[i]!;
    let expected = Math.min(limit, after(matching, page.cursor).length);
    ctx.judged('PAGE-007');
    if (page.items.length >= expected) continue;
    if (!rechecked) {
      // Only items both reference walks list count as remaining: the workspace may have changed.
      const again = new Set(await reference());
      matching = matching.filter((id) => again.has(id));
      rechecked = true;
      expected = Math.min(limit, after(matching, page.cursor).length);
      if (page.items.length >= expected) continue;
    }
    throw new Finding({
      clause: 'PAGE-007',
      message: `page ${i + 1} of ${what} with limit=${limit} holds ${page.items.length} items while ${after(matching, page.cursor).length} matching items sort after its cursor`,
      expected: `${expected} items (the page is full while matching items remain)`,
      received: `${page.items.length} items`,
      exchange: page.exchange,
      context: walk.pages.slice(0, i).map((p) => p.exchange),
    });
  }
  // A walk that others' inserts kept going past its page cap had every page judged.
  if (walk.end === 'loop') throw new NotObservable(`the walk with limit=${limit} did not end (a cursor came back; see PAGE-006), and its first ${walk.pages.length} pages were full`);
}

export const visibilityBeforeLimit: CheckDef = {
  id: 'pagination/visibility-before-limit',
  title: 'With archived definitions between visible ones, pages are full while visible items remain',
  clauses: ['PAGE-007'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  // Creates, archives of half of them, the reference walk (one page: the suite's earlier checks
  // leave no live definition), the walk under test over the half still visible, and the
  // clean-up archives of that half (archiving the other half again is refused, which is free).
  credits: SEEDED + SEEDED / 2 + 1 + pagesFor(SEEDED / 2, SMALL_LIMIT) + SEEDED / 2,
  // A second archive may be accepted; walks over a workspace holding more (up to TEST_PAGES + 1
  // pages for the walk under test).
  maxCredits: SEEDED + SEEDED / 2 + SEEDED + WALK_MAX_PAGES + TEST_PAGES + 1,
  async run(ctx) {
    const key = ctx.key(WRITER);
    const made = await seed(ctx, key, SEEDED, ['customers'], 'hidden');
    // Every other one in id order: archived and visible items interleave.
    const sorted = made.map((m) => m.id).sort(compareIds);
    await inParallel(
      sorted.filter((_, i) => i % 2 === 0),
      CHECK_PARALLEL,
      (id) => archiveNow(ctx, key, id),
    );
    await expectFullPages(ctx, key, {}, 'the default listing');
  },
};

export const moduleFilterBeforeLimit: CheckDef = {
  id: 'pagination/module-filter-before-limit',
  title: 'With definitions of other modules between matching ones, moduleKeys pages are full while matching items remain',
  clauses: ['PAGE-007'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  // Creates and their clean-up, a walk per wire form (each filters on the reference: one page),
  // the reference walk (one page) and the walk under test over the SEEDED / 2 partners.
  credits: 2 * SEEDED + MODULE_KEYS_FORMS.length + 1 + pagesFor(SEEDED / 2, SMALL_LIMIT),
  // Walks over a workspace holding more (up to TEST_PAGES + 1 pages for the walk under test).
  maxCredits: 2 * SEEDED + MODULE_KEYS_FORMS.length * WALK_MAX_PAGES + WALK_MAX_PAGES + TEST_PAGES + 1,
  async run(ctx) {
    const key = ctx.key(WRITER);
    const known = await seed(ctx, key, SEEDED, ['partners', 'vendors'], 'modules');
    const verdicts = await probeForms(ctx, key, { keys: ['partners'], known });
    const form = verdicts.find((v) => v.kind === 'filters')?.form;
    if (!form) throw new NotObservable(`no wire form of moduleKeys filters (${describeVerdicts(verdicts)}; see DEF-023)`);
    await expectFullPages(ctx, key, { moduleKeys: form.encode(['partners']) }, `moduleKeys in the form ${form.name}`);
  },
};
