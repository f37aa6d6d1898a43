/**
 * Prices that depend on what a call did: an idempotent replay is not billed again on any of the
 * five endpoints that take an Idempotency-Key (seed part 8 billing rule 5, 4.1), and a successful agent preview incurs its quoted preview fee (rule 4).
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { describeBound } from '../../src/engine/waits.ts';
import { callOf, chargeEvidence, type Measured } from '../../src/engine/ledger.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import {
  AGENT_CALL_CREDITS,
  AGENT_CALL_MAX_CREDITS,
  applyUpdateBody,
  archiveIfCreated,
  idempotencyKey,
  makeAccount,
  previewAndQuote,
  QUOTE_BOUND_MS,
  QUOTE_PATIENCE_MS,
  type AccountFixture,
} from '../_shared/ops-fixtures.ts';
import { isObject } from '../_shared/json.ts';
import type { Shape } from '../_shared/ops-shapes.ts';

/** One write of seed 4.1, built once the steps before it have run. */
interface ReplayStep {
  label: string;
  request(st: { definitionId?: string; slugs?: [string, string]; fx?: AccountFixture }): Shape | undefined;
}

/** The five endpoints of 4.1, in dependency order: the create first, the archive last. */
const REPLAYED: readonly ReplayStep[] = [
  { label: 'POST /definitions', request: () => undefined },
  {
    label: 'PATCH /definitions/{id}',
    request: (st) => (st.definitionId ? { method: 'PATCH', path: `/definitions/${st.definitionId}`, body: { reason: 'conformance check', description: 'replayed update' } } : undefined),
  },
  {
    label: 'POST /definitions/{id}/merge-value',
    request: (st) =>
      st.definitionId && st.slugs
        ? { method: 'POST', path: `/definitions/${st.definitionId}/merge-value`, body: { fromSlug: st.slugs[0], intoSlug: st.slugs[1], reason: 'conformance check' } }
        : undefined,
  },
  { label: 'POST /operations', request: (st) => (st.fx ? { method: 'POST', path: '/operations', body: applyUpdateBody(st.fx, 'Replayed title') } : undefined) },
  {
    label: 'POST /definitions/{id}/archive',
    request: (st) => (st.definitionId ? { method: 'POST', path: `/definitions/${st.definitionId}/archive`, body: { reason: 'conformance check' } } : undefined),
  },
];

export const replayFree: CheckDef = {
  id: 'billing/replay-free',
  title: 'Replaying a write with the same Idempotency-Key costs nothing, on each of the five endpoints that take one',
  clauses: ['BILL-010'],
  endpoints: ['createDefinition', 'updateDefinition', 'mergeDefinitionValue', 'submitOperation', 'archiveDefinition'],
  needs: { ledger: true, control: true, mutation: true },
  // The five originals; the clean-up archive of the archived definition is refused.
  credits: REPLAYED.length,
  // A target may accept archiving it again.
  maxCredits: REPLAYED.length + 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-010');
    const owner = ctx.key('owner');
    const st: { definitionId?: string; slugs?: [string, string]; fx?: AccountFixture } = { fx: await makeAccount(ctx, 'bill-replay') };
    const createBody = minimalCreateBody(ctx, { enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] });
    const refused: string[] = [];
    await ctx.ledger.quiet();
    const pending: { first: Measured<Exchange>; m: Measured<Exchange>; original: Exchange }[] = [];
    const doubts: string[] = [];
    for (const step of REPLAYED) {
      const shape: Shape | undefined = step.label === 'POST /definitions' ? { method: 'POST', path: '/definitions', body: createBody } : step.request(st);
      if (!shape) {
        refused.push(`${step.label} (an earlier step it depends on was refused)`);
        continue;
      }
      const idem = idempotencyKey(ctx);
      // The original is measured too (owed its credit), so that its charge, however late it
      // is recorded, is attributed to it and never to the replay; the waits of all overlap.
      const first = await ctx.ledger.measure(() => ctx.api.send({ ...shape, key: owner, idempotencyKey: idem }), { atLeast: (ex) => (is2xx(ex) ? 1 : 0), defer: true });
      const original = first.result;
      archiveIfCreated(ctx, owner, original);
      if (!is2xx(original)) {
        refused.push(callOf(original));
        continue;
      }
      if (step.label === 'POST /definitions') {
        const body = original.response?.json;
        if (isObject(body) && typeof body.id === 'string') st.definitionId = body.id;
        const slugs = isObject(body) && Array.isArray(body.enum_values) ? body.enum_values.map((v) => (isObject(v) ? v.slug : undefined)) : [];
        if (typeof slugs[0] === 'string' && typeof slugs[1] === 'string') st.slugs = [slugs[0], slugs[1]];
      }
      const m = await ctx.ledger.measure(() => ctx.api.send({ ...shape, key: owner, idempotencyKey: idem }), { defer: true });
      pending.push({ first, m, original });
    }
    // Concluded side by side (the original before its replay), judged in order.
    const finals = await inParallel(pending, WIDE_PARALLEL, async ({ first, m }) => (await first.final(), m.final()));
    for (const [i, { original }] of pending.entries()) {
      const f = finals[i]!;
      if (f.delta !== 0) ctx.softFail(chargeEvidence('BILL-010', f.result, f, [0], [original]));
      else if (f.doubt) doubts.push(`${callOf(f.result)} showed no charge, but ${f.doubt}`);
      else ctx.judged('BILL-010');
    }
    if (pending.length === 0) throw new NotObservable(`no original write succeeded, so there is nothing to replay: ${refused.join('; ')}`);
    if (doubts.length > 0) throw new NotObservable(doubts.join('; '));
  },
};

