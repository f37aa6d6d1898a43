/**
 * Authentication and authorization (seed part 5). Everything is re-read from the store on
 * every request: the key's state, its holder's membership and role, the workspace's API
 * access and the key's grants. Nothing is cached between requests.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Role, Scope } from '../engine/check.ts';
import { ApiError, forbidden, unauthorized } from './errors.ts';
import type { FaultSet } from './faults.ts';
import type { ApiKey, Member, Workspace } from './model.ts';
import { KEY_SECRET_RE, type Store } from './store.ts';

/** The verified caller of one request. */
export interface Principal {
  key: ApiKey;
  ws: Workspace;
  member: Member;
  scopes: readonly Scope[];
  role: Role;
}

const BEARER_RE = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential of a request, or an ApiError when the headers are missing or malformed. */
export function credentialOf(headers: IncomingHttpHeaders, faults: FaultSet): string {
  const authz = headers.authorization;
  const xKey = faults.has('x-api-key-ignored') ? undefined : headers['x-api-key'];
  let fromBearer: string | undefined;
  if (authz !== undefined) {
    const m = BEARER_RE.exec(authz);
    if (!m) throw unauthorized('The Authorization header must be "Bearer <API key>"');
    fromBearer = m[1];
  }
  const fromHeader = typeof xKey === 'string' ? xKey.trim() : Array.isArray(xKey) ? '\u0000' : undefined;
  if (fromBearer !== undefined && fromHeader !== undefined && fromBearer !== fromHeader) {
    throw unauthorized('Authorization and X-Api-Key carry different keys');
  }
  const secret = fromBearer ?? fromHeader;
  if (secret === undefined || secret === '') throw unauthorized();
  return secret;
}

/**
 * Verifies the key and its standing. Unknown, malformed, disabled or revoked keys, keys of a
 * deleted workspace and keys whose holder left get 401; a paused workspace gets 403.
 */
export function authenticate(store: Store, headers: IncomingHttpHeaders, faults: FaultSet): Principal {
  const secret = credentialOf(headers, faults);
  if (!KEY_SECRET_RE.test(secret)) throw unauthorized('The API key is malformed');
  const key = store.keysBySecret.get(secret);
  if (!key) throw unauthorized('The API key is not recognised');
  return standing(store, key, faults);
}

/**
 * The current standing of a known key: its state, its holder's membership and role, the
 * workspace's API access and the key's grants, all read now. Also used to revalidate queued
 * operations before they execute.
 */
export function standing(store: Store, key: ApiKey, faults: FaultSet): Principal {
  if (key.state === 'revoked') throw unauthorized('The API key was revoked');
  if (key.state === 'disabled') throw unauthorized('The API key is disabled');
  const ws = store.workspaces.get(key.workspaceId);
  if (!ws) throw unauthorized('The API key is not recognised');
  const member = ws.members.get(key.userId);
  if (!member) throw unauthorized('The key holder is no longer a member of the workspace');
  if (!ws.apiAccess) throw forbidden('API access is paused for this workspace');
  let scopes: readonly Scope[] = key.scopes;
  let role: Role = member.role;
  if (faults.has('grants-cached-at-first-use')) {
    const cached = store.grantCache.get(key.keyId) ?? { scopes: [...key.scopes], role: member.role };
    store.grantCache.set(key.keyId, cached);
    ({ scopes, role } = cached);
  }
  return { key, ws, member, scopes, role };
}

/** Throws 403 unless the caller holds every listed scope (no scope implies another). */
export function requireScopes(p: Principal, scopes: readonly Scope[], faults: FaultSet): void {
  for (const s of scopes) {
    if (p.scopes.includes(s)) continue;
    if (faults.has('admin-implies-graph-read') && s === 'graph:read' && p.scopes.includes('admin')) continue;
    throw forbidden(`This call needs the ${s} scope`);
  }
}

/** Throws 403 unless the caller's workspace role is one of `roles`. */
export function requireRole(p: Principal, roles: readonly Role[], what: string): void {
  if (!roles.includes(p.role)) throw new ApiError(403, `${what} needs the workspace role ${roles.join(' or ')} (the key holder is ${p.role})`);
}
