/**
 * The roles suite's cast: an owner, an admin and an analyst, each once with exactly [admin]
 * and once with exactly the three agent scopes, so that only the workspace role differs
 * between keys of one kind. Keys whose holder changes role are made per check
 * (suites/_shared/access-cast.ts memberKey), never taken from the cast.
 */
import type { CastMember, CheckContext, KeyHandle, Role } from '../../src/engine/check.ts';
import { AGENT_SCOPES } from '../_shared/access-cast.ts';

/** The roles a key can be given to (control protocol, "Roles"). */
export const KEY_ROLES = ['owner', 'admin', 'analyst'] as const satisfies readonly Role[];

/** Cast name of the role's key holding exactly [admin]. */
export const withAdmin = (role: (typeof KEY_ROLES)[number]): string => `${role}-admin-scope`;
/** Cast name of the role's key holding exactly the agent scopes. */
export const withAgent = (role: (typeof KEY_ROLES)[number]): string => `${role}-agent-scopes`;

/** The cast. */
export const CAST: Record<string, CastMember> = Object.fromEntries(
  KEY_ROLES.flatMap((role) => [
    [withAdmin(role), { role, scopes: ['admin'], exact: true }],
    [withAgent(role), { role, scopes: [...AGENT_SCOPES], exact: true }],
  ]),
);

/** The role's cast key holding exactly [admin] (not observable when the target cannot supply it). */
export const adminKey = (ctx: CheckContext, role: (typeof KEY_ROLES)[number]): KeyHandle => ctx.key(withAdmin(role));
/** The role's cast key holding exactly the agent scopes (not observable when the target cannot supply it). */
export const agentKey = (ctx: CheckContext, role: (typeof KEY_ROLES)[number]): KeyHandle => ctx.key(withAgent(role));
