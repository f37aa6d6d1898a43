/**
 * Bulk compute (seed 4.9): POST /compute/preview and POST /compute/runs for the pmm_refresh
 * job need the admin scope AND an owner or admin role; GET /compute/runs/{id} polls (free).
 */
import { ApiError, notFound } from './errors.ts';
import type { ComputeRun } from './model.ts';
import { accountIn } from './op-graph.ts';
import type { Ctx, Route } from './route.ts';
import { arr, lookupId, obj, oneOf, opt, parseBody, req, str } from './validate.ts';

const JOBS = ['pmm_refresh'] as const;
const scope = { job: req(oneOf(JOBS)), accountIds: opt(arr(str({ format: 'uuid' }), { max: 1000, unique: true })) };
const previewBody = obj(scope);
const runBody = obj({ ...scope, reason: req(str({ min: 1, max: 500 })) });

// Stryker disable all: 4.9 shows no request or response shape of the compute endpoints: which accounts a body selects, and the path an issue names, are the reference's own
function accountsOf(ctx: Ctx, ids: string[] | undefined): number {
  if (!ids) return ctx.ws.accounts.size;
  for (const id of ids) accountIn(ctx.ws, id);
  return ids.length;
}

function preview(ctx: Ctx) {
  const b = parseBody(previewBody, ctx.body, 'body', ctx.relax, ctx.store.reading);
  const n = accountsOf(ctx, b.accountIds);
  return { status: 200, body: ctx.store.choices.layout.computePreview(b.job, n) };
}

// Stryker restore all

function start(ctx: Ctx) {
  // Stryker disable next-line StringLiteral: the path an issue names is free (7: data not shown)
  const b = parseBody(runBody, ctx.body, 'body', ctx.relax, ctx.store.reading);
  const n = accountsOf(ctx, b.accountIds);
  // Stryker disable next-line StringLiteral: a run's fields are not shown (2.8), and its states not named (4.8)
  const run: ComputeRun = { id: ctx.store.newId(), job: b.job, status: 'queued', reason: b.reason, accounts: n, createdAt: ctx.store.now(), completedAt: null, result: null };
  ctx.ws.computeRuns.set(run.id, run);
  ctx.scheduler.schedule(ctx.ws, run.id);
  const { choices } = ctx.store;
  // Stryker disable next-line StringLiteral: a Location header is read for its last segment only (the run id): its prefix is not judged
  const started = choices.layout.computeRunStarted(run, '/api/v1');
  // Stryker disable next-line ObjectLiteral: an answer that names no run id leaves OPS-012 not observable (the answer's shape is not shown), and an empty 2xx is still a 2xx
  return { status: choices.status.computeRun, body: started.body, ...(started.headers ? { headers: started.headers } : {}) };
}

function get(ctx: Ctx) {
  const id = lookupId(ctx.params.id!, ctx.store.reading);
  const { choices } = ctx.store;
  const run = ctx.faults.has('compute-runs-not-pollable') ? undefined : ctx.ws.computeRuns.get(id);
  if (!run) {
    // Stryker disable next-line all: 403 or 404 for another workspace's run are both AUTH-012's readings; only the status differs
    const foreign = choices.status.foreignId === 403 && [...ctx.store.workspaces.values()].some((w) => w.computeRuns.has(id));
    throw foreign ? new ApiError(403, 'The compute run belongs to another workspace') : notFound('No such compute run in this workspace');
  }
  // Stryker disable next-line all: when a run finishes is not shown (4.9, 8): a run still queued answers the poll 2xx all the same
  if (run.status === 'queued') ctx.scheduler.runNow(ctx.ws, id);
  return { status: 200, body: choices.layout.computeRun(run) };
}

const gated = { billable: true, scopes: ['admin'] as const, roles: ['owner', 'admin'] as const, capability: 'graphCompute' as const, body: true };

export const COMPUTE_ROUTES: readonly Route[] = [
  { method: 'POST', pattern: '/compute/preview', surface: 'api:compute.preview', ...gated, handle: preview },
  { method: 'POST', pattern: '/compute/runs', surface: 'api:compute.run', ...gated, handle: start },
  { method: 'GET', pattern: '/compute/runs/:id', surface: 'api:compute.get', billable: false, handle: get },
];
