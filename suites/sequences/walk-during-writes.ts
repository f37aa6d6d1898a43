/**
 * A walk during writes (issue 29 item 3): a walk of the definition listing one item a page,
 * each page's request released in an order fast-check's scheduler draws among the releases of
 * two creates and a PATCH on the same collection. Cursors are boundaries, not snapshots (part
 * 8): a definition created during the walk may be listed or not, but every definition visible
 * all along whose id the walk reached is listed exactly once (PAGE-006), in ascending order of
 * id (PAGE-005). A server whose cursor is an offset repeats or skips items when a write lands
 * before it.
 *
 * The walk filters one module (moduleKeys), so that other checks' definitions do not lengthen
 * it, and reads a fixed number of pages (as many as definitions it made before), so the credit
 * plan is exact whatever the order.
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding } from '../../src/engine/finding.ts';
import { checkProperty } from '../../src/engine/property.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { compareIds, isObject } from '../_shared/json.ts';
import { createDefinition, is2xx, minimalCreateBody } from '../_shared/definitions.ts';

const KEY = 'interleaver';
const RUNS = 2;
/** Definitions made before the walk, and pages the walk reads (one item each). */
const STABLE = 4;
/** The module the walk lists: none of the suite's other checks writes there. */
const MODULE = 'advisors';

/**
 * Credits of one run on the reference: the definitions made before, the two creates and the
 * PATCH during the walk, its pages, and the clean-up archives of the six definitions.
 */
const PER_RUN = STABLE + 3 + STABLE + STABLE + 2;

const arbitrary = fc.scheduler();

async function walkDuringWrites(ctx: CheckContext, key: KeyHandle, s: fc.Scheduler): Promise<void> {
  const stable: string[] = [];
  for (let i = 0; i < STABLE; i++) stable.push((await createDefinition(ctx, key, 'PAGE-006', { moduleKey: MODULE })).definition.id.toLowerCase());
  const order: string[] = [];
  const pages: Exchange[] = [];
  const listed: string[] = [];
  const release = (label: string) => s.schedule(Promise.resolve(label)).then(() => void order.push(label));
  const write = async (label: string, send: () => Promise<Exchange>): Promise<void> => {
    await release(label);
    const ex = await send();
    const body = ex.response?.json;
    if (is2xx(ex) && isObject(body) && typeof body.id === 'string' && ex.request.method === 'POST') {
      const id = body.id;
      ctx.cleanup(async () => void (await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'conformance run clean-up' } })));
    }
  };
  const walk = async (): Promise<void> => {
    let cursor: string | undefined;
    for (let page = 1; page <= STABLE; page++) {
      await release(`page ${page}`);
      const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: { limit: 1, moduleKeys: MODULE, ...(cursor ? { cursor } : {}) } });
      pages.push(ex);
      const body = ex.response?.json;
      if (!is2xx(ex) || !isObject(body) || !Array.isArray(body.items)) return;
      for (const item of body.items) if (isObject(item) && typeof item.id === 'string') listed.push(item.id.toLowerCase());
      if (typeof body.nextCursor !== 'string') return;
      cursor = body.nextCursor;
    }
  };
  const tasks = [
    walk(),
    write('create 1', () => ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx, { moduleKey: MODULE }) })),
    write('create 2', () => ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx, { moduleKey: MODULE }) })),
    write('PATCH', () => ctx.api.send({ method: 'PATCH', path: `/definitions/${stable[1]}`, key, body: { reason: 'conformance check: written during a walk', description: 'written during a walk' } })),
  ];
  // Each page is released only after the one before it is answered (a network wait, not a
  // microtask): waitFor keeps releasing scheduled requests until every task is done.
  await s.waitFor(Promise.all(tasks));
  const scenario = `requests released in this order (each page after the one before it):\n${order.map((l, i) => `${i + 1}. ${l}`).join('\n')}`;
  const last = pages.at(-1)!;
  const failed = pages.find((p) => !is2xx(p) || !isObject(p.response?.json) || !Array.isArray((p.response!.json as Record<string, unknown>).items));
  // A page that is not a listing is the envelope's business (pagination suite), not this scene's.
  if (failed) return;
  ctx.judged('PAGE-005');
  const descending = listed.findIndex((id, i) => i > 0 && compareIds(listed[i - 1]!, id) >= 0);
  if (descending > 0)
    throw new Finding({
      clause: 'PAGE-005',
      message: `a walk of one item a page, while definitions were written, listed ${listed[descending]} after ${listed[descending - 1]}`,
      expected: 'ids strictly ascending along the cursors',
      received: listed.join(', '),
      exchange: pages[descending]!,
      context: pages.filter((p) => p !== pages[descending]),
      scenario,
    });
  // The walk reached up to its last item; one that ended (nextCursor null) reached everything.
  const endBody = last.response!.json as Record<string, unknown>;
  const reach = typeof endBody.nextCursor === 'string' ? listed.at(-1) : undefined;
  const due = stable.filter((id) => reach === undefined || compareIds(id, reach) <= 0);
  ctx.judged('PAGE-006');
  const wrong = due.filter((id) => listed.filter((x) => x === id).length !== 1);
  const repeated = listed.filter((id, i) => listed.indexOf(id) !== i);
  if (wrong.length > 0 || repeated.length > 0)
    throw new Finding({
      clause: 'PAGE-006',
      message:
        repeated.length > 0
          ? `a walk of one item a page, while definitions were written, listed ${repeated[0]} twice`
          : `a walk of one item a page, while definitions were written, did not list ${wrong[0]}, visible all along and within the walk's reach, exactly once`,
      expected: `each of the ${due.length} definitions visible all along up to ${reach ?? 'the end'} once`,
      received: listed.join(', '),
      exchange: last,
      context: pages.slice(0, -1),
      scenario,
    });
}

export const walkDuringWritesCheck: CheckDef = {
  id: 'sequences/walk-during-writes',
  title: 'A walk of one definition a page, its pages interleaved with creates and a PATCH in orders fast-check draws, lists every definition visible all along exactly once and in ascending order',
  clauses: ['PAGE-005', 'PAGE-006'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  credits: RUNS * PER_RUN,
  // A walk that ends on an empty page, per run.
  maxCredits: RUNS * (PER_RUN + 1),
  async run(ctx) {
    const key = ctx.key(KEY);
    await checkProperty(ctx, {
      clause: 'PAGE-006',
      arbitrary,
      numRuns: RUNS,
      maxShrinkCalls: 2,
      predicate: (s) => walkDuringWrites(ctx, key, s),
    });
  },
};
