/**
 * Seed part 8 billing rule 1: each 2xx answer of a billed endpoint costs one credit: exactly one
 * where the document shows the work carries no third-party cost, at least one where it does not
 * show the work (rule 3 meters third-party cost on top; see `mayMeter`).
 * The billed endpoints are read from specs/openapi.yaml (x-wgc-billing: billed), so the check
 * follows the contract; every one of them has a request below. Where the seed does not show a
 * request shape, candidates are tried: a refused candidate must still cost nothing (rule 2),
 * and an endpoint no candidate reaches is simply not priced.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { callOf, chargeEvidence, settleReads, SETTLE_MS, type Measured } from '../../src/engine/ledger.ts';
import { waitBound } from '../../src/engine/waits.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';
import { applyUpdateBody, archiveIfCreated, idempotencyKey, makeAccount, pollReceipt, receiptPath, type AccountFixture } from '../_shared/ops-fixtures.ts';
import { findResourceId } from '../_shared/receipts.ts';
import { linkedPaths } from '../_shared/linked.ts';
import { fieldsIn, QUERY_OPERATIONS, queryShapesFor } from '../_shared/access-shapes.ts';
import { computePreviewShapes, computeRunShapes, decisionInputShapes, operationArgumentShapes, traceShapes, type Shape } from '../_shared/ops-shapes.ts';

/** What the steps share: the account fixture and the definition the steps create. */
interface State {
  fx: AccountFixture;
  /** A valid create body with two enum values (merge-value needs two slugs). */
  createBody: Record<string, unknown>;
  definitionId?: string;
  slugs?: [string, string];
  /** The collections the account and person reads link to (relatedData), priced like every read. */
  links: string[];
  /** The body of GET /capabilities (undefined when it was not served): the live CRM reads' fields come from it. */
  catalog: unknown;
}

/**
 * Linked collections priced at most (an account's three and a person's three on the reference):
 * reads under /data that do work, not on part 8's free list, reached only through the links.
 */
const LINKS = 6;

/** Keeps the links of an accepted stored-record read. */
const keepLinks = (st: State, ex: Exchange, shape: Shape): void => {
  for (const p of linkedPaths(ex, shape.path, LINKS)) if (!st.links.includes(p) && st.links.length < LINKS) st.links.push(p);
};

/** One billed endpoint: its candidate requests, and what to keep from an accepted answer. */
interface Step {
  operationId: string;
  shapes(st: State): Shape[];
  accepted?(st: State, ex: Exchange, shape: Shape): void;
  /** Polls the receipt or run inside the measurement, so an asynchronous charge is seen. */
  polls?: boolean;
  /**
   * The document does not show what the endpoint's work is (part 4.9), so it may incur
   * third-party cost, which part 8 meters on top of the one credit (rule 3; BILL-001's recorded
   * reading): a 2xx costs at least one credit, not exactly one.
   */
  mayMeter?: boolean;
}

const def = (st: State, f: (id: string) => Shape[]): Shape[] => (st.definitionId ? f(st.definitionId) : []);

/** A catalog operation's submissions, with the candidate arguments of suites/_shared/ops-shapes.ts. */
const operationShapes = (st: State, operation: string): Shape[] =>
  (operationArgumentShapes(st.fx)[operation] ?? []).map((args) => ({ method: 'POST', path: '/operations', body: { operation, arguments: args, reason: `conformance check: priced ${operation}` } }));

