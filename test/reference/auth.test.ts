/** Authentication, scopes, roles and grant changes of the reference target (seed part 5). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, expectError, Ref, validCreate, type Ws } from './helpers.ts';

let ref: Ref;
beforeAll(async () => {
  ref = await Ref.start();
});
afterAll(() => ref.close());

describe('authentication', () => {
  let ws: Ws;
  beforeAll(async () => {
    ws = await ref.workspace();
  });

  it('accepts Bearer and X-Api-Key equally, and key secrets carry the vendor prefix', async () => {
    expect(ws.owner.secret).toMatch(/^wgr_[0-9A-Za-z]{32}$/);
    const a = await ws.api('GET', '/me');
    const b = await ws.api('GET', '/me', { auth: 'x-api-key' });
    expect(a.status).toBe(200);
    expect(b.json).toEqual(a.json);
    const both = await ref.api(null, 'GET', '/me', { headers: { authorization: `Bearer ${ws.owner.secret}`, 'x-api-key': ws.owner.secret } });
    expect(both.status).toBe(200);
  });

  it('rejects missing, unknown, malformed and conflicting credentials with 401', async () => {
    expectError(await ref.api(null, 'GET', '/me'), 401);
    expectError(await ref.api(null, 'GET', '/definitions'), 401);
    expectError(await ref.api(`wgr_${'A'.repeat(32)}`, 'GET', '/me'), 401);
    for (const bad of ['', 'wgr_short', 'xyz_' + 'A'.repeat(32), 'wgr' + 'A'.repeat(33), ws.owner.secret.slice(4)]) {
      expectError(await ref.api(null, 'GET', '/me', { headers: { 'x-api-key': bad } }), 401);
    }
    expectError(await ref.api(null, 'GET', '/me', { headers: { authorization: `Basic ${ws.owner.secret}` } }), 401);
    expectError(await ref.api(null, 'GET', '/me', { headers: { authorization: 'Bearer' } }), 401);
    const other = await ws.key('analyst', ['graph:read']);
    expectError(await ref.api(null, 'GET', '/me', { headers: { authorization: `Bearer ${ws.owner.secret}`, 'x-api-key': other.secret } }), 401);
  });

  it('re-checks revocation, disabling, membership and workspace access on every call', async () => {
    const k = await ws.key('admin', ['graph:read']);
    expect((await ref.api(k.secret, 'GET', '/me')).status).toBe(200);
    expect((await ref.control('POST', `/keys/${k.keyId}/disable`)).status).toBe(204);
    expectError(await ref.api(k.secret, 'GET', '/me'), 401);
    expect((await ref.control('POST', `/keys/${k.keyId}/enable`)).status).toBe(204);
    expect((await ref.api(k.secret, 'GET', '/me')).status).toBe(200);
    expect((await ref.control('POST', `/keys/${k.keyId}/revoke`)).status).toBe(204);
    expectError(await ref.api(k.secret, 'GET', '/me'), 401);
    expect((await ref.control('POST', `/keys/${k.keyId}/enable`)).status).toBe(409);

    const m = await ws.key('analyst', ['graph:read']);
    expect((await ref.control('DELETE', `/workspaces/${ws.id}/members/${m.userId}`)).status).toBe(204);
    expectError(await ref.api(m.secret, 'GET', '/me'), 401);

    const w2 = await ref.workspace();
    expect((await ref.control('POST', `/workspaces/${w2.id}/pause`)).status).toBe(204);
    expectError(await w2.api('GET', '/me'), 403);
    expectError(await w2.api('GET', '/definitions'), 403);
    expect((await ref.control('POST', `/workspaces/${w2.id}/resume`)).status).toBe(204);
    expect((await w2.api('GET', '/me')).status).toBe(200);
    expect((await ref.control('DELETE', `/workspaces/${w2.id}`)).status).toBe(204);
    expectError(await w2.api('GET', '/me'), 401);
  });

  it('derives the workspace from the key only and keeps workspaces apart', async () => {
    const other = await ref.workspace();
    const theirs = await other.definition();
    const h = { 'x-workspace-id': other.id, 'x-workspace': other.id };
    const listed = await ws.api('GET', `/definitions?workspaceId=${other.id}&workspace_id=${other.id}&workspace=${other.id}`, { headers: h });
    expect(listed.status).toBe(200);
    expect(listed.json.items.every((d: any) => d.workspace_id === ws.id)).toBe(true);
    const created = await ws.api('POST', '/definitions', { body: { ...validCreate(), workspace_id: other.id, workspaceId: other.id }, headers: h });
    expect(created.json.workspace_id).toBe(ws.id);
    expectError(await ws.api('PATCH', `/definitions/${theirs.id}`, { body: { reason: 'x', name: 'hijack' } }), 404);
    expectError(await ws.api('POST', `/definitions/${theirs.id}/archive`, { body: { reason: 'x' } }), 404);
    const after = await other.api('GET', '/definitions');
    expect(after.json.items[0]).toEqual(theirs);
    const acc = await other.account();
    expectError(await ws.api('GET', `/data/accounts/${acc}`), 404);
  });

  it('never returns a key secret', async () => {
    const k = await ws.key('owner', ALL_SCOPES);
    for (const path of ['/me', '/capabilities', '/definitions', '/operations']) {
      const r = await ref.api(k.secret, 'GET', path);
      expect(r.text).not.toContain(k.secret);
      expect(r.text).not.toContain(k.secret.slice(4));
      for (const [, v] of r.headers) expect(v).not.toContain(k.secret);
    }
  });
});

describe('scopes and roles', () => {
  let ws: Ws;
  let defId: string;
  beforeAll(async () => {
    ws = await ref.workspace();
    defId = (await ws.definition()).id;
  });

  it('needs graph:read to list and admin to write definitions; no scope implies another', async () => {
    const adminOnly = await ws.key('owner', ['admin']);
    const readOnly = await ws.key('owner', ['graph:read']);
    const writeOnly = await ws.key('owner', ['graph:write']);
    expectError(await ref.api(adminOnly.secret, 'GET', '/definitions'), 403);
    expectError(await ref.api(writeOnly.secret, 'GET', '/definitions'), 403);
    expect((await ref.api(readOnly.secret, 'GET', '/definitions')).status).toBe(200);
    expectError(await ref.api(readOnly.secret, 'POST', '/definitions', { body: validCreate() }), 403);
    expectError(await ref.api(readOnly.secret, 'PATCH', `/definitions/${defId}`, { body: { reason: 'r' } }), 403);
    expectError(await ref.api(readOnly.secret, 'POST', `/definitions/${defId}/archive`, { body: { reason: 'r' } }), 403);
    expectError(await ref.api(readOnly.secret, 'POST', `/definitions/${defId}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' } }), 403);
    expect((await ref.api(adminOnly.secret, 'POST', '/definitions', { body: validCreate() })).status).toBe(201);
    expectError(await ref.api(readOnly.secret, 'POST', '/query', { body: { operation: 'crm.read_partner_company_properties', arguments: { properties: ['name'] } } }), 403);
    // A refused call changes nothing.
    const list = await ws.api('GET', '/definitions');
    expect(list.json.items).toHaveLength(2);
  });

  it('gates compute on the admin scope AND an owner or admin role', async () => {
    const body = { job: 'pmm_refresh' };
    const analystAdmin = await ws.key('analyst', ['admin']);
    const ownerNoAdmin = await ws.key('owner', ['graph:read']);
    const adminAdmin = await ws.key('admin', ['admin']);
    expectError(await ref.api(analystAdmin.secret, 'POST', '/compute/preview', { body }), 403);
    expectError(await ref.api(analystAdmin.secret, 'POST', '/compute/runs', { body: { ...body, reason: 'r' } }), 403);
    expectError(await ref.api(ownerNoAdmin.secret, 'POST', '/compute/preview', { body }), 403);
    expect((await ref.api(adminAdmin.secret, 'POST', '/compute/preview', { body })).status).toBe(200);
    expect((await ws.api('POST', '/compute/runs', { body: { ...body, reason: 'r' } })).status).toBe(202);
  });

  it('lets owners, admins and analysts preview agent runs with the three scopes, not members', async () => {
    const acc = await ws.account();
    const body = { operation: 'graph.agent_preview', reason: 'r', arguments: { customerIds: [acc] } };
    const three = ['graph:read', 'graph:write', 'research:run'] as const;
    for (const role of ['owner', 'admin', 'analyst'] as const) {
      const k = await ws.key(role, [...three]);
      expect((await ref.api(k.secret, 'POST', '/operations', { body })).status).toBe(202);
    }
    for (const missing of three) {
      const k = await ws.key(
        'owner',
        three.filter((s) => s !== missing),
      );
      expectError(await ref.api(k.secret, 'POST', '/operations', { body }), 403);
    }
    const demoted = await ws.key('analyst', [...three]);
    expect((await ref.control('PATCH', `/workspaces/${ws.id}/members/${demoted.userId}`, { role: 'member' })).status).toBe(204);
    expectError(await ref.api(demoted.secret, 'POST', '/operations', { body }), 403);
    expect((await ref.api(demoted.secret, 'GET', '/me')).json.role).toBe('member');
    const memberId = await ws.member('member');
    expect((await ref.control('POST', `/workspaces/${ws.id}/keys`, { userId: memberId, scopes: ['graph:read'] })).status).toBe(409);
  });

  it('needs crm:read for agent runs with connected reads', async () => {
    const acc = await ws.account();
    const k = await ws.key('analyst', ['graph:read', 'graph:write', 'research:run']);
    const args = { customerIds: [acc], mode: 'apply', creditCap: 100, user_said: 'go ahead' };
    const read = { source: 'crm', entity: 'company', fields: ['name'], account: acc, limit: 5 };
    expect((await ref.api(k.secret, 'POST', '/operations', { body: { operation: 'graph.agent_run', reason: 'go ahead', arguments: args } })).status).toBe(202);
    expectError(await ref.api(k.secret, 'POST', '/operations', { body: { operation: 'graph.agent_run', reason: 'go ahead', arguments: { ...args, connectedReads: [read] } } }), 403);
  });
});

describe('grant changes', () => {
  it('reads grants and roles on every request and keeps the secret and membership', async () => {
    const ws = await ref.workspace();
    const k = await ws.key('admin', ['admin', 'graph:read']);
    const created = await ref.api(k.secret, 'POST', '/definitions', { body: validCreate() });
    expect(created.status).toBe(201);
    const before = (await ref.api(k.secret, 'GET', '/me')).json;
    expect((await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['graph:read'] })).status).toBe(204);
    const after = (await ref.api(k.secret, 'GET', '/me')).json;
    expect(after.scopes).toEqual(['graph:read']);
    expect(after.userId).toBe(before.userId);
    expect(after.role).toBe(before.role);
    expectError(await ref.api(k.secret, 'POST', '/definitions', { body: validCreate() }), 403);
    const listed = await ref.api(k.secret, 'GET', '/definitions');
    expect(listed.json.items.map((d: any) => d.id)).toEqual([created.json.id]);
    expect(listed.json.items[0].state).toBe('draft');
    expect((await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['graph:read', 'admin'] })).status).toBe(204);
    expect((await ref.api(k.secret, 'POST', '/definitions', { body: validCreate() })).status).toBe(201);
    // A role change takes effect on the next role-gated call.
    expect((await ref.api(k.secret, 'POST', '/compute/preview', { body: { job: 'pmm_refresh' } })).status).toBe(200);
    await ref.control('PATCH', `/workspaces/${ws.id}/members/${k.userId}`, { role: 'analyst' });
    expectError(await ref.api(k.secret, 'POST', '/compute/preview', { body: { job: 'pmm_refresh' } }), 403);
  });

  it('revalidates queued operations before they run', async () => {
    const ws = await ref.workspace();
    const acc = await ws.account();
    const ap = await ws.person(acc);
    const k = await ws.key('analyst', ['graph:read', 'graph:write']);
    expect((await ref.control('PUT', `/workspaces/${ws.id}/execution`, { hold: true })).status).toBe(204);
    const change = { kind: 'person_field', target_label: 'Jane', person_id: ap.accountPersonId, field: 'title', after: 'CEO' };
    const sub = await ref.api(k.secret, 'POST', '/operations', { body: { operation: 'graph.apply_update', reason: 'r', arguments: { customer_id: acc, summary: 's', changes: [change] } } });
    expect(sub.status).toBe(202);
    await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['graph:read'] });
    expect((await ws.api('GET', `/operations/${sub.json.id}`)).json.status).toBe('queued');
    await ref.control('PUT', `/workspaces/${ws.id}/execution`, { hold: false });
    const done = await ws.settle(sub.json.id);
    expect(done.status).toBe('failed');
    expect(done.error.code).toBe('REVALIDATION_FAILED');
    const person = await ws.api('GET', `/data/people/${ap.personId}`);
    expect(person.json.memberships[0].fields.title).toBeNull();
  });
});
