/**
 * How much of the selected suites' casts the supplied keys fill, before a keys-only run starts.
 * A cast member no key fits makes the checks that need it "not observable"; when the keys fill
 * none of the casts, or less than the share the run asks for (--min-cast-share), the run would
 * verify little and still exit green, so `wgc run` stops with a usage error instead, naming the
 * unfilled members, what GET /me said of each key and the profile line that fixes it (unless
 * --allow-partial). Only without the test-control protocol: with it, keys are provisioned.
 */
import { ROLES, roleKey } from '../vocabulary.ts';
import { describeCastMember, describeKeys, matchCast } from './cast.ts';
import type { IntrospectedKey, SuppliedKey } from './introspect.ts';
import type { SuiteCast } from './provision.ts';
import { describeRole, documentRole, type RoleMap } from './roles.ts';

/** The cast members of some suites ("suite/cast") and which of them the supplied keys fill. */
export interface CastShare {
  total: number;
  matched: number;
  /** Unfilled members by what they need ("exactly scopes [admin] held by an owner") → "suite/cast" names. */
  unmatched: Map<string, string[]>;
}

/** Matches the keys to every suite's cast, as each suite's session will (matchCast). */
export function castShare(suites: readonly SuiteCast[], supplied: readonly SuppliedKey[], introspected: readonly IntrospectedKey[], roles: RoleMap = {}): CastShare {
  const share: CastShare = { total: 0, matched: 0, unmatched: new Map() };
  for (const suite of suites) {
    const { keys } = matchCast(suite.cast, supplied, introspected, roles);
    for (const [name, member] of Object.entries(suite.cast)) {
      share.total++;
      if (keys.has(name)) share.matched++;
      else {
        const need = describeCastMember(member);
        share.unmatched.set(need, [...(share.unmatched.get(need) ?? []), `${suite.name}/${name}`]);
      }
    }
  }
  return share;
}

/** Why the run stops: one summary sentence and the lines that back it (what GET /me said, what is unfilled, the fix). */
export interface CastShortfall {
  summary: string;
  details: string[];
}

const percent = (x: number): string => `${Math.round(x * 1000) / 10}%`;

/** The document's role a target's role name seems to stand for ("workspace-owner" → "owner"), else "…": a hint to confirm, never applied. */
function guess(raw: string): string {
  const words = ROLES.filter((r) => roleKey(raw).includes(r));
  return words.length === 1 ? words[0]! : '…';
}

/** What GET /me said, keys grouped by role: 'role "Superuser" (not a role of the API document) for a [admin], b []; role Owner → owner for c [graph:read]'. */
function saidOf(introspected: readonly IntrospectedKey[], roles: RoleMap): string {
  const ok = introspected.filter((k) => k.ok);
  if (ok.length === 0) return describeKeys(introspected, roles);
  const byRole = new Map<string, string[]>();
  for (const k of ok) {
    const label = documentRole(k.role, roles) === undefined ? `${JSON.stringify(k.role)} (not a role of the API document)` : describeRole(k.role, roles);
    byRole.set(label, [...(byRole.get(label) ?? []), `${k.name} [${k.scopes.join(', ')}]`]);
  }
  return [...byRole].map(([role, keys]) => `role ${role} for ${keys.join(', ')}`).join('; ');
}

/**
 * The shortfall of a keys-only run, or undefined when the keys fill enough: at least one cast
 * member and at least `minShare` (0 to 1) of them. A run whose suites cast nobody has none.
 */
export function castShortfall(share: CastShare, introspected: readonly IntrospectedKey[], opts: { roles?: RoleMap; minShare: number }): CastShortfall | undefined {
  if (share.total === 0) return undefined;
  const ratio = share.matched / share.total;
  if (share.matched > 0 && ratio >= opts.minShare) return undefined;
  const roles = opts.roles ?? {};
  const summary =
    `the supplied keys fill ${share.matched} of the ${share.total} cast members of the selected suites (${percent(ratio)}; ` +
    `a keys-only run needs ${share.matched === 0 ? 'at least one' : `at least ${percent(opts.minShare)} (--min-cast-share)`}), so it would verify little of what it can observe without the test-control protocol`;
  const unknown = [...new Set(introspected.flatMap((k) => (k.ok && documentRole(k.role, roles) === undefined ? [k.role] : [])))];
  const fixes: string[] = [];
  if (introspected.length === 0) fixes.push('name the keys in the profile under "keys" (wgc init --key LABEL writes them)');
  if (unknown.length > 0) {
    const map = unknown.map((r) => `${JSON.stringify(r)}: "${guess(r)}"`).join(', ');
    fixes.push(`add "roles": { ${map} } to the profile, giving for each of the target's role names the document's role it stands for (${ROLES.join(', ')})`);
  }
  fixes.push(
    'supply keys for the unfilled needs (docs/configuration.md, "Keys for a target without the test-control protocol", lists one key per need)',
    'or pass --allow-partial (WGC_ALLOW_PARTIAL, profile "allowPartial": true) to run what these keys can drive',
  );
  return {
    summary,
    details: [
      `GET /me said: ${saidOf(introspected, roles)}`,
      `unfilled: ${[...share.unmatched].map(([need, members]) => `${need} (${members.join(', ')})`).join('; ')}`,
      `to fix it: ${fixes.join('; ')}`,
    ],
  };
}
