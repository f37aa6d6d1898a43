/**
 * Seed part 8 billing rule 2 and part 7 rule 2: failed calls are not billed. Each check
 * provokes one kind of failure on an endpoint that would be billed had it succeeded, and
 * measures the ledger around it. An answer that is not the failure in question (the target
 * let the call through) is not judged here: other suites own that.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { randomUUID } from 'node:crypto';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { billingContext, callOf, chargeEvidence, chargesLanded, measureCharges, quietLedger } from '../_shared/ledger-measure.ts';
import { archiveIfCreated, idempotencyKey } from '../_shared/ops-fixtures.ts';

/**
 * Measures `send` (deferred); when the answer's status passes `judged`, `conclude` checks that
 * it cost nothing: a charge is a soft finding on `clause`; a call seen uncharged on a ledger
 * that has recorded charges later than the suite waits returns why that "free" is in doubt. A
 * 2xx (every call here is to a billed endpoint) is expected to cost its credit, which the
 * ledger's entries attribute to it. Conclude the measurements of a check together, at its end:
 * their waits then overlap.
 */
async function measureUnbilled(
  ctx: CheckContext,
  clause: string,
  judged: (status: number) => boolean,
  send: () => Promise<Exchange>,
  context?: Exchange[],
): Promise<{ ex: Exchange; judged: boolean; conclude: () => Promise<string | undefined> }> {
  const m = await measureCharges(ctx, send, { atLeast: (ex) => (is2xx(ex) ? 1 : 0), defer: true });
  const status = m.result.response?.status;
  if (status === undefined || !judged(status)) return { ex: m.result, judged: false, conclude: async () => void (await m.final()) };
  const conclude = async () => {
    const f = await m.final();
    if (f.delta !== 0) ctx.softFail(chargeEvidence(clause, f.result, f, [0], context));
    return f.delta === 0 && f.doubt ? `${callOf(f.result)} showed no charge, but ${f.doubt}` : undefined;
  };
  return { ex: m.result, judged: true, conclude };
}

/** Concludes deferred measurements in order; not observable when any "free" is in doubt. */
async function concludeAll(pending: readonly (() => Promise<string | undefined>)[]): Promise<void> {
  const doubts: string[] = [];
  for (const conclude of pending) {
    const doubt = await conclude();
    if (doubt) doubts.push(doubt);
  }
  if (doubts.length > 0) throw new NotObservable(doubts.join('; '));
}

// 401 and 429 have clauses of their own (BILL-007, BILL-008); every other 4xx is a refusal here.
const isRefusal = (s: number) => s >= 400 && s < 500 && s !== 401 && s !== 429;

export const refusalsFree: CheckDef = {
  id: 'billing/refusals-free',
  title: '400 (or 422), 403, 404 and 409 answers (and an unknown operation refused) cost nothing',
  clauses: ['BILL-006'],
  needs: { ledger: true, mutation: true },
  // The definition whose Idempotency-Key is reused, and its clean-up archive.
  credits: 2,
  async run(ctx) {
    ctx = billingContext(ctx, 'BILL-006');
    const owner = ctx.key('owner');
    const reader = ctx.key('reader');
    const seen: string[] = [];
    const pending: (() => Promise<string | undefined>)[] = [];
    await quietLedger(ctx);
    const probe = async (send: () => Promise<Exchange>, context?: Exchange[]) => {
      const r = await measureUnbilled(ctx, 'BILL-006', isRefusal, send, context);
      archiveIfCreated(ctx, owner, r.ex);
      if (r.judged) seen.push(callOf(r.ex));
      pending.push(r.conclude);
    };
    // 400: required fields missing.
    await probe(() => ctx.api.send({ method: 'POST', path: '/definitions', key: owner, body: { reason: 'conformance check: incomplete body' } }));
    // 403: a key without admin creates.
    await probe(() => ctx.api.send({ method: 'POST', path: '/definitions', key: reader, body: minimalCreateBody(ctx) }));
    // 404: well-formed ids that name nothing.
    await probe(() => ctx.api.send({ method: 'PATCH', path: `/definitions/${randomUUID()}`, key: owner, body: { reason: 'conformance check' } }));
    await probe(() => ctx.api.send({ method: 'GET', path: `/data/accounts/${randomUUID()}`, key: owner }));
    // An operation outside the catalog.
    await probe(() => ctx.api.send({ method: 'POST', path: '/operations', key: owner, idempotencyKey: idempotencyKey(ctx), body: { operation: 'wgc.no_such_operation', arguments: {}, reason: 'conformance check' } }));
    // 409: an Idempotency-Key reused with different input.
    const idem = idempotencyKey(ctx);
    const base = await quietLedger(ctx);
    const first = await ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body: minimalCreateBody(ctx) });
    archiveIfCreated(ctx, owner, first);
    // The first create's credit, possibly recorded late, must not be taken for the 409's.
    await chargesLanded(ctx, base, [first]);
    if (is2xx(first)) await probe(() => ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body: minimalCreateBody(ctx) }), [first]);
    await concludeAll(pending);
    if (seen.length === 0) throw new NotObservable('the target refused none of the calls meant to be refused, so no refusal could be priced');
  },
};

