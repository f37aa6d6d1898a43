/**
 * Authentication and authorization (seed part 5). Everything is re-read from the store on
 * every request: the key's state, its holder's membership and role, the workspace's API
 * access and the key's grants. Nothing is cached between requests.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Role, Scope } from '../vocabulary.ts';
import { ApiError, forbidden, notFound, unauthorized } from './errors.ts';
import { forgets, RELAXED_SCOPES, type FaultSet } from './faults.ts';
import type { ApiKey, Member, Workspace } from './model.ts';
import type { Store } from './store.ts';

/** The verified caller of one request. */
export interface Principal {
  key: ApiKey;
  ws: Workspace;
  member: Member;
  scopes: readonly Scope[];
  role: Role;
}

const BEARER_RE = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** A malformed credential: 401 (or 400 under the malformed-key-400 fault). */
function malformed(message: string, faults: FaultSet): ApiError {
  return faults.has('malformed-key-400') ? new ApiError(400, message) : unauthorized(message);
}

/** The credential of a request, or an ApiError when the headers are missing or malformed. */
export function credentialOf(headers: IncomingHttpHeaders, faults: FaultSet, surface?: string): string {
  const authz = faults.has('bearer-refused') ? undefined : headers.authorization;
  let xKey = headers['x-api-key'];
  if (faults.has('x-api-key-ignored')) xKey = undefined;
  // A route that forgets the second header form (rule-cells fault) reads Authorization only.
  if (forgets(faults, 'x-api-key', surface)) xKey = undefined;
  if (authz === undefined && xKey === undefined && faults.has('missing-key-403')) throw forbidden('An API key is required');
  let fromBearer: string | undefined;
  if (authz !== undefined) {
    const m = BEARER_RE.exec(authz);
    if (!m) throw malformed('The Authorization header must be "Bearer <API key>"', faults);
    fromBearer = m[1];
  }
  // Stryker disable next-line MethodExpression: Node strips the whitespace around a header value already
  const fromHeader = typeof xKey === 'string' ? xKey.trim() : undefined;
  // Stryker disable next-line all: two different keys in the two headers: refusing them or using either is left open by part 5 (the suite sends none)
  if (fromBearer !== undefined && fromHeader !== undefined && fromBearer !== fromHeader) {
    throw unauthorized('Authorization and X-Api-Key carry different keys');
  }
  const secret = fromBearer ?? fromHeader;
  // Stryker disable next-line ConditionalExpression,BlockStatement: without it the missing key is refused below as malformed: 401 all the same
  if (secret === undefined) throw unauthorized();
  // Stryker disable next-line ConditionalExpression,BlockStatement,StringLiteral: without it the empty key is refused below as malformed: 401 all the same (and the message is free)
  if (secret === '') throw malformed('The API key is empty', faults);
  return secret;
}

/**
 * Verifies the key and its standing. Unknown, malformed, disabled or revoked keys and keys of
 * a deleted workspace get 401; a departed holder and a paused workspace get the variant's
 * status (default: 401 and 403).
 */
export function authenticate(store: Store, headers: IncomingHttpHeaders, faults: FaultSet, surface?: string): Principal {
  const secret = credentialOf(headers, faults, surface);
  // Stryker disable next-line BooleanLiteral,ConditionalExpression,LogicalOperator: a malformed key and an unknown key both get 401 (part 7 rule 3 names no other status)
  if (!store.secretRe.test(secret) && !(store.unprefixedSecretRe.test(secret) && store.keysBySecret.has(secret))) throw malformed('The API key is malformed', faults);
  const key = store.keysBySecret.get(secret);
  if (!key) throw faults.has('unknown-key-404') ? notFound('No such key') : unauthorized('The API key is not recognised');
  return standing(store, key, faults, surface);
}

/**
 * The current standing of a known key: its state, its holder's membership and role, the
 * workspace's API access and the key's grants, all read now. Also used to revalidate queued
 * operations before they execute.
 */
