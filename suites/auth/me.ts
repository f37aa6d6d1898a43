/**
 * GET /me (seed 2.4, 4.2): the introspection object's fields and types, the capability
 * booleans and the two constants, for every cast key; and, with the control protocol, that it
 * reports the provisioned workspace, holder, role and exact scopes.
 */
import { ROLES, type CheckContext, type CheckDef, type KeyHandle, type Role, type Scope } from '../../src/engine/check.ts';
import { describeResponse, expectResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { validateSchema, type ValidationIssue } from '../../src/spec/validate.ts';
import { soft } from './soft.ts';
import { isObject } from '../_shared/json.ts';
import { availableKeys, provisionKey } from './support.ts';

/** Which ME clause an issue of the Me schema belongs to, by its JSON pointer. */
function clauseOf(issue: ValidationIssue): string {
  if (issue.path === '/capabilities/operationCatalog') return 'ME-003';
  if (issue.path === '/capabilities/moduleVisibility') return 'ME-004';
  if (issue.path.startsWith('/capabilities/')) return 'ME-002';
  return 'ME-001';
}

/** GET /me with `key`; a non-2xx or non-object answer is a finding on `clause` (thrown). */
async function getMe(ctx: CheckContext, key: KeyHandle, clause: string): Promise<{ me: Record<string, unknown>; ex: Exchange }> {
  const ex = await ctx.api.send({ method: 'GET', path: '/me', key });
  const res = expectResponse(clause, ex);
  if (res.status < 200 || res.status > 299 || !isObject(res.json)) {
    throw new Finding({
      clause,
      message: `GET /me did not answer a valid key (cast "${key.name}") with an object`,
      expected: '2xx with the key introspection object',
      received: describeResponse(res),
      exchange: ex,
    });
  }
  return { me: res.json, ex };
}

/** GET /me has the fields of 2.4 with their types, the eleven capability booleans and the two constants. */
export const meShape: CheckDef = {
  id: 'auth/me-shape',
  title: 'GET /me returns the introspection fields, the capability booleans and the two constants',
  clauses: ['ME-001', 'ME-002', 'ME-003', 'ME-004'],
  credits: 0,
  async run(ctx) {
    const keys = availableKeys(ctx);
    if (keys.length === 0) throw new NotObservable('no cast key is available on this target');
    const spec = await loadSpec();
    for (const key of keys) {
      const { me, ex } = await getMe(ctx, key, 'ME-001');
      // Without a capabilities object, ME-002..004 cannot be judged: stop on ME-001.
      if (!isObject(me.capabilities)) {
        throw new Finding({ clause: 'ME-001', message: 'GET /me has no capabilities object', expected: 'capabilities: an object', received: describeResponse(ex.response!), exchange: ex });
      }
      // The whole object is validated against the Me schema: every clause of it is looked at.
      for (const clause of ['ME-001', 'ME-002', 'ME-003', 'ME-004']) ctx.judged(clause);
      const byClause = new Map<string, ValidationIssue[]>();
      for (const issue of validateSchema(spec, 'Me', me)) byClause.set(clauseOf(issue), [...(byClause.get(clauseOf(issue)) ?? []), issue]);
      for (const [clause, issues] of byClause) {
        soft(ctx, () => {
          throw new Finding({
            clause,
            message: `GET /me (cast "${key.name}") does not match seed 2.4: ${issues.map((i) => i.path || '(root)').join(', ')}`,
            expected: issues.map((i) => `${i.path || '(root)'}: ${i.expected}`).join('; '),
            received: issues.map((i) => `${i.path || '(root)'}: ${i.received}`).join('; '),
            exchange: ex,
          });
        });
      }
    }
  },
};

/**
 * Members and keys provisioned for the check: scopes differ between all of them, roles between
 * the first three; the fourth shares the first one's role (a second member).
 */
const PROVISIONED: readonly { role: Role; scopes: readonly Scope[] }[] = [
  { role: 'analyst', scopes: ['graph:read', 'crm:read'] },
  { role: 'admin', scopes: ['admin'] },
  { role: 'owner', scopes: ['graph:write', 'research:run', 'crm:write'] },
  { role: 'analyst', scopes: ['admin'] },
];

/**
 * What the role GET /me reports must be, given the roles seen so far: the control protocol only
 * promises that its ids are the API's, not that its role names are, so a server may name roles
 * its own way. The name must be a non-empty string, the same for every member of one role and
 * different between roles; a name of the protocol's vocabulary must be the provisioned role.
 */
function roleProblem(role: unknown, provisioned: Role, seen: Map<Role, string>): string | undefined {
  if (typeof role !== 'string' || role === '') return 'a non-empty string';
  if ((ROLES as readonly string[]).includes(role) && role !== provisioned) return `"${provisioned}" or a name of the server's own (not another role's name)`;
  const before = seen.get(provisioned);
  if (before !== undefined && before !== role) return `"${before}", as for the other ${provisioned}`;
  const other = [...seen].find(([r, name]) => r !== provisioned && name === role);
  if (other) return `a name other than the ${other[0]}'s "${role}"`;
  seen.set(provisioned, role);
  return undefined;
}

/** GET /me reports the workspace, user id, role and exact scopes of freshly provisioned keys. */
export const meReportsKey: CheckDef = {
  id: 'auth/me-reports-provisioned-key',
  title: "GET /me reports the key's workspace, its holder's user id and role, and exactly its scopes",
  clauses: ['ME-005'],
  needs: { control: true },
  credits: 0,
  async run(ctx) {
    const roleNames = new Map<Role, string>();
    for (const [i, p] of PROVISIONED.entries()) {
      const key = await provisionKey(ctx, ctx.workspaceId, p.role, p.scopes, `me_${i}`);
      const { me, ex } = await getMe(ctx, key, 'ME-005');
      const scopes = Array.isArray(me.scopes) ? [...me.scopes].map(String).sort() : me.scopes;
      const roleWanted = roleProblem(me.role, p.role, roleNames);
      const want: Record<string, unknown> = { workspaceId: ctx.workspaceId, userId: key.userId, scopes: [...p.scopes].sort() };
      const got: Record<string, unknown> = { workspaceId: me.workspaceId, userId: me.userId, scopes };
      const wrong = Object.keys(want).filter((f) => JSON.stringify(want[f]) !== JSON.stringify(got[f]));
      if (roleWanted) {
        wrong.push('role');
        want.role = roleWanted;
        got.role = me.role;
      }
      ctx.judged('ME-005');
      if (wrong.length === 0) continue;
      soft(ctx, () => {
        throw new Finding({
          clause: 'ME-005',
          message: `GET /me misreports a provisioned key's ${wrong.join(', ')}`,
          expected: JSON.stringify(Object.fromEntries(wrong.map((f) => [f, want[f]]))),
          received: JSON.stringify(Object.fromEntries(wrong.map((f) => [f, got[f]]))),
          exchange: ex,
        });
      });
    }
  },
};
