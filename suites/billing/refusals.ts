/**
 * Seed part 8 billing rule 2 and part 7 rule 2: failed calls are not billed. Each check
 * provokes one kind of failure on an endpoint that would be billed had it succeeded, and
 * measures the ledger around it. An answer that is not the failure in question (the target
 * let the call through) is not judged here: other suites own that.
 */
import { SCOPES, type CheckContext, type CheckDef, type KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { randomUUID } from 'node:crypto';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { capabilitySwitches } from '../_shared/capability-switches.ts';
import { callOf } from '../../src/engine/ledger.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { isRefusal, ownerKeyWith } from './support.ts';
import { WIDE_PARALLEL } from '../_shared/parallel.ts';
import type { FreeCall, PendingFree } from '../../src/engine/ledger.ts';
import { BILLED_ENDPOINTS, everyEndpoint, STARTS_WORK } from '../_shared/every-endpoint.ts';
import { archiveIfCreated, idempotencyKey } from '../_shared/ops-fixtures.ts';

export const refusalsFree: CheckDef = {
  id: 'billing/refusals-free',
  title: '400 (or 422), 403, 404 and 409 answers (and an unknown operation refused) cost nothing',
  clauses: ['BILL-006'],
  endpoints: ['createDefinition', 'updateDefinition', 'getAccount', 'submitOperation'],
  needs: { ledger: true, mutation: true },
  // The definition whose Idempotency-Key is reused, and its clean-up archive.
  credits: 2,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-006');
    const owner = ctx.key('owner');
    const reader = ctx.key('reader');
    const seen: string[] = [];
    const pending: PendingFree[] = [];
    await ctx.ledger.quiet();
    const probe = async (send: () => Promise<Exchange>, context?: Exchange[]) => {
      const r = await ctx.ledger.expectFree('BILL-006', send, { judged: isRefusal, context });
      archiveIfCreated(ctx, owner, r.ex);
      if (r.judged) seen.push(callOf(r.ex));
      pending.push(r);
    };
    // 400: required fields missing.
    await probe(() => ctx.api.send({ method: 'POST', path: '/definitions', key: owner, body: { reason: 'conformance check: incomplete body' } }));
    // 403: a key without admin creates.
    await probe(() => ctx.api.send({ method: 'POST', path: '/definitions', key: reader, body: minimalCreateBody(ctx) }));
    // 404: well-formed ids that name nothing.
    await probe(() => ctx.api.send({ method: 'PATCH', path: `/definitions/${randomUUID()}`, key: owner, body: { reason: 'conformance check' } }));
    await probe(() => ctx.api.send({ method: 'GET', path: `/data/accounts/${randomUUID()}`, key: owner }));
    // An operation outside the catalog.
    await probe(() =>
      ctx.api.send({ method: 'POST', path: '/operations', key: owner, idempotencyKey: idempotencyKey(ctx), body: { operation: 'wgc.no_such_operation', arguments: {}, reason: 'conformance check' } }),
    );
    // 409: an Idempotency-Key reused with different input.
    const idem = idempotencyKey(ctx);
    const base = await ctx.ledger.quiet();
    const first = await ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body: minimalCreateBody(ctx) });
    archiveIfCreated(ctx, owner, first);
    // The first create's credit, possibly recorded late, must not be taken for the 409's.
    await ctx.ledger.chargesLanded(base, [first]);
    if (is2xx(first)) await probe(() => ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body: minimalCreateBody(ctx) }), [first]);
    await ctx.ledger.concludeAll(pending);
    if (seen.length === 0) throw new NotObservable('the target refused none of the calls meant to be refused, so no refusal could be priced');
  },
};

export const unauthorizedFree: CheckDef = {
  id: 'billing/unauthorized-free',
  title: 'Calls with a revoked or a disabled key of the workspace (answered 401) cost nothing, on every endpoint',
  clauses: ['BILL-007'],
  endpoints: 'every',
  needs: { ledger: true, control: true },
  credits: 0,
  // A target that lets a dead key through charges its billed calls (two keys).
  maxCredits: 2 * BILLED_ENDPOINTS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-007');
    await ctx.ledger.quiet();
    // Every scope, so the key's standing is the only reason to refuse it anywhere.
    const actions = ['revoke', 'disable'] as const;
    const keys = await Promise.all(
      actions.map(async (action) => {
        const key = await ownerKeyWith(ctx, SCOPES, `${action}d`);
        await (action === 'revoke' ? ctx.control.revokeKey(key.keyId!) : ctx.control.disableKey(key.keyId!));
        return key;
      }),
    );
    // Every endpoint (the billed ones would cost a credit had the key been accepted), with each
    // key. Such a call must be rejected (401), and rejected calls are free: whatever the answer,
    // the workspace of a key that can no longer call must not pay for the call.
    const calls: FreeCall[] = [];
    for (const [k, action] of actions.entries())
      for (const e of await everyEndpoint(ctx, { readOnly: ctx.run.readOnly }))
        calls.push({ send: () => ctx.api.send({ ...e.request, key: keys[k]!, auth: action === 'revoke' ? 'bearer' : 'x-api-key' }), billed: e.billed });
    const pending = await ctx.ledger.expectFreeEach('BILL-007', calls, { n: WIDE_PARALLEL });
    await ctx.ledger.concludeAll(pending);
    if (!pending.some((p) => p.ex.response)) throw new NotObservable('neither the revoked nor the disabled key got an answer, so nothing could be priced');
  },
};

