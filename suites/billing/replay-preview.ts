/**
 * Prices that depend on what a call did: an idempotent replay is not billed again (seed part 8
 * billing rule 5), and a successful agent preview incurs its quoted preview fee (rule 4).
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { describeBound } from '../../src/engine/waits.ts';
import { billingContext, callOf, chargeEvidence, chargesLanded, measureCharges, quietLedger } from '../_shared/ledger-measure.ts';
import { AGENT_CALL_CREDITS, AGENT_CALL_MAX_CREDITS, archiveIfCreated, idempotencyKey, makeAccount, previewAndQuote, QUOTE_BOUND_MS, QUOTE_PATIENCE_MS } from '../_shared/ops-fixtures.ts';

export const replayFree: CheckDef = {
  id: 'billing/replay-free',
  title: 'Replaying a write with the same Idempotency-Key costs nothing',
  clauses: ['BILL-010'],
  needs: { ledger: true, mutation: true },
  // The original create and its clean-up archive.
  credits: 2,
  async run(ctx) {
    ctx = billingContext(ctx, 'BILL-010');
    const owner = ctx.key('owner');
    const idem = idempotencyKey(ctx);
    const body = minimalCreateBody(ctx);
    const base = await quietLedger(ctx);
    const original = await ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body });
    if (!is2xx(original)) throw new NotObservable(`the original write was refused (${callOf(original)}), so there is nothing to replay`);
    archiveIfCreated(ctx, owner, original);
    // The original's credit, possibly recorded late, must not be taken for the replay's.
    await chargesLanded(ctx, base, [original]);
    const m = await measureCharges(ctx, () => ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body }));
    if (m.delta !== 0) throw new Finding(chargeEvidence('BILL-010', m.result, m, [0], [original]));
    if (m.doubt) throw new NotObservable(`${callOf(m.result)} showed no charge, but ${m.doubt}`);
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
    ctx = billingContext(ctx, 'BILL-011');
    const owner = ctx.key('owner');
    const fx = await makeAccount(ctx, 'bill-preview');
    await quietLedger(ctx);
    // The receipt is polled inside the measurement: the fee may be charged when the preview
    // runs. The polls' own charges are left out (their price is BILL-004's).
    const m = await measureCharges(ctx, () => previewAndQuote(ctx, owner, [fx.accountId], { patienceMs: QUOTE_PATIENCE_MS }), {
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
    if (m.delta !== fee && m.delta !== fee + 1) throw new Finding(chargeEvidence('BILL-011', submitted, m, [fee, fee + 1], polls.slice(-1)));
  },
};