/** In dependency order: the definition steps need the create, traces need the edit, archive comes last. */
const STEPS: readonly Step[] = [
  { operationId: 'listDefinitions', shapes: () => [{ method: 'GET', path: '/definitions', query: { limit: 1 } }] },
  {
    operationId: 'createDefinition',
    shapes: (st) => [{ method: 'POST', path: '/definitions', body: st.createBody }],
    accepted(st, ex) {
      const body = ex.response?.json;
      if (!isObject(body) || typeof body.id !== 'string') return;
      st.definitionId = body.id;
      const slugs = Array.isArray(body.enum_values) ? body.enum_values.map((v) => (isObject(v) ? v.slug : undefined)) : [];
      if (typeof slugs[0] === 'string' && typeof slugs[1] === 'string') st.slugs = [slugs[0], slugs[1]];
    },
  },
  { operationId: 'updateDefinition', shapes: (st) => def(st, (id) => [{ method: 'PATCH', path: `/definitions/${id}`, body: { reason: 'conformance check', description: 'priced update' } }]) },
  {
    operationId: 'mergeDefinitionValue',
    shapes: (st) =>
      def(st, (id) => (st.slugs ? [{ method: 'POST', path: `/definitions/${id}/merge-value`, body: { fromSlug: st.slugs[0], intoSlug: st.slugs[1], reason: 'conformance check' } }] : [])),
  },
  { operationId: 'submitOperation', shapes: (st) => [{ method: 'POST', path: '/operations', body: applyUpdateBody(st.fx) }], polls: true },
  // The other catalog operations of 4.8 a check can send without an agent's fees: each is a
  // submission of its own, priced on its own (a server may forget the price on one operation).
  // A proposal is an edit left for review: no work beyond the call is shown.
  { operationId: 'submitOperation', shapes: (st) => operationShapes(st, 'graph.propose_update'), polls: true },
  // A context refresh may research (third-party cost, metered on top: part 8 rule 3).
  { operationId: 'submitOperation', shapes: (st) => operationShapes(st, 'graph.context_refresh'), polls: true, mayMeter: true },
  { operationId: 'getAccount', shapes: (st) => [{ method: 'GET', path: `/data/accounts/${st.fx.accountId}` }], accepted: keepLinks },
  { operationId: 'getPerson', shapes: (st) => [st.fx.accountPersonId, st.fx.personId].map((id) => ({ method: 'GET', path: `/data/people/${id}` }) as Shape), accepted: keepLinks },
  { operationId: 'listIcps', shapes: () => [{ method: 'GET', path: '/data/icps' }] },
  { operationId: 'listRelationships', shapes: () => [{ method: 'GET', path: '/data/relationships' }] },
  // Each of the three read operations of 4.9, priced on its own (a server may forget one).
  ...QUERY_OPERATIONS.map((operation): Step => ({ operationId: 'runQuery', shapes: (st) => queryShapesFor(operation, fieldsIn(st.catalog, operation)), mayMeter: true })),
  { operationId: 'prepareDecisionInputs', shapes: (st) => def(st, decisionInputShapes), mayMeter: true },
  { operationId: 'readTraces', shapes: (st) => traceShapes(st.fx.accountId) },
  { operationId: 'previewCompute', shapes: () => computePreviewShapes(), mayMeter: true },
  { operationId: 'startComputeRun', shapes: () => computeRunShapes(), polls: true, mayMeter: true },
  { operationId: 'archiveDefinition', shapes: (st) => def(st, (id) => [{ method: 'POST', path: `/definitions/${id}/archive`, body: { reason: 'conformance check' } }]) },
];

/** Statuses whose price BILL-006 names (422: a refusal as invalid outside the table); other refusals are other clauses' business. */
const REFUSALS_OF_BILL_006 = [400, 403, 404, 409, 422];

/** Sends one request and, for submissions, polls what it started (the polls' own charges are left out of its price). */
async function sendAndPoll(ctx: CheckContext, key: KeyHandle, shape: Shape, polls: boolean): Promise<{ ex: Exchange; polled: string[] }> {
  const idem = shape.path === '/operations' ? { idempotencyKey: idempotencyKey(ctx) } : {};
  const ex = await ctx.api.send({ ...shape, ...idem, key });
  if (!polls || !is2xx(ex)) return { ex, polled: [] };
  if (shape.path === '/operations') {
    await pollReceipt(ctx, key, ex, { budgetMs: 1_000 });
    const path = receiptPath(ex);
    return { ex, polled: path ? [path] : [] };
  }
  const id = findResourceId(ex);
  if (id === undefined) return { ex, polled: [] };
  const path = `/compute/runs/${encodeURIComponent(id)}`;
  await ctx.api.send({ method: 'GET', path, key });
  return { ex, polled: [path] };
}

