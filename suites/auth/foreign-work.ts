/**
 * Workspace isolation (part 5 rules 2-3) on the endpoints foreign-ids.ts does not reach: another
 * workspace's receipts, compute runs, decision trails and account people. Its records are made
 * by its own key and proven readable there first; this workspace's key, holding every scope,
 * then names them: a read is refused as if they did not exist (404 or 403) or, where a
 * document-less answer may be empty (a trail, a listing), shows nothing of theirs; an edit
 * through POST /operations changes nothing of theirs.
 */
import { randomUUID } from 'node:crypto';
import { SCOPES, type CheckContext, type CheckDef, type KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { soft } from './soft.ts';
import { minimalCreateBody } from '../_shared/definitions.ts';
import { brief, containsString, isObject } from '../_shared/json.ts';
import { applyUpdateBody, idempotencyKey, pollReceipt, type AccountFixture } from '../_shared/ops-fixtures.ts';
import { computeRunShapes, decisionInputShapes, traceQueries, tryShapes, type Shape } from '../_shared/ops-shapes.ts';
import { findResourceId, receiptListPages, receiptProgress } from '../_shared/receipts.ts';
import { availableKeys, ok2xx, otherWorkspace, softStatus } from './support.ts';

/** How another workspace's id may be answered: as unknown (404) or as forbidden (403). */
const REFUSED = [404, 403] as const;

/** Pages of GET /operations followed (free) when looking for a foreign receipt. */
const RECEIPT_PAGES = 10;

/** The other workspace's records, made by its own key. */
interface Theirs {
  key: KeyHandle;
  /** A unique string carried by their decision trace and their edit. */
  marker: string;
  fx: AccountFixture;
  definitionId?: string;
  receiptId?: string;
  runId?: string;
  /** The trace read their own key was answered 2xx (its query form). */
  traceQuery?: Record<string, string>;
  /** The decision-inputs request their own key was answered 2xx, for their definition. */
  decisionInputs?: Shape;
  /** Their definition's name (unique to the run). */
  definitionName?: string;
}

/** Makes the other workspace's records; what could not be made is left undefined. */
async function makeTheirs(ctx: CheckContext, workspaceId: string, key: KeyHandle): Promise<Theirs> {
  const marker = `${ctx.run.prefix}foreign-${randomUUID()}`;
  const { accountId } = await ctx.control.createAccount(workspaceId, { name: `${ctx.run.prefix}foreign-account` });
  const { personId, accountPersonId } = await ctx.control.createPerson(workspaceId, accountId, { name: `${ctx.run.prefix}foreign-person`, title: 'before' });
  const theirs: Theirs = { key, marker, fx: { accountId, personId, accountPersonId } };
  const created = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx, { decision_trace: { reason: marker } }) });
  const def = created.response?.json;
  if (ok2xx(created) && isObject(def) && typeof def.id === 'string') {
    theirs.definitionId = def.id;
    if (typeof def.name === 'string') theirs.definitionName = def.name;
    const shapes = decisionInputShapes(def.id);
    const tried = await tryShapes(ctx, key, shapes);
    if (tried.accepted) theirs.decisionInputs = shapes[tried.attempts.length - 1];
    for (const query of traceQueries('definition', def.id)) {
      const read = await ctx.api.send({ method: 'GET', path: '/graph/traces', key, query });
      if (ok2xx(read)) {
        theirs.traceQuery = query;
        break;
      }
    }
  }
  const submitted = await ctx.api.send({ method: 'POST', path: '/operations', key, idempotencyKey: idempotencyKey(ctx), body: applyUpdateBody(theirs.fx, 'their title') });
  if (ok2xx(submitted)) {
    await pollReceipt(ctx, key, submitted, { budgetMs: 1_000 });
    theirs.receiptId = findResourceId(submitted);
  }
  const run = await tryShapes(ctx, key, computeRunShapes());
  if (run.accepted) theirs.runId = findResourceId(run.accepted);
  return theirs;
}

/** A 2xx answer that mentions `needle` is a finding on AUTH-014. */
function expectNotShown(ctx: CheckContext, ex: Exchange, needle: string, what: string): void {
  if (!ok2xx(ex)) return;
  ctx.judged('AUTH-014');
  if (!containsString(ex.response?.json ?? ex.response?.text, needle)) return;
  soft(ctx, () => {
    throw new Finding({
      clause: 'AUTH-014',
      message: `${what} shows a record of another workspace`,
      expected: "only the key's workspace's records",
      received: `the answer mentions ${needle}`,
      exchange: ex,
    });
  });
}

