/**
 * What the billing suite's checks share beyond the engine's ledger service (`ctx.ledger`):
 * which answers are refusals, and extra owner keys.
 */
import type { CheckContext, KeyHandle, Scope } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';

/** 401 and 429 have clauses of their own (BILL-007, BILL-008); every other 4xx is a refusal of BILL-006. */
export const isRefusal = (s: number): boolean => s >= 400 && s < 500 && s !== 401 && s !== 429;

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
