/** The test-control protocol served by the reference target (shared/control-protocol.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../../src/reference/index.ts';
import { Ref } from './helpers.ts';

let ref: Ref;
beforeAll(async () => {
  ref = await Ref.start();
});
afterAll(() => ref.close());

describe('control protocol', () => {
  it('advertises the protocol and requires the token', async () => {
    const info = await ref.control('GET', '/');
    expect(info.json).toEqual({ protocol: 'wg-control', version: 1 });
    expect((await ref.control('GET', '')).json).toEqual({ protocol: 'wg-control', version: 1 });
    for (const token of [null, 'wrong', `${ref.ref.controlToken}x`]) {
      const r = await ref.control('POST', '/workspaces', {}, token);
      expect(r.status).toBe(401);
      expect(typeof r.json.error).toBe('string');
    }
  });

  it('answers 404 for unknown ids and endpoints, 400 for bad bodies', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [m, p, b] of [
      ['DELETE', `/workspaces/${missing}`],
      ['POST', `/workspaces/${missing}/pause`],
      ['POST', `/workspaces/${missing}/members`, { role: 'owner' }],
      ['PUT', `/keys/${missing}/scopes`, { scopes: [] }],
      ['POST', `/keys/${missing}/revoke`],
      ['GET', `/workspaces/${missing}/usage`],
      ['GET', '/nothing'],
    ] as [string, string, unknown][]) {
      const r = await ref.control(m, p, b);
      expect(r.status, `${m} ${p}`).toBe(404);
      expect(typeof r.json.error).toBe('string');
    }
    const ws = await ref.workspace();
    expect((await ref.control('POST', `/workspaces/${ws.id}/members`, { role: 'king' })).status).toBe(400);
    expect((await ref.control('POST', `/workspaces/${ws.id}/keys`, { userId: ws.owner.userId, scopes: ['root'] })).status).toBe(400);
    expect((await ref.control('PUT', `/workspaces/${ws.id}/rate-limit`, { requestsPerMinute: 1.5 })).status).toBe(400);
    expect((await ref.control('PUT', `/workspaces/${ws.id}/capabilities`, { teleport: true })).status).toBe(400);
    expect((await ref.control('POST', '/workspaces', { credits: -1 })).status).toBe(400);
    expect((await ref.control('POST', `/workspaces/${ws.id}/accounts/${missing}/people`, {})).status).toBe(404);
    const raw = await fetch(`${ref.ref.controlUrl}/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${ref.ref.controlToken}`, 'content-type': 'application/json' }, body: '{' });
    expect(raw.status).toBe(400);
  });

  it('sets and lists labels (the labels addition): one value per entity on an exclusive definition, each value once on a multi one', async () => {
    const ws = await ref.workspace();
    const account = await ws.account();
    const exclusive = await ws.definition({ cardinality: 'exclusive' });
    const multi = await ws.definition({ cardinality: 'multi' });
    const set = (definitionId: string, slug: string, entityId = account, entityKind = 'account') => ref.control('POST', `/workspaces/${ws.id}/labels`, { definitionId, entityKind, entityId, slug });
    const r = await set(exclusive.id, 'gold');
    expect(r.status).toBe(201);
    expect(Object.keys(r.json)).toEqual(['labelId']);
    expect((await set(exclusive.id, 'silver')).status).toBe(201);
    for (const slug of ['gold', 'silver', 'gold']) expect((await set(multi.id, slug)).status).toBe(201);
    const listed = (await ref.control('GET', `/workspaces/${ws.id}/labels`)).json.labels as { definitionId: string; entityKind: string; entityId: string; slug: string }[];
    const of = (id: string) =>
      listed
        .filter((l) => l.definitionId === id)
        .map((l) => `${l.entityKind}:${l.entityId}:${l.slug}`)
        .sort();
    expect(of(exclusive.id)).toEqual([`account:${account}:silver`]);
    expect(of(multi.id)).toEqual([`account:${account}:gold`, `account:${account}:silver`]);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await set(missing, 'gold')).status).toBe(404);
    expect((await set(exclusive.id, 'gold', missing)).status).toBe(404);
    expect((await set(exclusive.id, 'platinum')).status).toBe(400);
    expect((await set(exclusive.id, 'gold', account, 'deal')).status).toBe(400);
  });

  it('provisions workspaces, members, keys, accounts and people with the documented shapes', async () => {
    const w = await ref.control('POST', '/workspaces', { credits: 7 });
    expect(w.status).toBe(201);
    const ws = w.json.workspaceId;
    const m = await ref.control('POST', `/workspaces/${ws}/members`, { role: 'analyst' });
    expect(m.status).toBe(201);
    const k = await ref.control('POST', `/workspaces/${ws}/keys`, { userId: m.json.userId, scopes: ['graph:read'] });
    expect(k.status).toBe(201);
    expect(Object.keys(k.json).sort()).toEqual(['keyId', 'secret']);
    const me = await ref.api(k.json.secret, 'GET', '/me');
    expect(me.json).toMatchObject({ workspaceId: ws, userId: m.json.userId, role: 'analyst', scopes: ['graph:read'] });
    const a = await ref.control('POST', `/workspaces/${ws}/accounts`, { name: 'N', domain: 'n.test' });
    const p = await ref.control('POST', `/workspaces/${ws}/accounts/${a.json.accountId}/people`, { name: 'P', title: 'T' });
    expect(Object.keys(p.json).sort()).toEqual(['accountPersonId', 'personId']);
    const usage = await ref.control('GET', `/workspaces/${ws}/usage`);
    expect(usage.json).toEqual({ balance: 7, charged: 0, entries: [] });
    expect((await ref.control('PATCH', `/workspaces/${ws}/members/${m.json.userId}`, { role: 'member' })).status).toBe(204);
    expect((await ref.control('POST', `/workspaces/${ws}/keys`, { userId: m.json.userId, scopes: [] })).status).toBe(409);
    expect((await ref.control('PUT', `/workspaces/${ws}/capabilities`, {})).status).toBe(204);
  });

  it('makes a workspace with its cast in one call (the cast addition): each member with its role and a key of its scopes, in order', async () => {
    const cast = [
      { role: 'owner', scopes: ['admin', 'graph:read'] },
      { role: 'analyst', scopes: ['graph:read'] },
      { role: 'member', scopes: ['crm:read'] },
    ];
    const w = await ref.control('POST', '/workspaces', { credits: 9, members: cast });
    expect(w.status).toBe(201);
    expect(Object.keys(w.json).sort()).toEqual(['members', 'workspaceId']);
    const made = w.json.members as { userId: string; keyId: string; secret: string }[];
    expect(made).toHaveLength(3);
    for (const [i, m] of made.entries()) {
      expect(Object.keys(m).sort()).toEqual(['keyId', 'secret', 'userId']);
      const me = await ref.api(m.secret, 'GET', '/me');
      expect(me.json).toMatchObject({ workspaceId: w.json.workspaceId, userId: m.userId, role: cast[i]!.role });
      expect([...me.json.scopes].sort()).toEqual([...cast[i]!.scopes].sort());
    }
    expect(new Set(made.map((m) => m.userId)).size).toBe(3);
    // The "member" cannot be given another key, as when it was made one call at a time.
    expect((await ref.control('POST', `/workspaces/${w.json.workspaceId}/keys`, { userId: made[2]!.userId, scopes: [] })).status).toBe(409);
    expect((await ref.control('GET', `/workspaces/${w.json.workspaceId}/usage`)).json).toEqual({ balance: 9, charged: 0, entries: [] });
    // Without members: the workspace alone, as version 1 has it.
    expect(Object.keys((await ref.control('POST', '/workspaces', {})).json)).toEqual(['workspaceId']);
    for (const members of [{}, [{ role: 'king', scopes: [] }], [{ role: 'owner', scopes: ['root'] }], [null]]) expect((await ref.control('POST', '/workspaces', { members })).status).toBe(400);
  });

  it('never bills, rate-limits or records control calls', async () => {
    const ws = await ref.workspace();
    await ref.control('PUT', `/workspaces/${ws.id}/rate-limit`, { requestsPerMinute: 0 });
    for (let i = 0; i < 5; i++) expect((await ref.control('GET', `/workspaces/${ws.id}/usage`)).json.entries).toEqual([]);
    expect((await ws.api('GET', '/me')).status).toBe(429);
  });

  it('uses the given token and rejects unknown fault names, listing valid ones', async () => {
    const r = await startReference({ controlToken: 'tok-123' });
    try {
      expect(r.controlUrl).toBe(`${r.baseUrl}/__control/v1`);
      const ok = await fetch(`${r.controlUrl}/`, { headers: { authorization: 'Bearer tok-123' } });
      expect(ok.status).toBe(200);
    } finally {
      await r.close();
    }
    await expect(startReference({ faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault.*valid faults: .*replays-billed/);
  });
});
