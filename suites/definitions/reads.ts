/**
 * Reads change nothing: the full listing (includeArchived=true) is the same before and after
 * many reads. With the control protocol the suite's workspace is its own, so the whole
 * listing is compared; on a shared workspace only the definitions the check created are (other
 * clients may write meanwhile). Two listings before the reads must agree first: what differs
 * between them, nothing but a read in between, is the listing's own doing.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { comparableRenderings, is2xx } from '../_shared/definitions.ts';
import { documentedDefinition } from '../_shared/documented.ts';
import { findObjects, isObject } from '../_shared/json.ts';
import { traceQueries } from '../_shared/ops-shapes.ts';
import { SMALL_WALK_CREDITS, listDefinitions, walkMaxCredits } from './listing.ts';
import { ADMIN, archive, canonical, optionalReader, setupDefinition, shown } from './support.ts';

interface Snapshot {
  /** Each listed definition as read, by id. */
  items: Map<string, Record<string, unknown>>;
  exchange: Exchange;
}

/** The listing per id: everything, or only `own` on a shared workspace. */
async function snapshot(ctx: CheckContext, own: readonly string[]): Promise<Snapshot> {
  const listing = await listDefinitions(ctx, ctx.key(ADMIN), 'true', { ids: own });
  const items = new Map<string, Record<string, unknown>>();
  for (const [id, item] of listing.byId) if (ctx.run.hasControl || own.includes(id)) items.set(id, item);
  return { items, exchange: listing.exchanges.at(-1)! };
}

/**
 * What differs between two snapshots, one line per definition; empty when identical. Compared
 * as comparableRenderings: a target may move a definition between non-archived states on its
 * own (seed 3 shows only archiving), and that is no read's doing. updated_at is also left out
 * for the definitions in `moving`: those seen moving on their own just before (see settling).
 */
function differences(a: Snapshot, b: Snapshot, moving: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const [id, read] of a.items) {
    const later = b.items.get(id);
    if (later === undefined) out.push(`${id} disappeared`);
    else {
      const [x, y] = comparableRenderings(read, later);
      if (moving.has(id)) {
        delete x.updated_at;
        delete y.updated_at;
      }
      if (canonical(x) === canonical(y)) continue;
      const fields = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => canonical(x[k]) !== canonical(y[k]));
      out.push(`${id}: ${fields.map((f) => `${f} ${JSON.stringify(x[f])} → ${JSON.stringify(y[f])}`).join(', ')}`);
    }
  }
  for (const id of b.items.keys()) if (!a.items.has(id)) out.push(`${id} appeared`);
  return out;
}

/**
 * The definitions whose renderings differ at all between two snapshots although
 * comparableRenderings finds them equal: moving on their own (a state move, an estimate filled
 * in, with updated_at following) while the check looks. A move may come in steps (the state,
 * later updated_at), so for these updated_at alone is not compared afterwards.
 */
function settling(a: Snapshot, b: Snapshot): Set<string> {
  const out = new Set<string>();
  for (const [id, read] of a.items) {
    const later = b.items.get(id);
    if (later !== undefined && canonical(documentedDefinition(read)) !== canonical(documentedDefinition(later))) out.add(id);
  }
  return out;
}

function changed(clause: string, what: string, a: Snapshot, b: Snapshot, context: Exchange[], moving?: ReadonlySet<string>): Finding | undefined {
  const diff = differences(a, b, moving);
  if (diff.length === 0) return undefined;
  return new Finding({
    clause,
    message: `${what} changed the stored definitions`,
    expected: 'the listing identical before and after',
    received: diff.join('; ').slice(0, 1500),
    exchange: b.exchange,
    context: [a.exchange, ...context.slice(-5)],
  });
}

/** The keys that read: admin, and the reader when the target supplies one. */
function readers(ctx: CheckContext): KeyHandle[] {
  const reader = optionalReader(ctx);
  return reader ? [ctx.key(ADMIN), reader] : [ctx.key(ADMIN)];
}

/** Listing reads with different parameters, GET /me and GET /capabilities. */
const LIST_QUERIES: readonly Record<string, string | number>[] = [{}, { limit: 1 }, { includeArchived: 'true', limit: 2 }, { includeArchived: 'false' }, { moduleKeys: 'customers' }];