/** The endpoints the 429 and 5xx sweeps send: all but those that start bulk work. */
const SWEPT = { except: STARTS_WORK };

/**
 * Every endpoint (but those that start bulk work, STARTS_WORK) sent once by `key`, each
 * measured: an answer `judged` passes must cost nothing. Returns the pending conclusions and
 * how many answers were judged.
 */
async function sweepUnbilled(
  ctx: CheckContext,
  clause: string,
  key: KeyHandle,
  judged: (status: number) => boolean,
  context: Exchange[] = [],
): Promise<{ pending: PendingFree[]; judged: number; sent: Exchange[] }> {
  const endpoints = (await everyEndpoint(ctx, { readOnly: ctx.run.readOnly })).filter((e) => !STARTS_WORK.includes(e.operationId));
  const calls = endpoints.map((e): FreeCall => ({ send: () => ctx.api.send({ ...e.request, key, retry429: false }), judged, context, billed: e.billed }));
  const pending = await ctx.ledger.expectFreeEach(clause, calls, { n: WIDE_PARALLEL, answered: (ex) => archiveIfCreated(ctx, key, ex) });
  return { pending, judged: pending.filter((p) => p.judged).length, sent: pending.map((p) => p.ex) };
}

export const unavailableFree: CheckDef = {
  id: 'billing/unavailable-free',
  title: 'A 5xx answer (503 of a switched-off capability) costs nothing, on every endpoint',
  clauses: ['BILL-009'],
  endpoints: SWEPT,
  needs: { ledger: true, control: true, mutation: true },
  // Every switch GET /me shows is turned off: the reference answers 503 wherever a switch
  // applies, and refuses the rest (fresh ids, a receipt of nothing): free.
  credits: 0,
  // A target whose switches do not cover an endpoint lets it through.
  maxCredits: BILLED_ENDPOINTS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-009');
    const owner = ctx.key('owner');
    const was = await capabilitySwitches(ctx, owner);
    const on = Object.keys(was).filter((k) => was[k]);
    if (on.length === 0) throw new NotObservable('GET /me shows no capability switched on, so none can be switched off to provoke a 503');
    const restore = () => ctx.control.setCapabilities(ctx.workspaceId, Object.fromEntries(on.map((k) => [k, true])));
    ctx.cleanup(restore);
    await ctx.control.setCapabilities(ctx.workspaceId, Object.fromEntries(on.map((k) => [k, false])));
    await ctx.ledger.quiet();
    try {
      const sweep = await sweepUnbilled(ctx, 'BILL-009', owner, (s) => s >= 500);
      await ctx.ledger.concludeAll(sweep.pending);
      if (sweep.judged === 0) throw new NotObservable(`with ${on.join(', ')} switched off, no endpoint answered 5xx (${sweep.sent.map(callOf).join('; ')}): no 5xx to price`);
    } finally {
      await restore();
    }
  },
};

export const rateLimitedFree: CheckDef = {
  id: 'billing/rate-limited-free',
  title: 'A 429 answer costs nothing, on every endpoint',
  clauses: ['BILL-008'],
  endpoints: SWEPT,
  needs: { ledger: true, control: true, mutation: true },
  // The first GET /definitions is admitted (the limit counts calls from when it is set); the
  // second and every endpoint after it are answered 429.
  credits: 1,
  // A target counting earlier calls admits none; one that admits more than the limit (a
  // failure) at most the six calls before the sweep, and the sweep's billed endpoints.
  maxCredits: 6 + BILLED_ENDPOINTS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-008');
    const owner = ctx.key('owner');
    const restore = () => ctx.control.setRateLimit(ctx.workspaceId, null);
    ctx.cleanup(restore);
    await ctx.ledger.quiet();
    await ctx.control.setRateLimit(ctx.workspaceId, 1);
    try {
      const sent: Exchange[] = [];
      const pending: PendingFree[] = [];
      // Bounded: with one call a minute allowed, the second call at the latest is over the limit.
      for (let i = 0; i < 6; i++) {
        const r = await ctx.ledger.expectFree('BILL-008', () => ctx.api.send({ method: 'GET', path: '/definitions', key: owner, query: { limit: 1 }, retry429: false }), {
          judged: (s) => s === 429,
          context: [...sent],
        });
        pending.push(r);
        sent.push(r.ex);
        if (!r.judged) continue;
        // Over the limit now: every endpoint, whose 429s must be free as well.
        const sweep = await sweepUnbilled(ctx, 'BILL-008', owner, (s) => s === 429, [...sent]);
        return await ctx.ledger.concludeAll([...pending, ...sweep.pending]);
      }
      await ctx.ledger.concludeAll(pending);
      throw new NotObservable(`with a limit of 1 call a minute, ${sent.length} calls got no 429 (${sent.map(callOf).join('; ')}), so no 429 could be priced`);
    } finally {
      await restore();
    }
  },
};