export function standing(store: Store, key: ApiKey, faults: FaultSet, surface?: string): Principal {
  if (key.state === 'revoked' && !faults.has('revoked-key-accepted') && !forgets(faults, 'revoked', surface)) throw unauthorized('The API key was revoked');
  if (key.state === 'disabled' && !faults.has('disabled-key-accepted') && !forgets(faults, 'disabled', surface)) throw unauthorized('The API key is disabled');
  const ws = store.workspaces.get(key.workspaceId);
  // Stryker disable next-line ConditionalExpression: unobservable: deleting a workspace deletes its keys (store.ts), and a queued operation of a deleted workspace has no receipt left to read
  if (!ws) throw unauthorized('The API key is not recognised');
  let member = ws.members.get(key.userId);
  // Stryker disable next-line ArrayDeclaration,ObjectLiteral,StringLiteral,MethodExpression,ArrowFunction,EqualityOperator: what a named fault lets through; nothing with no fault on (inert; the self-test covers each)
  if (!member && faults.has('departed-member-key-accepted')) member = { userId: key.userId, role: 'analyst' };
  // A route that forgets membership lets the key act as whatever it could before: the most a key may.
  // Stryker disable next-line ArrayDeclaration,ObjectLiteral,StringLiteral,MethodExpression,ArrowFunction,EqualityOperator: what a named fault lets through; nothing with no fault on (inert; the self-test covers each)
  if (!member && forgets(faults, 'departed', surface)) member = { userId: key.userId, role: 'owner' };
  const { departedMember, pausedWorkspace } = store.choices.status;
  if (!member) throw new ApiError(departedMember, 'The key holder is no longer a member of the workspace');
  if (!ws.apiAccess && !faults.has('paused-workspace-accepted') && !forgets(faults, 'paused', surface)) throw new ApiError(pausedWorkspace, 'API access is paused for this workspace');
  let scopes: readonly Scope[] = key.scopes;
  let role: Role = member.role;
  if (faults.has('grants-cached-at-first-use')) {
    if (!store.grantCache.has(key.keyId)) store.grantCache.set(key.keyId, [...key.scopes]);
    scopes = store.grantCache.get(key.keyId)!;
  }
  if (faults.has('roles-cached-at-first-use')) {
    if (!store.roleCache.has(key.keyId)) store.roleCache.set(key.keyId, member.role);
    role = store.roleCache.get(key.keyId)!;
  }
  return { key, ws, member, scopes, role };
}

/**
 * Throws 403 unless the caller holds every listed scope (no scope implies another).
 * `what` names the route surface or catalog operation (for messages and named faults).
 */
export function requireScopes(p: Principal, scopes: readonly Scope[], faults: FaultSet, what: string): void {
  // Stryker disable next-line all: the scopes a named fault relaxes; none with no fault on (inert; the self-test covers each)
  const relaxed = faults.names.flatMap((n) => (RELAXED_SCOPES[n] && what.startsWith(RELAXED_SCOPES[n].what) ? [RELAXED_SCOPES[n].scope] : []));
  for (const s of scopes) {
    if (p.scopes.includes(s) || relaxed.includes(s)) continue;
    // Stryker disable next-line StringLiteral: what a named fault lets through; nothing with no fault on (inert; the self-test covers each)
    if (faults.has('admin-implies-graph-read') && s === 'graph:read' && p.scopes.includes('admin')) continue;
    throw forbidden(`${what} needs the ${s} scope`);
  }
}

/** Throws 403 unless the caller's workspace role is one of `roles`. */
export function requireRole(p: Principal, roles: readonly Role[], what: string, faults: FaultSet): void {
  let allowed = roles;
  // Stryker disable next-line ArrayDeclaration,ObjectLiteral,StringLiteral,MethodExpression,ArrowFunction,EqualityOperator: what a named fault lets through; nothing with no fault on (inert; the self-test covers each)
  if (what.startsWith('api:compute') && faults.has('compute-allows-analyst')) allowed = [...allowed, 'analyst'];
  // Stryker disable next-line ArrayDeclaration,ObjectLiteral,StringLiteral,MethodExpression,ArrowFunction,EqualityOperator,ConditionalExpression: what a named fault lets through; nothing with no fault on (inert; the self-test covers each)
  if (what.startsWith('api:compute') && faults.has('compute-owner-only')) allowed = allowed.filter((r) => r === 'owner');
  // Stryker disable next-line ArrayDeclaration,ObjectLiteral,StringLiteral,MethodExpression,ArrowFunction,EqualityOperator: what a named fault lets through; nothing with no fault on (inert; the self-test covers each)
  if (what.startsWith('graph.agent_') && faults.has('agent-allows-member-role')) allowed = [...allowed, 'member'];
  if (allowed.includes(p.role)) return;
  // Stryker disable next-line StringLiteral: message text: free (part 7)
  const message = `${what} needs the workspace role ${roles.join(' or ')} (the key holder is ${p.role})`;
  throw faults.has('missing-role-as-401') ? unauthorized(message) : forbidden(message);
}
