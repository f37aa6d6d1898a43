/** Idempotency keys, billing, rate limits and capability switches of the reference target (seed 4.1, 7, 8). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, Ref, validCreate, type Ws } from './helpers.ts';

let ref: Ref;
beforeAll(async () => {
  ref = await Ref.start();
});
afterAll(() => ref.close());

describe('idempotency', () => {
  let ws: Ws;
  beforeAll(async () => {
    ws = await ref.workspace();
  });
  const count = async () => (await ws.api('GET', '/definitions?limit=200&includeArchived=true')).json.items.length;

  it('replays the stored reply exactly on all five endpoints, unbilled, and refuses different input with 409', async () => {
    const c0 = await ws.charged();
    const a = await ws.api('POST', '/definitions', { body: validCreate(), idem: 'create-1' });
    const b = await ws.api('POST', '/definitions', { body: { ...validCreate() }, idem: 'create-1' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.text).toBe(a.text);
    expect(await ws.charged()).toBe(c0 + 1);
    expect(await count()).toBe(1);
    const id = a.json.id;
    const calls: [string, string, unknown][] = [
      ['PATCH', `/definitions/${id}`, { reason: 'r', name: 'n2' }],
      ['POST', `/definitions/${id}/merge-value`, { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' }],
      ['POST', `/definitions/${id}/archive`, { reason: 'r' }],
    ];
    for (const [method, path, body] of calls) {
      const first = await ws.api(method, path, { body, idem: `k-${path}` });
      expect(first.status).toBe(200);
      const again = await ws.api(method, path, { body, idem: `k-${path}` });
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    expectError(await ws.api('POST', '/definitions', { body: { ...validCreate(), name: 'other' }, idem: 'create-1' }), 409);
    expectError(await ws.api('PATCH', `/definitions/${id}`, { body: { reason: 'r' }, idem: 'create-1' }), 409);
    expect(await count()).toBe(1);
    const acc = await ws.account();
    const c1 = await ws.charged();
    const op = { operation: 'graph.context_refresh', reason: 'r', arguments: { customerIds: [acc] } };
    const o1 = await ws.api('POST', '/operations', { body: op, idem: 'op-1' });
    const o2 = await ws.api('POST', '/operations', { body: op, idem: 'op-1' });
    expect(o2.text).toBe(o1.text);
    expect((await ws.api('GET', '/operations')).json.items).toHaveLength(1);
    expect(await ws.charged()).toBe(c1 + 1);
  });

  it('scopes keys per member and treats object key order as the same input', async () => {
    const other = await ws.key('admin', ['admin', 'graph:read']);
    const a = await ws.api('POST', '/definitions', { body: { name: 'A', moduleKey: 'customers', entityKinds: ['account'], valueType: 'text', reason: 'r' }, idem: 'shared' });
    const b = await ws.api('POST', '/definitions', { body: { reason: 'r', valueType: 'text', entityKinds: ['account'], moduleKey: 'customers', name: 'A' }, idem: 'shared' });
    expect(b.text).toBe(a.text);
    const c = await ref.api(other.secret, 'POST', '/definitions', { body: { name: 'A', moduleKey: 'customers', entityKinds: ['account'], valueType: 'text', reason: 'r' }, idem: 'shared' });
    expect(c.status).toBe(201);
    expect(c.json.id).not.toBe(a.json.id);
  });

  it('validates the header: 1..128 visible ASCII', async () => {
    for (const k of ['a', '~'.repeat(128), '!#$%&()*+,-./:;<=>?@[]^_`{|}']) {
      expect((await ws.api('POST', '/definitions', { body: validCreate(), idem: k })).status).toBe(201);
    }
    for (const k of ['x'.repeat(129), 'has space', 'tab\tkey']) expectError(await ws.api('POST', '/definitions', { body: validCreate(), idem: k }), 400);
    const r = await fetch(`${ref.ref.baseUrl}/api/v1/definitions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.owner.secret}`, 'content-type': 'application/json', 'idempotency-key': 'caf\u00e9' },
      body: JSON.stringify(validCreate()),
    }).catch(() => null);
    if (r) expect(r.status).toBe(400);
  });

  it('does not store refusals: the same key then processes a valid request once', async () => {
    const before = await count();
    expectError(await ws.api('POST', '/definitions', { body: { name: '' }, idem: 'after-400' }), 400);
    const ok = await ws.api('POST', '/definitions', { body: validCreate(), idem: 'after-400' });
    expect(ok.status).toBe(201);
    const again = await ws.api('POST', '/definitions', { body: validCreate(), idem: 'after-400' });
    expect(again.text).toBe(ok.text);
    expect(await count()).toBe(before + 1);
  });

  it('performs a mutation once under 20 concurrent same-key requests', async () => {
    const w = await ref.workspace();
    const c0 = await w.charged();
    const replies = await Promise.all(Array.from({ length: 20 }, () => w.api('POST', '/definitions', { body: validCreate(), idem: 'race' })));
    const ids = new Set(replies.map((r) => r.json.id));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    expect(ids.size).toBe(1);
    expect(await w.charged()).toBe(c0 + 1);
    expect((await w.api('GET', '/definitions')).json.items).toHaveLength(1);
    const acc = await w.account();
    const op = { operation: 'graph.context_refresh', reason: 'r', arguments: { customerIds: [acc] } };
    const subs = await Promise.all(Array.from({ length: 20 }, () => w.api('POST', '/operations', { body: op, idem: 'op-race' })));
    expect(new Set(subs.map((r) => r.json.id)).size).toBe(1);
    expect((await w.api('GET', '/operations')).json.items).toHaveLength(1);
  });
});

describe('billing', () => {
  it('charges one credit per 2xx that does work, nothing for free calls and failures', async () => {
    const ws = await ref.workspace(100);
    const d = await ws.definition();
    const acc = await ws.account();
    const run = await ws.api('POST', '/compute/runs', { body: { job: 'pmm_refresh', reason: 'r' } });
    const sub = await ws.api('POST', '/operations', { body: { operation: 'graph.context_refresh', reason: 'r', arguments: { customerIds: [acc] } } });
    const u0 = await ws.usage();
    for (const path of ['/me', '/capabilities', '/operations', `/operations/${sub.json.id}`, `/compute/runs/${run.json.id}`]) expect((await ws.api('GET', path)).status).toBe(200);
    expectError(await ws.api('POST', '/definitions', { body: {} }), 400);
    expectError(await ws.api('PATCH', '/definitions/00000000-0000-4000-8000-000000000000', { body: { reason: 'r' } }), 404);
    const ro = await ws.key('analyst', ['graph:read']);
    expectError(await ref.api(ro.secret, 'POST', '/definitions', { body: validCreate() }), 403);
    expect((await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' }, idem: 'b1' })).status).toBe(200);
    expect((await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' }, idem: 'b1' })).status).toBe(200);
    const u1 = await ws.usage();
    expect(u1.charged).toBe(u0.charged + 1);
    expect(u1.entries.at(-1)).toMatchObject({ method: 'POST', path: `/api/v1/definitions/${d.id}/archive`, status: 200, credits: 1, surface: 'api:definitions.archive' });
    await ref.control('POST', `/keys/${ro.keyId}/revoke`);
    expectError(await ref.api(ro.secret, 'GET', '/definitions'), 401);
    await ref.control('PUT', `/workspaces/${ws.id}/capabilities`, { definitions: false });
    expectError(await ws.api('GET', '/definitions'), 503);
    const u2 = await ws.usage();
    expect(u2.charged).toBe(u1.charged);
    expect(u2.balance).toBe(100 - u2.charged);
    expect(u2.entries.map((e) => e.seq)).toEqual(u2.entries.map((_, i) => i + 1));
  });

  it('charges a successful agent preview its quoted fee once', async () => {
    const ws = await ref.workspace();
    const acc = await ws.account();
    const c0 = await ws.charged();
    const sub = await ws.api('POST', '/operations', { body: { operation: 'graph.agent_preview', reason: 'r', arguments: { customerIds: [acc] } } });
    const done = await ws.settle(sub.json.id);
    expect((await ws.charged()) - c0).toBe(done.result.apiPreviewCredits);
  });
});

describe('rate limits and capability switches', () => {
  it('answers 429 with Retry-After past the limit, unbilled, and lifts it with null', async () => {
    const ws = await ref.workspace();
    await ref.control('PUT', `/workspaces/${ws.id}/rate-limit`, { requestsPerMinute: 3 });
    const c0 = await ws.charged();
    for (let i = 0; i < 3; i++) expect((await ws.api('GET', '/definitions')).status).toBe(200);
    const r = await ws.api('GET', '/definitions');
    expectError(r, 429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectError(await ws.api('GET', '/me'), 429);
    expect(await ws.charged()).toBe(c0 + 3);
    expect((await ref.control('GET', `/workspaces/${ws.id}/usage`)).status).toBe(200);
    await ref.control('PUT', `/workspaces/${ws.id}/rate-limit`, { requestsPerMinute: null });
    expect((await ws.api('GET', '/me')).status).toBe(200);
  });

  it('answers 503 for calls needing a switched-off capability and shows the switches in GET /me', async () => {
    const ws = await ref.workspace();
    const acc = await ws.account();
    const off = { definitions: false, graphReads: false, graphEdits: false, research: false, crm: false, graphCompute: false, context: false };
    expect((await ref.control('PUT', `/workspaces/${ws.id}/capabilities`, off)).status).toBe(204);
    const me = await ws.api('GET', '/me');
    expect(me.json.capabilities).toMatchObject({ ...off, enrichment: true, operationCatalog: '/api/v1/capabilities', moduleVisibility: 'definitions' });
    expectError(await ws.api('GET', '/definitions'), 503);
    expectError(await ws.api('POST', '/definitions', { body: validCreate() }), 503);
    expectError(await ws.api('GET', `/data/accounts/${acc}`), 503);
    expectError(await ws.api('GET', `/graph/traces?kind=account&id=${acc}`), 503);
    expectError(await ws.api('POST', '/query', { body: { operation: 'crm.read_partner_deal_properties', arguments: { properties: ['amount'] } } }), 503);
    expectError(await ws.api('POST', '/compute/preview', { body: { job: 'pmm_refresh' } }), 503);
    expectError(await ws.api('POST', '/operations', { body: { operation: 'graph.agent_preview', reason: 'r', arguments: { customerIds: [acc] } } }), 503);
    expectError(await ws.api('POST', '/operations', { body: { operation: 'graph.context_refresh', reason: 'r', arguments: { customerIds: [acc] } } }), 503);
    const cap = await ws.api('GET', '/capabilities');
    expect(cap.status).toBe(200);
    expect(cap.json.operations.find((o: any) => o.name === 'graph.agent_preview').authorized).toBe(false);
    expect((await ws.api('GET', '/operations')).status).toBe(200);
  });
});
