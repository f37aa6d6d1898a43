/**
 * The keys a target without the test-control protocol should supply: the distinct needs of
 * every suite's cast (role and scopes), with a suggested key per need. Read from the suite
 * definitions, so the docs and the example profile follow the casts as they change.
 */
import { SCOPES, type CastMember, type Role, type Scope, type SuiteDef } from '../engine/check.ts';
import { describeCastMember } from '../target/cast.ts';

/** One distinct cast need and the cast names (suite/cast) it fills. */
export interface KeyNeed {
  /** Roles that fit (any one of them). */
  roles: readonly Role[];
  scopes: readonly Scope[];
  /** The key must hold exactly these scopes (false: at least these). */
  exact: boolean;
  /** "exactly scopes [admin] held by an analyst" */
  description: string;
  /** "suite/castName" of every cast member with this need. */
  usedBy: string[];
}

/** A key to supply: a label, the environment variable holding its secret, and what it is. */
export interface SuggestedKey {
  name: string;
  env: string;
  role: Role;
  scopes: readonly Scope[];
  /** Descriptions of the needs this key fills. */
  fills: string[];
}

const rolesOf = (m: CastMember): readonly Role[] => (Array.isArray(m.role) ? m.role : [m.role as Role]);
const sortedScopes = (scopes: readonly Scope[]): Scope[] => [...scopes].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b));

/** Distinct needs over all suites, in suite order, then cast order. */
export function keyNeeds(suites: readonly SuiteDef[]): KeyNeed[] {
  const byDescription = new Map<string, KeyNeed>();
  for (const suite of suites) {
    for (const [castName, member] of Object.entries(suite.cast)) {
      const normal: CastMember = { role: rolesOf(member), scopes: sortedScopes(member.scopes), exact: member.exact ?? true };
      const description = describeCastMember(normal);
      const need = byDescription.get(description);
      if (need) need.usedBy.push(`${suite.name}/${castName}`);
      else byDescription.set(description, { roles: rolesOf(member), scopes: normal.scopes, exact: normal.exact!, description, usedBy: [`${suite.name}/${castName}`] });
    }
  }
  return [...byDescription.values()];
}

function fits(need: KeyNeed, role: Role, scopes: readonly Scope[]): boolean {
  if (!need.roles.includes(role)) return false;
  if (!need.scopes.every((s) => scopes.includes(s))) return false;
  return !need.exact || scopes.length === need.scopes.length;
}

/** "owner-graph-read-graph-write", "owner-all-scopes", "owner-no-scope". */
function keyName(role: Role, scopes: readonly Scope[]): string {
  const what = scopes.length === 0 ? 'no-scope' : scopes.length === SCOPES.length ? 'all-scopes' : scopes.map((s) => s.replace(':', '-')).join('-');
  return `${role}-${what}`;
}

/**
 * One key per exact need (its first role), then one per "at least" need that none of those
 * keys already fills; every need ends up filled by some suggested key.
 */
export function suggestKeys(needs: readonly KeyNeed[]): SuggestedKey[] {
  const keys: SuggestedKey[] = [];
  const ordered = [...needs.filter((n) => n.exact), ...needs.filter((n) => !n.exact)];
  for (const need of ordered) {
    const existing = keys.find((k) => fits(need, k.role, k.scopes));
    if (existing) {
      existing.fills.push(need.description);
      continue;
    }
    // An "at least" need is best met by the broadest key: the owner with every scope serves many.
    const role = need.roles.includes('owner') ? 'owner' : need.roles[0]!;
    const scopes = need.exact ? need.scopes : need.roles.includes('owner') ? SCOPES : need.scopes;
    const name = keyName(role, scopes);
    keys.push({ name, env: `WGC_KEY_${name.toUpperCase().replace(/-/g, '_')}`, role, scopes, fills: [need.description] });
  }
  return keys;
}

/** A target profile (JSON text) naming every suggested key by its environment variable. */
export function suppliedKeysProfile(keys: readonly SuggestedKey[], baseUrl = 'https://staging.example.com'): string {
  const profile = { baseUrl, keys: keys.map((k) => ({ name: k.name, env: k.env })) };
  return `${JSON.stringify(profile, null, 2)}\n`;
}
