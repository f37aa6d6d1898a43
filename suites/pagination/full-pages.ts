/**
 * Full pages (seed 4.3 limit, part 8): with more visible items than the limit, a page holds
 * exactly `limit` items, for every limit up to 200 (a server capping pages below 200 passes
 * "never more than the limit"; this is the other side), and other workspaces' records never
 * shorten a page (the workspace filter applies before the limit).
 *
 * The checks make sure more than 200 definitions are visible (creating only what is missing),
 * then ask for pages at the edges of the limit's range and at generated limits in between.
 * With includeArchived=true nothing un-lists an item (nothing un-archives, and nothing is
 * deleted through the API), so the count only grows while the check runs, even in a shared
 * workspace; without it (or where the probe of includeArchived failed) it may dip, so a short
 * page is recounted and asked again before it is judged.
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkPropertyTrial } from '../../src/engine/property.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { idOf, listQuery, MAX_LIMIT, type ListQuery } from '../_shared/paging-walk.ts';
import { archivedIncluded, seed, WRITER } from './support.ts';
import { otherWorkspace } from '../auth/support.ts';
import { inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';

/** More visible items than the largest limit. */
const NEEDED = MAX_LIMIT + 1;
/** The limits every run asks for: both ends of the range and the neighbours of the usual caps. */
const EDGE_LIMITS = [1, 2, 49, 50, 51, 99, 100, 101, 199, 200] as const;
/**
 * Pages the count reads at most: NEEDED items take two pages of 200, three of a server that caps
 * pages at 100, six of one that caps them at 40. A count that stops early counts what it saw.
 */
const COUNT_PAGES = 6;

/**
 * What the pagination suite's earlier checks leave visible (archived included) in its own
 * workspace on the reference when this check starts (measured: the credit-plan test holds the
 * plan to it), so the creates this check still makes are known and its plan exact.
 */
export const VISIBLE_BEFORE = 104;

/**
 * How many definitions `q` lists, counted up to NEEDED: the distinct items of at most
 * COUNT_PAGES pages of 200. Only items seen count. A walk that goes on past its pages does not
 * prove more: a server may give a short page a cursor (the trailing-cursor reading), and where
 * ids grow with time others' new records keep filling the pages after it.
 */
async function countUpTo(ctx: CheckContext, key: KeyHandle, q: ListQuery): Promise<number> {
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < COUNT_PAGES; page++) {
    const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ ...q, limit: MAX_LIMIT }, cursor) });
    const body = ex.response?.json;
    // PAGE-002's and ENV-001's findings where the listing does not answer a page of 200.
    if (!is2xx(ex) || !isObject(body) || !Array.isArray(body.items))
      throw new NotObservable(`the definitions could not be counted: GET /definitions answered ${ex.response?.status ?? ex.error?.kind}`);
    for (const item of body.items) {
      const id = idOf(item);
      if (id !== undefined) seen.add(id);
    }
    if (seen.size >= NEEDED) return NEEDED;
    if (typeof body.nextCursor !== 'string' || body.items.length === 0) break;
    cursor = body.nextCursor;
  }
  return seen.size;
}

/** Makes sure more than 200 definitions are visible; returns the query to page with. */
async function moreThanAPage(ctx: CheckContext, key: KeyHandle): Promise<ListQuery> {
  const q = await archivedIncluded(ctx, key);
  const visible = await countUpTo(ctx, key, q);
  if (visible < NEEDED) await seed(ctx, key, NEEDED - visible, ['customers'], 'fullpage');
  return q;
}

/** How many items one page of `limit` holds; undefined when it is not a 2xx collection (PAGE-002's and ENV-001's findings). */
async function pageSize(ctx: CheckContext, key: KeyHandle, q: ListQuery, limit: number): Promise<{ ex: Exchange; size?: number }> {
  const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery({ ...q, limit }) });
  const body = ex.response?.json;
  return is2xx(ex) && isObject(body) && Array.isArray(body.items) ? { ex, size: body.items.length } : { ex };
}

/** Not observable: the listing held a page or less at some point while the check judged a page. */
const CHANGED_UNDER_IT = 'fewer than 201 definitions stayed visible while the check listed them (the workspace changed under it)';

/**
 * Asks for one page of `limit` items: fewer is a finding on `clause`. With includeArchived the
 * count only grows, so the page is judged as it is. Without it others' archives un-list items,
 * and in a shared workspace the count goes down and up again while many write at once (the
 * keys-only runs: clean-ups of one suite, creates of another): a short page is judged only once
 * a recount shows more than a page, the page asked again is short again, and a second recount
 * still shows more than a page. A refused limit is PAGE-002's finding, not judged here.
 */
