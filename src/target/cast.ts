/**
 * Cast matching without control: a suite's cast names the keys it needs (role and scopes);
 * the operator's keys are matched to it by what GET /me said, its role read as the document's
 * word (roles.ts). A cast member no key fits gets a reason instead, which makes every check
 * that asks for it "not observable".
 */
import type { CastMember, KeyHandle, Role, Scope } from '../vocabulary.ts';
import type { IntrospectedKey, SuppliedKey } from './introspect.ts';
import { describeRole, documentRole, type RoleMap } from './roles.ts';

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

type Introspected = Extract<IntrospectedKey, { ok: true }>;

function fits(member: CastMember, key: Introspected, role: Role | undefined): boolean {
  const roles = (Array.isArray(member.role) ? member.role : [member.role]) as readonly Role[];
  if (role === undefined || !roles.includes(role)) return false;
  const has = new Set(key.scopes);
  if (!member.scopes.every((s) => has.has(s))) return false;
  return (member.exact ?? true) ? has.size === new Set(member.scopes).size : true;
}

/**
 * What GET /me said of each supplied key, its role as the target spelled it and as the document
 * reads it: "owner-key (Owner → owner, [graph:read]); old (GET /me answered 401)".
 */
export function describeKeys(keys: readonly IntrospectedKey[], roles: RoleMap = {}): string {
  if (keys.length === 0) return 'no keys were supplied (list them in the target profile under "keys")';
  return keys.map((k) => (k.ok ? `${k.name} (${describeRole(k.role, roles)}, [${k.scopes.join(', ')}])` : `${k.name} (${k.problem})`)).join('; ');
}

/**
 * Matches supplied keys to the cast, reading each key's role as the document's (`roles`: the
 * profile's mapping of the target's role names). Prefers the key with the fewest extra scopes.
 */
export function matchCast(cast: Record<string, CastMember>, supplied: readonly SuppliedKey[], introspected: readonly IntrospectedKey[], roles: RoleMap = {}): CastMatch {
  const secretOf = new Map(supplied.map((k) => [k.name, k.secret]));
  const usable = introspected.filter((k): k is Introspected => k.ok && secretOf.has(k.name)).map((key) => ({ key, role: documentRole(key.role, roles) }));
  const keys = new Map<string, KeyHandle>();
  const unmatched = new Map<string, string>();
  for (const [castName, member] of Object.entries(cast)) {
    const best = usable.filter((k) => fits(member, k.key, k.role)).sort((a, b) => a.key.scopes.length - b.key.scopes.length)[0];
    if (!best?.role) {
      unmatched.set(castName, `needs a key with ${describeCastMember(member)}; the supplied keys are: ${describeKeys(introspected, roles)}`);
      continue;
    }
    const { key, role } = best;
    const handle: KeyHandle = {
      name: castName,
      secret: secretOf.get(key.name)!,
      role,
      scopes: key.scopes as Scope[],
    };
    if (key.userId) handle.userId = key.userId;
    if (key.workspaceId) handle.workspaceId = key.workspaceId;
    keys.set(castName, handle);
  }
  return { keys, unmatched };
}
