/**
 * The scope matrix, derived from the document: which scopes each permission row requires is
 * read from specs/openapi.yaml (x-wgc-access of an endpoint, or the root x-wgc-operations
 * entry of a catalog operation), never typed into a check. The cast is every single scope, no
 * scope, every scope, and the agent scopes minus each one (suites/_shared/access-cast.ts).
 */
import type { CheckContext, KeyHandle, Scope } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { ALL_SCOPES, availableKeys, holdsAll, scopeMatrixCast } from '../_shared/access-cast.ts';
import type { Expectation } from '../_shared/access-judge.ts';

/** The suite's cast (computed once; it is plain data). */
export const CAST = scopeMatrixCast();

/** The scopes an endpoint requires (x-wgc-access.scopes of its operationId); a harness error when none are given. */
export async function endpointScopes(operationId: string): Promise<readonly Scope[]> {
  const op = (await loadSpec()).operation(operationId);
  const scopes = op.access.scopes;
  if (!scopes || scopes.length === 0) throw new Error(`specs/openapi.yaml gives ${operationId} no required scopes: it is not a row of the scope matrix`);
  return scopes;
}

/** The scopes a catalog operation requires (root x-wgc-operations); a harness error when none are given. */
export async function catalogScopes(name: string): Promise<readonly Scope[]> {
  const rule = (await loadSpec()).catalogOperations[name];
  if (!rule?.scopes || rule.scopes.length === 0) throw new Error(`specs/openapi.yaml x-wgc-operations gives ${name} no required scopes`);
  return rule.scopes;
}

/**
 * How many cast members hold every scope of `scopes`: the keys a row's sweep gets 2xx answers
 * for on a conformant target (every cast member is provisioned), for credit plans.
 */
export function castHolding(scopes: readonly Scope[]): number {
  return Object.values(CAST).filter((m) => scopes.every((s) => m.scopes.includes(s))).length;
}

/** Every cast key the target could supply. */
export const matrixKeys = (ctx: CheckContext): KeyHandle[] => availableKeys(ctx, Object.keys(CAST));

/** The key holding every scope: it establishes request shapes and reads back. */
export function fullKey(ctx: CheckContext): KeyHandle {
  return ctx.key(ALL_SCOPES);
}

/** "allow" when the key holds every required scope, else "refuse". */
export const byScopes =
  (required: readonly Scope[]) =>
  (key: KeyHandle): Expectation =>
    holdsAll(key, required) ? 'allow' : 'refuse';

/**
 * The keys that should be refused and those that should be let through, refused ones first
 * (read-backs after a refusal then see only refusals). Not observable without at least one of each.
 */
export function split(ctx: CheckContext, required: readonly Scope[], what: string): { refused: KeyHandle[]; permitted: KeyHandle[] } {
  const keys = matrixKeys(ctx);
  const refused = keys.filter((k) => !holdsAll(k, required));
  const permitted = keys.filter((k) => holdsAll(k, required));
  if (refused.length === 0 || permitted.length === 0) {
    throw new NotObservable(`${what}: needs keys with and without [${required.join(', ')}]; the target supplied ${keys.map((k) => k.name).join(', ') || 'none'}`);
  }
  return { refused, permitted };
}