async function expectFullPage(ctx: CheckContext, key: KeyHandle, q: ListQuery, limit: number, clause: string, what: string, context: Exchange[] = []): Promise<void> {
  const first = await pageSize(ctx, key, q, limit);
  if (first.size === undefined) return;
  ctx.judged(clause);
  if (first.size >= limit) return;
  let ex = first.ex;
  let size: number | undefined = first.size;
  if (!q.includeArchived) {
    if ((await countUpTo(ctx, key, q)) < NEEDED) throw new NotObservable(CHANGED_UNDER_IT);
    ({ ex, size } = await pageSize(ctx, key, q, limit));
    if (size === undefined || size >= limit) return;
    if ((await countUpTo(ctx, key, q)) < NEEDED) throw new NotObservable(CHANGED_UNDER_IT);
  }
  throw new Finding({
    clause,
    message: `a page asked with limit=${limit} holds ${size} items while more than ${MAX_LIMIT} are visible${what}`,
    expected: `${limit} items`,
    received: `${size} items`,
    exchange: ex,
    ...(ex !== first.ex || context.length > 0 ? { context: ex !== first.ex ? [first.ex, ...context] : context } : {}),
  });
}

/** A limit strictly inside 1..200, for the generated cases. */
const interior = fc.integer({ min: 1, max: MAX_LIMIT });

export const fullPages: CheckDef = {
  id: 'pagination/full-pages',
  title: 'With more than 200 definitions visible, a page holds exactly its limit, for every limit from 1 to 200',
  clauses: ['PAGE-011'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  // The includeArchived probe, the count (one page), the missing creates and their clean-up
  // archives, a page per edge limit and per generated limit.
  credits: (numRuns) => 1 + 1 + 2 * (NEEDED - VISIBLE_BEFORE) + EDGE_LIMITS.length + numRuns,
  // A count of up to COUNT_PAGES pages; every create where the count saw none (a capped or broken
  // listing); without includeArchived, per short page two recounts and the page asked again.
  maxCredits: (numRuns) => 1 + COUNT_PAGES + 2 * NEEDED + 2 * (EDGE_LIMITS.length + numRuns) * (1 + COUNT_PAGES),
  async run(ctx) {
    const key = ctx.key(WRITER);
    const q = await moreThanAPage(ctx, key);
    // The edge pages are asked together; the first short one in order is the finding.
    await inParallel(EDGE_LIMITS, WIDE_PARALLEL, (limit) => expectFullPage(ctx, key, q, limit, 'PAGE-011', ''));
    // The generated limits side by side too; one at a time as the property where a page is short.
    const predicate = (limit: number) => expectFullPage(ctx, key, q, limit, 'PAGE-011', '');
    await checkPropertyTrial(ctx, { clause: 'PAGE-011', arbitrary: interior, predicate }, { n: WIDE_PARALLEL, run: predicate });
  },
};

/** Definitions made in the second workspace, interleaving with the key's own by id. */
const FOREIGN = 30;

export const workspaceFilterBeforeLimit: CheckDef = {
  id: 'pagination/workspace-filter-before-limit',
  title: 'Definitions of another workspace never shorten a page: the workspace filter applies before the limit',
  clauses: ['PAGE-012'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true, control: true },
  // The includeArchived probe, the count (two pages: pagination/full-pages, just before, left
  // more than 200), the other workspace's creates (its ledger; it is deleted at clean-up), and
  // a page per edge limit before and after.
  credits: 1 + 2 + FOREIGN + 2 * EDGE_LIMITS.length,
  // A count over two pages, the missing creates and archives, and per limit the page before; per
  // short page after, two recounts and the page asked again.
  maxCredits: 1 + COUNT_PAGES + 2 * NEEDED + FOREIGN + EDGE_LIMITS.length * (3 + 2 * COUNT_PAGES),
  async run(ctx) {
    const key = ctx.key(WRITER);
    const q = await moreThanAPage(ctx, key);
    // Limits whose page is already short before another workspace has anything are PAGE-011's
    // finding: only those full now are judged once the other workspace's records exist.
    const full: number[] = [];
    const sizes = await inParallel(EDGE_LIMITS, WIDE_PARALLEL, (limit) => pageSize(ctx, key, q, limit));
    for (const [i, limit] of EDGE_LIMITS.entries()) if ((sizes[i]!.size ?? 0) >= limit) full.push(limit);
    if (full.length === 0) throw new NotObservable('no page was full before the other workspace had records (see PAGE-011), so the workspace filter cannot be told apart');
    const { key: theirs } = await otherWorkspace(ctx, ['admin', 'graph:read']);
    const created = await inParallel(
      Array.from({ length: FOREIGN }, (_, i) => i),
      WIDE_PARALLEL,
      async () => {
        const ex = await ctx.api.send({ method: 'POST', path: '/definitions', key: theirs, body: minimalCreateBody(ctx) });
        if (!is2xx(ex)) throw new NotObservable(`the second workspace could not create its definitions (${ex.response?.status ?? ex.error?.kind})`);
        return ex;
      },
    );
    await inParallel(full, WIDE_PARALLEL, (limit) => expectFullPage(ctx, key, q, limit, 'PAGE-012', ` and ${FOREIGN} of another workspace interleave with them by id`, created.slice(0, 3)));
  },
};
