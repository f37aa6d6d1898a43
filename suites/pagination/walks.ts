/**
 * Walking the whole listing (seed part 8): items ascend by id within and across pages
 * (PAGE-005), and following nextCursor until null yields every visible item exactly once, the
 * same set as a walk with limit 200, whatever the limit (PAGE-006, a property over the
 * generated limits). The workspace may hold other data and other clients may change it while
 * the check walks (a shared staging workspace, the other suites of a keys-only run), so only
 * what holds whatever else appears or disappears meanwhile is judged:
 *
 * - an item listed twice within one walk;
 * - an item both reference walks list (before and after the walk: visible throughout, since
 *   nothing brings an archived definition back) that the walk leaves out;
 * - one of the check's own definitions, archived before the walk began, that the walk lists;
 * - in a workspace of the suite's own (test-control protocol), any item neither reference walk
 *   lists.
 *
 * In a shared workspace, somebody else's item that shows up in one walk only (created and
 * archived meanwhile) proves nothing and is never a finding.
 * Each generated case walks a fixed number of pages, so the check's credits do not depend on
 * the limits drawn (the seed).
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { judged } from '../../src/engine/judged.ts';
import { checkPropertyTrial } from '../../src/engine/property.ts';
import { parameterArbitraries, validValue } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { MAX_LIMIT, pagesFor, walkDefinitions, WALK_MAX_PAGES, type Walk } from '../_shared/paging-walk.ts';
import { compareIds } from '../_shared/json.ts';
import { archiveNow, duplicates, exchangeListing, firstDescent, idsOf, seed, WRITER } from './support.ts';
import { CHECK_PARALLEL, inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';

/** Visible items the walks need: enough for several pages at small limits. */
const MIN_VISIBLE = 12;
/**
 * Pages each generated case walks, exactly: the case draws this many limits and walks them in
 * turn, each raised just enough for its walk to fit in the pages left, until they are used up.
 * Over 12 items the first walk of a case may take all six (limit 2); the others fill what it
 * left. Whatever the limits drawn, a case costs the same.
 */
const PAGES_PER_CASE = 6;
/**
 * The check's own definitions archived before any walk: a walk with any limit must never list
 * them (an archived item leaking into later pages, say, where only the first page filters).
 */
const ARCHIVED = 4;

/** A walk of the whole visible set with the largest page; a walk that does not end is itself a finding. */
async function referenceWalk(ctx: CheckContext, key: KeyHandle): Promise<{ walk: Walk; ids: Set<string> }> {
  const walk = await walkOrSkip(ctx, key, MAX_LIMIT, WALK_MAX_PAGES);
  if (!walk) throw new NotObservable(`GET /definitions?limit=${MAX_LIMIT} was refused, so there is no reference walk`);
  // Capped (others adding items as fast as it walks, say), it is what was seen so far: walks
  // under test are judged against the items it did list.
  judgeEnd(walk, MAX_LIMIT, true);
  return { walk, ids: new Set(idsOf(walk.items)) };
}

/** Walks with `limit`; undefined when the target refuses that limit (PAGE-002's concern). */
async function walkOrSkip(ctx: CheckContext, key: KeyHandle, limit: number, maxPages: number): Promise<Walk | undefined> {
  try {
    return await walkDefinitions(ctx, key, { limit }, { maxPages });
  } catch (e) {
    if (!(e instanceof Finding)) throw e;
    const status = e.evidence.exchange?.response?.status;
    if (status !== undefined && INVALID_STATUSES.includes(status) && e.evidence.exchange!.request.url.includes('limit=') && !e.evidence.exchange!.request.url.includes('cursor=')) return undefined;
    throw new NotObservable(`GET /definitions gave no usable page while walking: ${e.evidence.message}`);
  }
}

/**
 * A cursor loop, or pages past the cap that repeat items, are PAGE-006 findings; a plain cap
 * is not observable, unless `partialOk` (the caller judges the pages it got).
 */
function judgeEnd(walk: Walk, limit: number, partialOk = false): void {
  const last = walk.pages.at(-1)!.exchange;
  // The walk's end and its repeats are looked at (a walk's completeness is walkWith's).
  judged('PAGE-006');
  if (walk.end === 'loop') {
    throw new Finding({
      clause: 'PAGE-006',
      message: `with limit=${limit} a nextCursor came back: the walk would never end`,
      expected: 'new cursors until null',
      received: `${walk.pages.length} pages, cursor ${String(walk.pages.at(-1)!.nextCursor)} again`,
      exchange: last,
    });
  }
  const dup = duplicates(idsOf(walk.items));
  if (dup.length > 0) {
    throw new Finding({
      clause: 'PAGE-006',
      message: `with limit=${limit} the walk listed ${dup.length} item(s) more than once`,
      expected: 'every item exactly once',
      received: dup.slice(0, 5).join(', '),
      exchange: exchangeListing(walk.pages.slice(1), dup[0]!) ?? last,
    });
  }
  if (walk.end === 'capped' && !partialOk) throw new NotObservable(`with limit=${limit} the walk did not end within ${walk.pages.length} pages (more items than the check's credit plan covers)`);
}

