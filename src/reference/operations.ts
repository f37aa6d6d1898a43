/**
 * Catalog operations (seed 4.8): POST /operations submits (validating arguments and
 * permissions at once, so bad input is refused with 4xx), GET /operations and
 * GET /operations/{id} poll. Execution is asynchronous: see executor.ts.
 */
import { ApiError, capabilityOff, notFound } from './errors.ts';
import type { QueuedOperation, Receipt } from './model.ts';
import { AGENT_PREVIEW, AGENT_RUN } from './op-agent.ts';
import { CRM_MUTATIONS } from './op-crm.ts';
import { APPLY_UPDATE, CONTEXT_REFRESH, PROPOSE_UPDATE } from './op-graph.ts';
import { checkPermission, type OpDef } from './opdef.ts';
import { forgets } from './faults.ts';
import type { Choices } from './choices.ts';
import { page, pageParams } from './query.ts';
import type { Ctx, Route } from './route.ts';
import { lookupId, obj, parseBody, req, str, type Schema } from './validate.ts';

/** Every operation POST /operations accepts, in catalog order. */
export const OPERATIONS: readonly OpDef[] = [APPLY_UPDATE, PROPOSE_UPDATE, AGENT_PREVIEW, AGENT_RUN, CONTEXT_REFRESH, ...CRM_MUTATIONS];
const BY_NAME = new Map(OPERATIONS.map((o) => [o.name, o]));

// Stryker disable all: every catalog operation parses its arguments as an object in its prepare step, so a non-object is refused there too (OPS-015 sends a string and an array)
const argumentsObject: Schema<Record<string, unknown>> = (v, path, issues) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) issues.push({ path, message: 'must be an object' });
  return v as Record<string, unknown>;
};
// Stryker restore all
const submitBody = obj({ operation: req(str({ min: 1, max: 200 })), arguments: req(argumentsObject), reason: req(str({ min: 1, max: 2000 })) });

/** Stands in for names outside the catalog under the unknown-operation-accepted fault: accepted, then fails. */
// Stryker disable all: used only under a named fault (unknown-operation-accepted)
const UNKNOWN_OP: OpDef = {
  name: '',
  purpose: '',
  scopes: [],
  capability: 'graphEdits',
  arguments: [],
  prepare: (_ctx, args) => args,
  execute: () => ({ status: 'failed', result: null }),
};
// Stryker restore all

function operationOf(ctx: Ctx): { op: OpDef; body: { operation: string; arguments: Record<string, unknown>; reason: string } } {
  // Stryker disable next-line StringLiteral: the path an issue names is free (7 rule 4: data not shown)
  const body = parseBody(submitBody, ctx.body, 'body', ctx.relax, ctx.store.reading);
  const op = BY_NAME.get(body.operation) ?? (ctx.faults.has('unknown-operation-accepted') ? { ...UNKNOWN_OP, name: body.operation } : undefined);
  if (!op) throw new ApiError(ctx.store.choices.status.unknownOperation, `body.operation: unknown operation "${body.operation}"; GET /capabilities lists the catalog`);
  return { op, body };
}

/** A receipt as the API returns it (the variant's layout). */
export function receiptOut(r: Receipt, c: Choices): Record<string, unknown> {
  return c.layout.receipt(r);
}

/** A queued receipt of the workspace, or the refusal of an id that names none. */
function receiptOf(ctx: Ctx): QueuedOperation {
  const { store } = ctx;
  const id = lookupId(ctx.params.id!, store.reading);
  const q = ctx.ws.operations.get(id);
  if (q) return q;
  if (ctx.faults.has('unknown-receipt-403')) throw new ApiError(403);
  // Stryker disable next-line all: 403 or 404 for another workspace's receipt are both AUTH-012's readings; only the status differs
  const foreign = store.choices.status.foreignId === 403 && [...store.workspaces.values()].some((w) => w.operations.has(id));
  throw foreign ? new ApiError(403, 'The operation belongs to another workspace') : notFound('No such operation in this workspace');
}