export const foreignWork: CheckDef = {
  id: 'auth/foreign-work-refused',
  title: "Another workspace's receipts, compute runs, trails and people are refused or unseen, and its people unchanged by an edit",
  clauses: ['AUTH-012', 'AUTH-014'],
  endpoints: ['getOperation', 'listOperations', 'getComputeRun', 'readTraces', 'submitOperation', 'prepareDecisionInputs'],
  needs: { control: true, mutation: true },
  // Theirs: the create, one trace read, one decision-inputs request, the submission, the run,
  // and the read-back of their person. Ours: every request naming their records is refused (free).
  credits: 1 + 1 + 1 + 1 + 1 + 1,
  // Forms refused before one is accepted cost nothing; a target that accepts ours charges them
  // (a decision-inputs pair, the edit), and work metered on a run or decision inputs is not bounded.
  maxCredits: 1 + 1 + 1 + 1 + 1 + 1 + 2 + 1,
  async run(ctx) {
    const [owner] = availableKeys(ctx, ['owner']);
    if (!owner) throw new NotObservable('needs the owner cast key');
    const other = await otherWorkspace(ctx, SCOPES);
    const theirs = await makeTheirs(ctx, other.workspaceId, other.key);
    let judged = 0;

    if (theirs.receiptId !== undefined) {
      judged++;
      const path = `/operations/${encodeURIComponent(theirs.receiptId)}`;
      const ex = await ctx.api.send({ method: 'GET', path, key: owner });
      softStatus(ctx, 'AUTH-012', ex, REFUSED, 'GET /operations/{receipt of another workspace}');
      // Our receipts never list theirs.
      for (const list of (await receiptListPages(ctx, owner, RECEIPT_PAGES)).pages) expectNotShown(ctx, list, theirs.receiptId, 'GET /operations');
    }
    if (theirs.runId !== undefined) {
      judged++;
      const ex = await ctx.api.send({ method: 'GET', path: `/compute/runs/${encodeURIComponent(theirs.runId)}`, key: owner });
      softStatus(ctx, 'AUTH-012', ex, REFUSED, 'GET /compute/runs/{run of another workspace}');
    }
    if (theirs.traceQuery !== undefined) {
      judged++;
      // A trail of a record this workspace does not have: refused, or empty of theirs.
      const ex = await ctx.api.send({ method: 'GET', path: '/graph/traces', key: owner, query: theirs.traceQuery });
      if (!ok2xx(ex)) softStatus(ctx, 'AUTH-012', ex, REFUSED, 'GET /graph/traces of a definition of another workspace');
      expectNotShown(ctx, ex, theirs.marker, 'GET /graph/traces of a definition of another workspace');
    }
    if (theirs.decisionInputs !== undefined && theirs.definitionId !== undefined) {
      judged++;
      // Answered as an id naming nothing would be (or 403), and never with what theirs holds.
      const shape = theirs.decisionInputs;
      const nothing = await ctx.api.send({ ...JSON.parse(JSON.stringify(shape).replaceAll(theirs.definitionId, randomUUID())), key: owner });
      const ex = await ctx.api.send({ ...shape, key: owner });
      const allowed = [...new Set([nothing.response?.status ?? 404, ...REFUSED])].filter((s) => s < 200 || s >= 300);
      if (!ok2xx(ex) || ok2xx(nothing)) {
        if (!ok2xx(ex)) softStatus(ctx, 'AUTH-012', ex, allowed, 'POST /graph/decision-inputs for a definition of another workspace');
        else if (theirs.definitionName !== undefined) expectNotShown(ctx, ex, theirs.definitionName, 'POST /graph/decision-inputs for a definition of another workspace');
      } else {
        soft(ctx, () => {
          throw new Finding({
            clause: 'AUTH-012',
            message: 'POST /graph/decision-inputs prepared references to a definition of another workspace, while an id naming nothing is refused',
            expected: `refused as an id naming nothing is (${nothing.response?.status})`,
            received: `${ex.response?.status}`,
            exchange: ex,
            context: [nothing],
          });
        });
      }
    }
    if (await editTheirPerson(ctx, owner, theirs)) judged++;
    if (judged === 0) throw new NotObservable('the other workspace could make none of its records');
  },
};

/**
 * graph.apply_update naming their account and account person, through our key: refused, or a
 * receipt whose work changes nothing of theirs (their person read back by their own key).
 */
async function editTheirPerson(ctx: CheckContext, owner: KeyHandle, theirs: Theirs): Promise<boolean> {
  const submitted = await ctx.api.send({ method: 'POST', path: '/operations', key: owner, idempotencyKey: idempotencyKey(ctx), body: applyUpdateBody(theirs.fx, theirs.marker) });
  if (ok2xx(submitted)) await pollReceipt(ctx, owner, submitted, { budgetMs: 1_000, done: (ex) => ok2xx(ex) && receiptProgress(ex.response?.json) !== 'pending' });
  const after = await ctx.api.send({ method: 'GET', path: `/data/people/${encodeURIComponent(theirs.fx.accountPersonId)}`, key: theirs.key });
  if (!ok2xx(after)) return false;
  if (containsString(after.response?.json, theirs.marker)) {
    soft(ctx, () => {
      throw new Finding({
        clause: 'AUTH-012',
        message: "graph.apply_update through this workspace's key changed a person of another workspace",
        expected: 'their person unchanged',
        received: brief(after.response?.json),
        exchange: after,
        context: [submitted],
      });
    });
  }
  return true;
}