export const billedCallsCostOne: CheckDef = {
  id: 'billing/billed-calls-cost-one',
  title: 'Each 2xx answer of every billed endpoint, and of every collection a stored record links to, costs one credit (at least one where the work is not shown); its refused candidates cost nothing',
  clauses: ['BILL-001', 'BILL-006'],
  endpoints: { 'BILL-001': STEPS.map((s) => s.operationId) },
  needs: { ledger: true, control: true, mutation: true },
  // One accepted call per billed endpoint and per linked collection. The last step archives the
  // definition, so its clean-up archive is refused (free) on the reference.
  credits: STEPS.length + LINKS,
  // A target may accept archiving it again. (Work metered at third-party cost on top, which
  // part 8 rule 3 allows where the work is not shown, is not bounded by the document.)
  maxCredits: STEPS.length + LINKS + 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-001');
    const spec = await loadSpec();
    const billed = spec.operations.filter((o) => o.billing === 'billed').map((o) => o.operationId);
    const missing = billed.filter((id) => !STEPS.some((s) => s.operationId === id));
    if (missing.length > 0) throw new Error(`billing/billed-calls-cost-one has no request for billed operation(s) ${missing.join(', ')}`);

    const owner = ctx.key('owner');
    const capabilities = await ctx.api.send({ method: 'GET', path: '/capabilities', key: owner });
    const st: State = {
      links: [],
      catalog: is2xx(capabilities) ? capabilities.response?.json : undefined,
      fx: await makeAccount(ctx, 'bill-each'),
      createBody: minimalCreateBody(ctx, { enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] }),
    };
    const priced: string[] = [];
    const unpriced: string[] = [];
    // Judged once every step has run (the measurements deferred: each call's charge is
    // attributed to it whenever it is recorded, so the waits for a slow ledger overlap).
    const judged: { clause: 'BILL-001' | 'BILL-006'; step: Step; m: Measured<{ ex: Exchange }> }[] = [];
    await ctx.ledger.quiet();
    // "costs 1 credit from the workspace usage balance": the balance goes down by what the ledger charges.
    const usage = async () => {
      const u = await ctx.control.usage(ctx.workspaceId);
      return { balance: u.balance, charged: u.charged };
    };
    const settled = () => settleReads(usage, (a, b) => a.balance === b.balance && a.charged === b.charged, waitBound(ctx.run, SETTLE_MS));
    const before = await settled();

    for (const step of STEPS.filter((s) => billed.includes(s.operationId))) {
      const shapes = step.shapes(st);
      let accepted = false;
      for (const shape of shapes) {
        const m = await ctx.ledger.measure(() => sendAndPoll(ctx, owner, shape, step.polls === true), { priced: (r) => [r.ex], atLeast: (r) => (is2xx(r.ex) ? 1 : 0), defer: true });
        const { ex } = m.result;
        if (is2xx(ex)) {
          judged.push({ clause: 'BILL-001', step, m });
          step.accepted?.(st, ex, shape);
          archiveIfCreated(ctx, owner, ex);
          accepted = true;
          break;
        }
        if (ex.response && REFUSALS_OF_BILL_006.includes(ex.response.status)) judged.push({ clause: 'BILL-006', step, m });
        unpriced.push(callOf(ex));
      }
      if (accepted) priced.push(step.operationId);
      else if (shapes.length === 0) unpriced.push(`${step.operationId} (an earlier step it depends on was refused)`);
    }
    // The linked collections, each priced as a read of its own (a link refused is not priced:
    // reading them is operations/related-collections' concern).
    const linked: { path: string; m: Measured<{ ex: Exchange }> }[] = [];
    for (const path of st.links) {
      const m = await ctx.ledger.measure(async () => ({ ex: await ctx.api.send({ method: 'GET', path, key: owner }) }), { priced: (r) => [r.ex], atLeast: (r) => (is2xx(r.ex) ? 1 : 0), defer: true });
      if (is2xx(m.result.ex)) linked.push({ path, m });
    }
    for (const f of await inParallel(linked, WIDE_PARALLEL, ({ m }) => m.final())) {
      ctx.judged('BILL-001');
      if (f.delta !== 1) {
        const ev = chargeEvidence('BILL-001', f.result.ex, f, [1]);
        ctx.softFail({ ...ev, message: `${ev.message} (a collection linked from relatedData)` });
      }
    }
    // Concluded side by side (each waits its own bound after its own answer), judged in order.
    const finals = await inParallel(judged, WIDE_PARALLEL, ({ m }) => m.final());
    for (const [i, { clause, step }] of judged.entries()) {
      const f = finals[i]!;
      const ex = f.result.ex;
      // A "free" in doubt (a ledger recording later than the suite waits) is not a look at BILL-006.
      if (clause === 'BILL-001' || f.delta !== 0 || !f.doubt) ctx.judged(clause);
      if (clause === 'BILL-001' && (f.delta < 1 || (f.delta !== 1 && !step.mayMeter))) ctx.softFail(chargeEvidence('BILL-001', ex, f, [1]));
      if (clause === 'BILL-006' && f.delta !== 0) ctx.softFail(chargeEvidence('BILL-006', ex, f, [0]));
    }
    const after = await settled();
    ctx.judged('BILL-001');
    if (before.balance - after.balance !== after.charged - before.charged) {
      ctx.softFail({
        clause: 'BILL-001',
        message: `the workspace usage balance went down by ${before.balance - after.balance} credits while the usage ledger charged ${after.charged - before.charged} (test-control protocol, GET /workspaces/{ws}/usage)`,
        expected: 'the balance to go down by exactly what is charged',
        received: `balance ${before.balance} → ${after.balance}; charged ${before.charged} → ${after.charged}`,
      });
    }
    if (priced.length === 0) throw new NotObservable(`no billed endpoint answered 2xx: ${unpriced.join('; ')}`);
  },
};