export const unauthorizedFree: CheckDef = {
  id: 'billing/unauthorized-free',
  title: 'Calls with a revoked or a disabled key of the workspace (answered 401) cost nothing',
  clauses: ['BILL-007'],
  needs: { ledger: true, control: true },
  credits: 0,
  async run(ctx) {
    ctx = billingContext(ctx, 'BILL-007');
    const owner = ctx.key('owner');
    if (!owner.userId) throw new NotObservable('the owner key has no known member id, so no extra key can be made for it');
    await quietLedger(ctx);
    let judged = 0;
    const pending: (() => Promise<string | undefined>)[] = [];
    for (const action of ['revoke', 'disable'] as const) {
      const made = await ctx.control.createKey(ctx.workspaceId, owner.userId, ['graph:read']);
      const key: KeyHandle = { name: `${action}d`, secret: made.secret, role: owner.role, scopes: ['graph:read'], keyId: made.keyId };
      await (action === 'revoke' ? ctx.control.revokeKey(made.keyId) : ctx.control.disableKey(made.keyId));
      // GET /definitions would cost a credit had the key been accepted. Such a call must be
      // rejected (401), and rejected calls are free: whatever the answer, the workspace of a
      // key that can no longer call must not pay for the call.
      const r = await measureUnbilled(ctx, 'BILL-007', () => true, () => ctx.api.send({ method: 'GET', path: '/definitions', key, query: { limit: 1 } }));
      if (r.ex.response) judged++;
      pending.push(r.conclude);
    }
    await concludeAll(pending);
    if (judged === 0) throw new NotObservable('neither the revoked nor the disabled key got an answer, so nothing could be priced');
  },
};

/** The value of a GET /me capability switch, to restore it exactly; true when unreadable. */
async function capabilitySwitch(ctx: CheckContext, key: KeyHandle, name: string): Promise<boolean> {
  const me = await ctx.api.send({ method: 'GET', path: '/me', key });
  const caps = isObject(me.response?.json) ? me.response.json.capabilities : undefined;
  return isObject(caps) && typeof caps[name] === 'boolean' ? caps[name] : true;
}

export const unavailableFree: CheckDef = {
  id: 'billing/unavailable-free',
  title: 'A 5xx answer (503 of a switched-off capability) costs nothing',
  clauses: ['BILL-009'],
  needs: { ledger: true, control: true },
  // The listing is answered 503: free.
  credits: 0,
  // A target that ignores the capability switch lets the listing through.
  maxCredits: 1,
  async run(ctx) {
    ctx = billingContext(ctx, 'BILL-009');
    const owner = ctx.key('owner');
    const was = await capabilitySwitch(ctx, owner, 'definitions');
    const restore = () => ctx.control.setCapabilities(ctx.workspaceId, { definitions: was });
    ctx.cleanup(restore);
    await ctx.control.setCapabilities(ctx.workspaceId, { definitions: false });
    await quietLedger(ctx);
    try {
      const r = await measureUnbilled(ctx, 'BILL-009', (s) => s >= 500, () => ctx.api.send({ method: 'GET', path: '/definitions', key: owner, query: { limit: 1 } }));
      await concludeAll([r.conclude]);
      if (!r.judged) throw new NotObservable(`with definitions switched off, ${callOf(r.ex)}: no 5xx to price`);
    } finally {
      await restore();
    }
  },
};

export const rateLimitedFree: CheckDef = {
  id: 'billing/rate-limited-free',
  title: 'A 429 answer costs nothing',
  clauses: ['BILL-008'],
  needs: { ledger: true, control: true },
  // The first GET /definitions is admitted (the limit counts calls from when it is set), the
  // second is answered 429.
  credits: 1,
  // A target counting earlier calls admits none; one that admits more than the limit (a
  // failure) at most the six the check sends.
  maxCredits: 6,
  async run(ctx) {
    ctx = billingContext(ctx, 'BILL-008');
    const owner = ctx.key('owner');
    const restore = () => ctx.control.setRateLimit(ctx.workspaceId, null);
    ctx.cleanup(restore);
    await quietLedger(ctx);
    await ctx.control.setRateLimit(ctx.workspaceId, 1);
    try {
      const sent: Exchange[] = [];
      const pending: (() => Promise<string | undefined>)[] = [];
      // Bounded: with one call a minute allowed, the second call at the latest is over the limit.
      for (let i = 0; i < 6; i++) {
        const r = await measureUnbilled(ctx, 'BILL-008', (s) => s === 429, () => ctx.api.send({ method: 'GET', path: '/definitions', key: owner, query: { limit: 1 }, retry429: false }), [...sent]);
        pending.push(r.conclude);
        if (r.judged) return await concludeAll(pending);
        sent.push(r.ex);
      }
      await concludeAll(pending);
      throw new NotObservable(`with a limit of 1 call a minute, ${sent.length} calls got no 429 (${sent.map(callOf).join('; ')}), so no 429 could be priced`);
    } finally {
      await restore();
    }
  },
};