/** Many reads leave the listing identical. */
export const readsChangeNothing: CheckDef = {
  id: 'definitions/reads-change-nothing',
  title: 'listing definitions (with various parameters), GET /me and GET /capabilities change no stored definition',
  clauses: ['SVC-005'],
  needs: { mutation: true },
  // Two creates, one archive, the live one's clean-up, three walks (two before the reads, one
  // after), and per reading key the listed queries (GET /me and GET /capabilities are free).
  // The one-item page has no cursor to follow: the check's live definition is the only one.
  credits: 4 + 3 * SMALL_WALK_CREDITS + 2 * LIST_QUERIES.length,
  // Walks over a workspace holding more; a cursor to follow on the one-item page.
  maxCredits: 4 + 3 * walkMaxCredits(2) + 2 * (LIST_QUERIES.length + 1),
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const live = await setupDefinition(ctx, key, { valueType: 'enum', enumValues: [{ label: 'Alpha' }] });
    const gone = await setupDefinition(ctx, key, { moduleKey: 'partners' });
    const ex = await archive(ctx, key, gone.definition.id);
    if (is2xx(ex)) gone.archived();
    const own = [live.definition.id, gone.definition.id];
    // Two listings with nothing but a read in between. What comparableRenderings still finds
    // different (updated_at advanced with nothing else moving, say) is that listing's doing:
    // the finding itself, never a reason to stop. What it leaves out (a state move, estimates)
    // is the target settling on its own: for those definitions updated_at is not compared.
    const first = await snapshot(ctx, own);
    const before = await snapshot(ctx, own);
    const touched = changed('SVC-005', 'listing the definitions (a read, with nothing else in between)', first, before, []);
    if (first.items.size > 0) ctx.judged('SVC-005');
    if (touched) throw touched;
    const moving = settling(first, before);
    const reads: Exchange[] = [];
    for (const k of readers(ctx)) {
      for (const query of LIST_QUERIES) {
        const page = await ctx.api.send({ method: 'GET', path: '/definitions', key: k, query });
        reads.push(page);
        const next = isObject(page.response?.json) ? page.response.json.nextCursor : undefined;
        if (query.limit === 1 && typeof next === 'string') reads.push(await ctx.api.send({ method: 'GET', path: '/definitions', key: k, query: { limit: 1, cursor: next } }));
      }
      reads.push(await ctx.api.send({ method: 'GET', path: '/me', key: k }));
      reads.push(await ctx.api.send({ method: 'GET', path: '/capabilities', key: k }));
    }
    const after = await snapshot(ctx, own);
    const finding = changed('SVC-005', `${reads.length} reads (and the listing walks themselves)`, before, after, reads, moving);
    if (before.items.size > 0) ctx.judged('SVC-005');
    if (finding) throw finding;
  },
};

/** How many query forms a trace read is tried in (traceQueries). */
const TRACE_FORMS = traceQueries('definition', '').length;

/** Trace reads (as far as the target accepts the forms tried) leave the listing identical. */
export const traceReadsChangeNothing: CheckDef = {
  id: 'definitions/trace-reads-change-nothing',
  title: 'reading the decision trail of a definition (GET /graph/traces) changes no stored definition',
  clauses: ['TRACE-017'],
  needs: { mutation: true },
  // Create and PATCH with traces, the clean-up archive, three walks, and per reading key the one
  // form the reference accepts (the others are refused: free).
  credits: 3 + 3 * SMALL_WALK_CREDITS + 2,
  // Walks over a workspace holding more; a target accepting every form, each with an older page.
  maxCredits: 3 + 3 * walkMaxCredits(1) + 2 * (TRACE_FORMS + 1),
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const trace = { reason: 'conformance check: traced for a trace read' };
    const made = await setupDefinition(ctx, key, { decision_trace: trace });
    const id = made.definition.id;
    const patch = await ctx.api.send({
      method: 'PATCH',
      path: `/definitions/${encodeURIComponent(id)}`,
      key,
      body: { reason: 'conformance check', description: 'second event', decision_trace: trace },
    });
    if (!is2xx(patch)) throw new NotObservable(`a traced PATCH (set-up for a trail of two events) was not accepted: ${shown(patch)}`);
    const first = await snapshot(ctx, [id]);
    const before = await snapshot(ctx, [id]);
    if (differences(first, before).length > 0) throw new NotObservable('listing the definitions itself changes them (see SVC-005), so the effect of a trace read cannot be isolated');

    const reads: Exchange[] = [];
    for (const k of readers(ctx)) {
      for (const query of traceQueries('definition', id)) {
        const ex = await ctx.api.send({ method: 'GET', path: '/graph/traces', key: k, query });
        reads.push(ex);
        // Older events (seed 2.7 rule 2): follow next_before_revision once when the answer has one.
        const next = findObjects(ex.response?.json, (o) => typeof o.next_before_revision === 'number' || typeof o.next_before_revision === 'string')[0]?.next_before_revision;
        if (is2xx(ex) && next !== undefined) {
          reads.push(await ctx.api.send({ method: 'GET', path: '/graph/traces', key: k, query: { ...query, before_revision: String(next) } }));
        }
      }
    }
    const after = await snapshot(ctx, [id]);
    const finding = changed('TRACE-017', `${reads.length} trace reads`, before, after, reads, settling(first, before));
    // Judged only when a trace read was accepted: otherwise no trace read was observed (below).
    if (before.items.size > 0 && reads.some(is2xx)) ctx.judged('TRACE-017');
    if (finding) throw finding;
    if (!reads.some(is2xx)) {
      throw new NotObservable(
        `no trace read form was accepted, so no trace read was observed: ${reads.map((r) => `${new URL(r.request.url).search} → ${r.response?.status ?? r.error?.kind}`).join('; ')}`,
      );
    }
  },
};
