/**
 * What the billing suite's checks of unbilled answers share: a deferred measurement of one call
 * that must cost nothing when its answer is the failure in question, and their joint conclusion.
 */
import type { CheckContext, KeyHandle, Scope } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { callOf, chargeEvidence, measureCharges } from '../_shared/ledger-measure.ts';

/** 401 and 429 have clauses of their own (BILL-007, BILL-008); every other 4xx is a refusal of BILL-006. */
export const isRefusal = (s: number): boolean => s >= 400 && s < 500 && s !== 401 && s !== 429;

/**
 * Measures `send` (deferred); when the answer's status passes `judged`, `conclude` checks that
 * it cost nothing: a charge is a soft finding on `clause`; a call seen uncharged on a ledger
 * that has recorded charges later than the suite waits returns why that "free" is in doubt. A
 * 2xx of a billed endpoint (`billed`) is expected to cost its credit, which the ledger's
 * entries attribute to it. Conclude the measurements of a check together, at its end:
 * their waits then overlap.
 */
export async function measureUnbilled(
  ctx: CheckContext,
  clause: string,
  judged: (status: number) => boolean,
  send: () => Promise<Exchange>,
  context?: Exchange[],
  billed = true,
): Promise<{ ex: Exchange; judged: boolean; conclude: () => Promise<string | undefined> }> {
  const m = await measureCharges(ctx, send, { atLeast: (ex) => (billed && is2xx(ex) ? 1 : 0), defer: true });
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
export async function concludeAll(pending: readonly (() => Promise<string | undefined>)[]): Promise<void> {
  const doubts: string[] = [];
  for (const conclude of pending) {
    const doubt = await conclude();
    if (doubt) doubts.push(doubt);
  }
  if (doubts.length > 0) throw new NotObservable(doubts.join('; '));
}


/**
 * A new key of the owner cast member with exactly `scopes` (test-control protocol), labelled
 * `name` in captured exchanges. Not observable when the owner's member id is not known.
 */
export async function ownerKeyWith(ctx: CheckContext, scopes: readonly Scope[], name: string): Promise<KeyHandle> {
  const owner = ctx.key('owner');
  if (!owner.userId) throw new NotObservable('the owner key has no known member id, so no extra key can be made for it');
  const made = await ctx.control.createKey(ctx.workspaceId, owner.userId, scopes);
  return { name, secret: made.secret, role: owner.role, scopes: [...scopes], keyId: made.keyId };
}
