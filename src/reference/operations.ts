/**
 * Catalog operations (seed 4.8): POST /operations submits (validating arguments and
 * permissions at once, so bad input is refused with 4xx), GET /operations and
 * GET /operations/{id} poll. Execution is asynchronous: see executor.ts.
 */
import { ApiError, capabilityOff, badRequest, notFound } from './errors.ts';
import type { Receipt } from './model.ts';
import { AGENT_PREVIEW, AGENT_RUN } from './op-agent.ts';
import { CRM_MUTATIONS } from './op-crm.ts';
import { APPLY_UPDATE, CONTEXT_REFRESH, PROPOSE_UPDATE } from './op-graph.ts';
import { checkPermission, type OpDef } from './opdef.ts';
import { page, pageParams } from './query.ts';
import type { Ctx, Route } from './route.ts';
import { newId } from './store.ts';
import { obj, parseBody, req, str, type Schema } from './validate.ts';

/** Every operation POST /operations accepts, in catalog order. */
export const OPERATIONS: readonly OpDef[] = [APPLY_UPDATE, PROPOSE_UPDATE, AGENT_PREVIEW, AGENT_RUN, CONTEXT_REFRESH, ...CRM_MUTATIONS];
const BY_NAME = new Map(OPERATIONS.map((o) => [o.name, o]));

const argumentsObject: Schema<Record<string, unknown>> = (v, path, issues) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) issues.push({ path, message: 'must be an object' });
  return v as Record<string, unknown>;
};
const submitBody = obj({ operation: req(str({ min: 1, max: 200 })), arguments: req(argumentsObject), reason: req(str({ min: 1, max: 2000 })) });

/** Stands in for names outside the catalog under the unknown-operation-accepted fault: accepted, then fails. */
const UNKNOWN_OP: OpDef = {
  name: '',
  purpose: '',
  scopes: [],
  capability: 'graphEdits',
  arguments: [],
  prepare: (_ctx, args) => args,
  execute: () => ({ status: 'failed', result: null }),
};

function operationOf(ctx: Ctx): { op: OpDef; body: { operation: string; arguments: Record<string, unknown>; reason: string } } {
  const body = parseBody(submitBody, ctx.body, 'body', ctx.relax);
  const op = BY_NAME.get(body.operation) ?? (ctx.faults.has('unknown-operation-accepted') ? { ...UNKNOWN_OP, name: body.operation } : undefined);
  if (!op) throw badRequest(`body.operation: unknown operation "${body.operation}"; GET /capabilities lists the catalog`);
  return { op, body };
}

/** A receipt as the API returns it. */
export function receiptOut(r: Receipt): Receipt {
  return { ...r };
}

function submit(ctx: Ctx) {
  const { op, body } = operationOf(ctx);
  const args = op.prepare({ ws: ctx.ws, store: ctx.store, faults: ctx.faults, relax: ctx.relax }, body.arguments);
  checkPermission(ctx.p, op, args, ctx.faults);
  const now = ctx.store.now();
  const receipt: Receipt = { id: newId(), operation: op.name, status: 'queued', reason: body.reason, createdAt: now, updatedAt: now, completedAt: null, result: null, error: null };
  ctx.ws.operations.set(receipt.id, { receipt, keyId: ctx.p.key.keyId, args });
  ctx.scheduler.schedule(ctx.ws, receipt.id);
  const out = receiptOut(receipt);
  if (ctx.faults.has('receipts-not-pollable')) out.id = newId();
  const free = op.name === 'graph.agent_preview' && ctx.faults.has('preview-free');
  return { status: 202, body: out, surface: `api:operations.${op.name}`, credits: free ? 0 : 1 };
}

function get(ctx: Ctx) {
  const id = ctx.params.id!.toLowerCase();
  const q = ctx.ws.operations.get(id);
  if (!q) throw ctx.faults.has('unknown-receipt-403') ? new ApiError(403) : notFound('No such operation in this workspace');
  // Polling a due receipt runs it now rather than waiting for the queue.
  if (q.receipt.status === 'queued') ctx.scheduler.runNow(ctx.ws, id);
  return { status: 200, body: receiptOut(q.receipt) };
}

function list(ctx: Ctx) {
  const env = page([...ctx.ws.operations.values()].map((q) => q.receipt), pageParams(ctx.query, ctx.faults), ctx.faults);
  const items = env.items.map(receiptOut);
  return { status: 200, body: ctx.faults.has('operations-list-bare-array') ? items : { items, nextCursor: env.nextCursor } };
}

export const OPERATION_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    pattern: '/operations',
    surface: 'api:operations',
    billable: true,
    body: true,
    idempotent: true,
    authorize(ctx) {
      const { op } = operationOf(ctx);
      checkPermission(ctx.p, op, undefined, ctx.faults);
      if (!ctx.ws.capabilities[op.capability]) throw capabilityOff(op.capability, ctx.faults);
    },
    handle: submit,
  },
  { method: 'GET', pattern: '/operations', surface: 'api:operations.list', billable: false, handle: list },
  { method: 'GET', pattern: '/operations/:id', surface: 'api:operations.get', billable: false, handle: get },
];