export const previewFee: CheckDef = {
  id: 'billing/preview-fee',
  title: 'A successful agent preview grows the ledger by its quoted preview fee (alone or on top of the call)',
  clauses: ['BILL-011'],
  needs: { ledger: true, control: true, mutation: true },
  // The preview (its fee is its credit on the reference); polling its receipt is free.
  credits: AGENT_CALL_CREDITS,
  // A fee charged on top of the call.
  maxCredits: AGENT_CALL_MAX_CREDITS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-011');
    const owner = ctx.key('owner');
    const fx = await makeAccount(ctx, 'bill-preview');
    await ctx.ledger.quiet();
    // The receipt is polled inside the measurement: the fee may be charged when the preview
    // runs. The polls' own charges are left out (their price is BILL-004's).
    const m = await ctx.ledger.measure(() => previewAndQuote(ctx, owner, [fx.accountId], { patienceMs: QUOTE_PATIENCE_MS }), {
      priced: (r) => [r.submitted],
      atLeast: (r) => (is2xx(r.submitted) && typeof r.quote.apiPreviewCredits === 'number' ? r.quote.apiPreviewCredits : 0),
    });
    const { submitted, polls, quote } = m.result;
    if (!is2xx(submitted)) throw new NotObservable(`the preview was refused (${callOf(submitted)}), so it incurred no fee`);
    const fee = quote.apiPreviewCredits;
    // The fee incurred must be the quoted one: a preview that charges without quoting a numeric
    // fee (in its answer or its receipt) cannot have incurred "its quoted preview fee".
    if (typeof fee !== 'number' || !Number.isFinite(fee)) {
      throw new Finding({
        clause: 'BILL-011',
        message: `the successful preview quoted no numeric preview fee (apiPreviewCredits ${fee === undefined ? `not found in the answer or the receipt polled within ${describeBound(ctx.run, QUOTE_BOUND_MS)}` : `is ${JSON.stringify(fee)}`})`,
        expected: 'apiPreviewCredits as a number, and the ledger grown by it (or by 1 + it)',
        received: `apiPreviewCredits ${JSON.stringify(fee)}; the ledger grew by ${m.delta}`,
        exchange: polls[polls.length - 1] ?? submitted,
      });
    }
    ctx.judged('BILL-011');
    if (m.delta !== fee && m.delta !== fee + 1) throw new Finding(chargeEvidence('BILL-011', submitted, m, [fee, fee + 1], polls.slice(-1)));
  },
};