function submit(ctx: Ctx) {
  const { op, body } = operationOf(ctx);
  const args = op.prepare({ ws: ctx.ws, store: ctx.store, faults: ctx.faults, relax: ctx.relax }, body.arguments);
  checkPermission(ctx.p, op, args, ctx.faults);
  const now = ctx.store.now();
  const receipt: Receipt = { id: ctx.store.newId(), operation: op.name, status: 'queued', reason: body.reason, createdAt: now, updatedAt: now, completedAt: null, result: null, error: null };
  // Stryker disable next-line all: when submitted work completes is not shown (4.8: it may complete asynchronously); a variant's slow operations only delay it
  const slow = ctx.store.choices.receipts.slowOperations[op.name];
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: when submitted work completes is not shown (see slow)
  ctx.ws.operations.set(receipt.id, { receipt, keyId: ctx.p.key.keyId, args, polls: 0, dueAt: slow === undefined ? 0 : Date.now() + slow });
  ctx.scheduler.schedule(ctx.ws, receipt.id);
  const { choices } = ctx.store;
  const out = receiptOut(receipt, choices);
  if (ctx.faults.has('receipts-not-pollable')) out.id = ctx.store.newId();
  const answer = choices.layout.submitted(out);
  // A rule-cells fault may forget the price of this one operation.
  // Stryker disable next-line LogicalOperator: only named faults make it true
  const free = (op.name === 'graph.agent_preview' && ctx.faults.has('preview-free')) || forgets(ctx.faults, 'price', `api:operations.${op.name}`);
  // The preview fee is this call's credit, or (a variant's choice) charged on top as its own entry.
  // Stryker disable next-line all: with no fee charged on top (the default's choice), an empty list of extra charges is the same as none
  const fee = op.name === 'graph.agent_preview' && choices.previewFee.chargedOnTop ? [{ credits: choices.previewFee.apiPreviewCredits, surface: choices.previewFee.surface }] : [];
  // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty list of extra charges is none (see fee)
  return { status: choices.status.submit, body: answer, surface: `api:operations.${op.name}`, credits: free ? 0 : 1, ...(fee.length > 0 ? { extraCharges: fee } : {}) };
}

function get(ctx: Ctx) {
  const q = receiptOf(ctx);
  // Polling a due receipt runs it now rather than waiting for the queue (after the variant's
  // number of polls, and not before a slow operation's time).
  // Stryker disable all: when a receipt completes is not shown (4.8): completing it on a poll, a later poll or never on a poll (the queue runs it) answers the poll the same way
  q.polls++;
  if (q.receipt.status === 'queued' && q.polls >= ctx.store.choices.receipts.pollsToComplete && Date.now() >= q.dueAt) ctx.scheduler.runNow(ctx.ws, q.receipt.id);
  // Stryker restore all
  return { status: 200, body: receiptOut(q.receipt, ctx.store.choices) };
}

function list(ctx: Ctx) {
  const { choices } = ctx.store;
  const all = [...ctx.ws.operations.values()].map((q) => q.receipt);
  // An off-by-one that drops the newest submission (the last inserted).
  const receipts = ctx.faults.has('operations-list-omits-newest') ? all.slice(0, -1) : all;
  const env = page(receipts, pageParams(ctx.query, ctx.faults, choices), ctx.faults, choices);
  const items = env.items.map((r) => receiptOut(r, choices));
  return { status: 200, body: ctx.faults.has('operations-list-bare-array') ? items : choices.layout.list(items, env.nextCursor) };
}

export const OPERATION_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    pattern: '/operations',
    surface: 'api:operations',
    billable: true,
    body: true,
    idempotent: true,
    // Stryker disable next-line BlockStatement: emptied, the operation's scopes and roles are still checked at submission (submit's checkPermission), after its arguments: which of two faults is answered first is not shown (7 rule 4); the capability an operation needs is not shown (see below)
    authorize(ctx) {
      const { op } = operationOf(ctx);
      checkPermission(ctx.p, op, undefined, ctx.faults);
      // Stryker disable next-line ConditionalExpression: which capability a catalog operation needs is not shown (2.4 names the capabilities, 4.8 the operations, nothing ties them), so ERR-009 cannot be judged on an operation
      if (!ctx.ws.capabilities[op.capability]) throw capabilityOff(op.capability, ctx.faults);
    },
    handle: submit,
  },
  { method: 'GET', pattern: '/operations', surface: 'api:operations.list', billable: false, handle: list },
  { method: 'GET', pattern: '/operations/:id', surface: 'api:operations.get', billable: false, handle: get },
];
