/**
 * Cast matching without control: a suite's cast names the keys it needs (role and scopes);
 * the operator's keys are matched to it by what GET /me said. A cast member no key fits
 * gets a reason instead, which makes every check that asks for it "not observable".
 */
import { ROLES, type CastMember, type KeyHandle, type Role, type Scope } from '../vocabulary.ts';
import type { IntrospectedKey, SuppliedKey } from './introspect.ts';

export interface CastMatch {
  /** Cast name → the key that fills it (a key may fill several cast names). */
  keys: Map<string, KeyHandle>;
  /** Cast name → why no supplied key fits (no secrets in it). */
  unmatched: Map<string, string>;
}

const article = (role: string): string => (/^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`);

/** "exactly scopes [admin] held by an analyst" */
export function describeCastMember(member: CastMember): string {
  const roles = (Array.isArray(member.role) ? member.role : [member.role]) as readonly string[];
  const exact = member.exact ?? true;
  const holder = roles.map(article).join(' or ');
  return `${exact ? 'exactly' : 'at least'} scopes [${member.scopes.join(', ')}] held by ${holder}`;
}

function fits(member: CastMember, key: Extract<IntrospectedKey, { ok: true }>): boolean {
  const roles = (Array.isArray(member.role) ? member.role : [member.role]) as readonly string[];
  if (!roles.includes(key.role)) return false;
  const has = new Set(key.scopes);
  if (!member.scopes.every((s) => has.has(s))) return false;
  return (member.exact ?? true) ? has.size === new Set(member.scopes).size : true;
}

function summary(keys: readonly IntrospectedKey[]): string {
  if (keys.length === 0) return 'no keys were supplied (list them in the target profile under "keys")';
  return keys.map((k) => (k.ok ? `${k.name} (${k.role}, [${k.scopes.join(', ')}])` : `${k.name} (${k.problem})`)).join('; ');
}

/** Matches supplied keys to the cast. Prefers the key with the fewest extra scopes. */
export function matchCast(cast: Record<string, CastMember>, supplied: readonly SuppliedKey[], introspected: readonly IntrospectedKey[]): CastMatch {
  const secretOf = new Map(supplied.map((k) => [k.name, k.secret]));
  const usable = introspected.filter((k): k is Extract<IntrospectedKey, { ok: true }> => k.ok && secretOf.has(k.name));
  const keys = new Map<string, KeyHandle>();
  const unmatched = new Map<string, string>();
  for (const [castName, member] of Object.entries(cast)) {
    const best = usable.filter((k) => fits(member, k)).sort((a, b) => a.scopes.length - b.scopes.length)[0];
    if (!best || !(ROLES as readonly string[]).includes(best.role)) {
      unmatched.set(castName, `needs a key with ${describeCastMember(member)}; the supplied keys are: ${summary(introspected)}`);
      continue;
    }
    const handle: KeyHandle = {
      name: castName,
      secret: secretOf.get(best.name)!,
      role: best.role as Role,
      scopes: best.scopes as Scope[],
    };
    if (best.userId) handle.userId = best.userId;
    if (best.workspaceId) handle.workspaceId = best.workspaceId;
    keys.set(castName, handle);
  }
  return { keys, unmatched };
}
