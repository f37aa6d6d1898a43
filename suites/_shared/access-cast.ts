/**
 * Keys for the access suites (scopes, roles): the scope cast derived from the scope list, the
 * permission arithmetic a matrix needs (does a key hold what a row requires?), and short-lived
 * members whose role a check changes through the test-control protocol.
 */
import { SCOPES, type CastMember, type CheckContext, type KeyHandle, type Role, type Scope } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';

/** The three scopes the seed's permission table gives graph.agent_preview and graph.agent_run (part 5). */
export const AGENT_SCOPES: readonly Scope[] = ['graph:read', 'graph:write', 'research:run'];

/** "graph:read" → "graph-read": cast names end up in env-var names of curl commands. */
export const scopeSlug = (s: Scope): string => s.replace(/[^a-z]+/g, '-');

/** Cast names of the scope matrix. */
export const NO_SCOPE = 'no-scope';
export const ALL_SCOPES = 'all-scopes';
export const only = (s: Scope): string => `only-${scopeSlug(s)}`;
export const agentWithout = (s: Scope): string => `agent-without-${scopeSlug(s)}`;

/**
 * The scope matrix cast: owner keys holding exactly one scope each, no scope, every scope,
 * and the agent scopes minus each one. All are owners so that only scopes decide.
 */
export function scopeMatrixCast(): Record<string, CastMember> {
  const cast: Record<string, CastMember> = {
    [NO_SCOPE]: { role: 'owner', scopes: [], exact: true },
    [ALL_SCOPES]: { role: 'owner', scopes: [...SCOPES], exact: true },
  };
  for (const s of SCOPES) cast[only(s)] = { role: 'owner', scopes: [s], exact: true };
  for (const s of AGENT_SCOPES) cast[agentWithout(s)] = { role: 'owner', scopes: AGENT_SCOPES.filter((x) => x !== s), exact: true };
  return cast;
}

/** True when the key holds every scope of `required` (no scope implies another). */
export const holdsAll = (key: KeyHandle, required: readonly Scope[]): boolean => required.every((s) => key.scopes.includes(s));

/** The cast keys this target could supply, in the order given; unfillable cast members are skipped. */
export function availableKeys(ctx: CheckContext, names: readonly string[]): KeyHandle[] {
  const out: KeyHandle[] = [];
  for (const name of names) {
    try {
      out.push(ctx.key(name));
    } catch (e) {
      if (!(e instanceof NotObservable) && !(e instanceof Error && e.name === 'NotObservable')) throw e;
    }
  }
  return out;
}

/**
 * A new member of the suite's workspace with one key (control protocol), removed again at
 * clean-up. It is created with a role that can hold a key and, when `role` is "member", moved
 * there at once, before the key is ever used: a target that remembered the role a key was
 * first used with would otherwise blur what is being observed.
 */
export async function memberKey(ctx: CheckContext, name: string, role: Role, scopes: readonly Scope[]): Promise<KeyHandle> {
  const ws = ctx.workspaceId;
  const initial: Role = role === 'member' ? 'analyst' : role;
  const { userId } = await ctx.control.addMember(ws, initial);
  ctx.cleanup(() => ctx.control.removeMember(ws, userId));
  const { keyId, secret } = await ctx.control.createKey(ws, userId, scopes);
  if (initial !== role) await ctx.control.setMemberRole(ws, userId, role);
  return { name, secret, role, scopes: [...scopes], keyId, userId, workspaceId: ws };
}

/** Moves a member made by {@link memberKey} to another role; returns the key as it now stands. */
export async function moveTo(ctx: CheckContext, key: KeyHandle, role: Role): Promise<KeyHandle> {
  if (!key.userId) throw new Error(`key "${key.name}" has no userId: only keys made by memberKey can be moved`);
  await ctx.control.setMemberRole(ctx.workspaceId, key.userId, role);
  return { ...key, role };
}