export const walkOrderAndCompleteness: CheckDef = {
  id: 'pagination/walk-order-and-completeness',
  title: 'Walking nextCursor lists every visible item exactly once, ascending by id, whatever the limit',
  clauses: ['PAGE-005', 'PAGE-006'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  // The ARCHIVED creates and their archives (archiving them again at clean-up is refused:
  // free); the suite's earlier checks leave no live definition: one page for the first
  // reference walk, the MIN_VISIBLE creates (and their clean-up archives), one page for the
  // second; then PAGES_PER_CASE pages per generated case.
  credits: (numRuns) => 2 * ARCHIVED + 2 + 2 * MIN_VISIBLE + numRuns * PAGES_PER_CASE,
  // A second archive may be accepted; reference walks of up to WALK_MAX_PAGES over a workspace
  // holding more; a server whose walks end on an empty page takes one more page per walk (a
  // case walks at most PAGES_PER_CASE times).
  maxCredits: (numRuns) => 3 * ARCHIVED + 2 * WALK_MAX_PAGES + 2 * MIN_VISIBLE + numRuns * 2 * PAGES_PER_CASE,
  async run(ctx) {
    const key = ctx.key(WRITER);
    // The check's own hidden items first: archived before any walk starts.
    const hidden = new Set<string>();
    const toHide = await seed(ctx, key, ARCHIVED, ['customers'], 'walk-hidden');
    await inParallel(toHide, CHECK_PARALLEL, ({ id }) => archiveNow(ctx, key, id));
    for (const { id } of toHide) hidden.add(id.toLowerCase());
    // The first reference walk comes before seeding: a cursor loop is a finding even where
    // definitions cannot be created.
    let reference = await referenceWalk(ctx, key);
    if (reference.ids.size < MIN_VISIBLE) {
      try {
        await seed(ctx, key, MIN_VISIBLE - reference.ids.size, ['customers'], 'walk');
      } catch (e) {
        // Walk what is there; with nothing at all, no walk can show anything.
        if (!(e instanceof NotObservable) || reference.ids.size === 0) throw e;
      }
      reference = await referenceWalk(ctx, key);
    }
    const limit = validValue(parameterArbitraries(await loadSpec(), 'listDefinitions', 'query').schema.properties!.limit!) as fc.Arbitrary<number>;
    // A case: as many limits as it has pages (each walk takes at least one).
    const limits = fc.tuple(...Array.from({ length: PAGES_PER_CASE }, () => limit));

    let orderReported = false;
    let completeWalks = 0;
    const judgeOrder = (walk: Walk, limit: number): void => {
      const ids = idsOf(walk.items);
      const at = firstDescent(ids);
      ctx.judged('PAGE-005');
      if (at === undefined || orderReported) return;
      orderReported = true;
      const page = walk.pages.find((p) => idsOf(p.items).includes(ids[at]!))!;
      ctx.softFail({
        clause: 'PAGE-005',
        message: `with limit=${limit} item ${ids[at]} is listed after ${ids[at - 1]}, which sorts after it`,
        expected: 'ids ascending within and across pages',
        received: `${ids[at - 1]} then ${ids[at]}`,
        exchange: page.exchange,
        seed: ctx.run.seed,
        counterexample: JSON.stringify({ limit }),
      });
    };
    judgeOrder(reference.walk, MAX_LIMIT);

    /**
     * One walk under test, judged against the reference walk. In a trial (cases side by side)
     * nothing is judged or changed: anything that would be throws, and the cases are walked
     * again one at a time. Returns whether the walk was seen whole.
     */
    const walkWith = async (limit: number, pages: number, trial = false): Promise<boolean> => {
      const walk = await walkOrSkip(ctx, key, limit, 3 * (pages + 1) + 2);
      if (!walk) return false;
      // A walk that others' inserts made longer than its page budget is judged as far as it
      // got: in id order, it must have listed what was visible throughout up to there.
      judgeEnd(walk, limit, true);
      const ids = idsOf(walk.items);
      if (trial) {
        const listed = new Set(ids);
        // What one at a time would judge: the order, the reference set whole, nothing else, and none of the check's archived items.
        const whole = walk.end === 'complete' && firstDescent(ids) === undefined && [...reference.ids].every((id) => listed.has(id)) && ids.every((id) => reference.ids.has(id) && !hidden.has(id));
        if (!whole) throw new Error('a walk of the trial was not clean');
        // Seen in order and whole: what one at a time would judge.
        ctx.judged('PAGE-005');
        ctx.judged('PAGE-006');
        return true;
      }
      judgeOrder(walk, limit);
      const reach = walk.end === 'complete' ? undefined : firstDescent(ids) === undefined ? ids.at(-1) : null;
      if (walk.end === 'complete') completeWalks++;
      const listed = new Set(ids);
      // Listed although archived before the walk began: whatever anybody else did meanwhile.
      const leaked = [...listed].filter((id) => hidden.has(id));
      const inReach = (id: string): boolean => reach === undefined || (reach !== null && compareIds(id, reach) <= 0);
      let missing = [...reference.ids].filter((id) => !listed.has(id) && inReach(id));
      // In a workspace of its own, with no other writer, any item no reference walk lists is
      // one too many; in a shared one it may be somebody else's, created and archived meanwhile.
      let extra = ctx.run.sharedWorkspace ? [] : [...listed].filter((id) => !reference.ids.has(id) && !hidden.has(id));
      if (missing.length > 0 || extra.length > 0) {
        // Only items both reference walks list were visible throughout the walk.
        const again = await referenceWalk(ctx, key);
        missing = missing.filter((id) => again.ids.has(id));
        extra = extra.filter((id) => !again.ids.has(id));
        reference = again;
      }
      const wrong = [...leaked.map((id) => `archived ${id}`), ...extra.map((id) => `unlisted ${id}`)];
      ctx.judged('PAGE-006');
      if (missing.length === 0 && wrong.length === 0) return walk.end === 'complete';
      const problems = [
        ...(missing.length ? [`left out ${missing.length} item(s) visible before and after it`] : []),
        ...(leaked.length ? [`listed ${leaked.length} definition(s) archived before it began`] : []),
        ...(extra.length ? [`listed ${extra.length} item(s) no limit=${MAX_LIMIT} walk lists`] : []),
      ];
      throw new Finding({
        clause: 'PAGE-006',
        message: `with limit=${limit} the walk ${problems.join(' and ')}`,
        expected: `every item visible throughout the walk, each once, and no other (${reference.ids.size} items in the limit=${MAX_LIMIT} walk)`,
        received: `${missing.length ? `missing ${missing.slice(0, 5).join(', ')} ` : ''}${wrong.slice(0, 5).join(', ')} (${walk.pages.length} pages)`,
        exchange: (leaked.length ? exchangeListing(walk.pages, leaked[0]!) : undefined) ?? walk.pages.at(-1)!.exchange,
        context: walk.pages
          .slice(0, -1)
          .map((p) => p.exchange)
          .slice(0, 10),
      });
    };

    /** One case: its limits walked in turn; returns how many walks were seen whole. */
    const walkCase = async (drawn: readonly number[], trial = false): Promise<number> => {
      let left = PAGES_PER_CASE;
      let whole = 0;
      for (const l of drawn) {
        if (left === 0) break;
        // Raised just enough to fit the pages left (bounded credits on a large workspace too).
        const limit = Math.max(l, Math.ceil(reference.ids.size / left));
        const pages = pagesFor(reference.ids.size, limit);
        left -= pages;
        if (await walkWith(limit, pages, trial)) whole++;
      }
      return whole;
    };
    // The cases are independent reads of the same listing: a trial walks them WIDE_PARALLEL
    // at a time, taken only when every walk it made listed the reference set whole and in order
    // (a refused limit is skipped, as one case at a time skips it); anything else to judge, and
    // the cases are walked again one at a time as the property (checkPropertyTrial).
    const trial = await checkPropertyTrial(
      ctx,
      {
        clause: 'PAGE-006',
        arbitrary: limits,
        predicate: async (drawn) => {
          await walkCase(drawn);
          return true;
        },
      },
      { n: WIDE_PARALLEL, run: (drawn) => walkCase(drawn, true) },
    );
    if (trial) completeWalks += trial.reduce((a, b) => a + b, 0);
    if (completeWalks === 0) throw new NotObservable('no walk under test ended within its page budget (others kept adding items), so no walk was seen whole');
  },
};
