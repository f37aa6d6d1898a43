/**
 * The extended variant's freedoms (src/reference/extended.ts), each shown on the wire: fields and
 * headers of its own (some moving with every write or request), GET /me's own role spelling,
 * work that completes in three steps, a lagging ledger, its own mix of statuses, Idempotency-Keys
 * shared by the workspace, an inclusive cursor, and other layouts for the shapes the document
 * does not show. test/reference/alternative.test.ts runs every suite against it: a conformant
 * server, so nothing may fail there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ref, validCreate, type Ws } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the extended variant', () => {
  let ref: Ref;
  let ws: Ws;

  beforeAll(async () => {
    ref = await Ref.start([], 'extended');
    ws = await ref.workspace();
  });
  afterAll(() => ref.close());

  it('adds fields of its own to a Definition: a revision that goes up with every write, a clock that moves with every request', async () => {
    const made = await ws.definition();
    expect(made).toMatchObject({ kind: 'Definition', _links: { self: { href: `/api/v1/definitions/${made.id}` } } });
    expect(typeof made.revision).toBe('number');
    expect(made.enum_values[0]).toMatchObject({ label: 'Gold', ordinal: 1 });
    expect(typeof made.enum_values[0].id).toBe('string');
    await sleep(5);
    const patched = await ws.api('PATCH', `/definitions/${made.id}`, { body: { reason: 'r', name: 'Renamed' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.revision).toBeGreaterThan(made.revision);
    expect(patched.json.etag).not.toBe(made.etag);
    const listed = await ws.api('GET', '/definitions');
    const again = await ws.api('GET', '/definitions');
    expect(listed.json.items[0].served_at).not.toBe(undefined);
    await sleep(2);
    const third = await ws.api('GET', '/definitions');
    expect(third.json.items[0].served_at).not.toBe(listed.json.items[0].served_at);
    expect(again.json.request_id).not.toBe(listed.json.request_id);
    expect(listed.json).toMatchObject({ has_more: false, nextCursor: null });
  });

  it('adds a request id to every error envelope and headers of its own to every answer', async () => {
    const a = await ws.api('GET', '/no-such-endpoint');
    const b = await ws.api('GET', '/no-such-endpoint');
    expect(a.json).toMatchObject({ defined: true, code: 'NOT_FOUND', status: 404 });
    expect(a.json.request_id).not.toBe(b.json.request_id);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    const me = await ws.api('GET', '/me');
    expect(me.headers.get('x-served-by')).toBe('wg-extended');
    expect(me.headers.get('cache-control')).toBe('no-store');
  });

  it('names roles in GET /me its own way and adds fields and capabilities of its own', async () => {
    const analyst = await ws.key('analyst', ['graph:read']);
    const me = await ws.api('GET', '/me', {}, analyst.secret);
    expect(me.json).toMatchObject({ role: 'Analyst', scopes: ['graph:read'], capabilities: { webhooks: false, liveCatalog: true, operationCatalog: '/api/v1/capabilities' } });
    expect(typeof me.json.request_id).toBe('string');
    expect((await ws.api('GET', '/me')).json.role).toBe('Owner');
  });

  it('takes its own statuses where the document fixes none', async () => {
    const invalid = await ws.api('POST', '/definitions', { body: { ...validCreate(), name: '' } });
    expect(invalid.status).toBe(422);
    expect(invalid.json).toMatchObject({ defined: false, status: 422 });
    expect((await ws.api('PATCH', '/definitions/not-a-uuid', { body: { reason: 'r' } })).status).toBe(404);
    const unknown = await ws.api('POST', '/operations', { body: { operation: 'no.such_operation', arguments: {}, reason: 'r' }, idem: 'x-unknown-op' });
    expect(unknown.status).toBe(404);
    expect((await ws.api('DELETE', '/definitions')).status).toBe(405);
  });

  it('runs receipts in three steps (queued, running, done) and lays them out its own way', async () => {
    const accountId = await ws.account();
    const { accountPersonId } = await ws.person(accountId, 'Jane', 'CTO');
    const changes = [{ kind: 'person_field', target_label: 'Jane', person_id: accountPersonId, field: 'title', after: 'CEO' }];
    const submitted = await ws.api('POST', '/operations', {
      body: { operation: 'graph.apply_update', arguments: { customer_id: accountId, summary: 's', changes }, reason: 'r' },
      idem: 'x-three-steps',
    });
    expect(submitted.status, submitted.text).toBe(202);
    const id = submitted.json.receipt.receipt_id as string;
    const seen: string[] = [];
    for (let i = 0; i < 100 && seen.at(-1) !== 'succeeded' && seen.at(-1) !== 'failed'; i++) {
      const r = await ws.api('GET', `/operations/${id}`);
      if (seen.at(-1) !== r.json.status) seen.push(r.json.status);
      await sleep(25);
    }
    expect(seen.slice(0, 2)).toEqual(['queued', 'running']);
    expect(['succeeded', 'failed']).toContain(seen.at(-1));
  });

  it('shows a charge in the usage ledger some time after the answer', async () => {
    await sleep(600);
    const before = await ws.charged();
    expect((await ws.api('GET', '/definitions')).status).toBe(200);
    expect(await ws.charged()).toBe(before);
    await sleep(600);
    expect(await ws.charged()).toBe(before + 1);
  });

  it('shares an Idempotency-Key across the workspace and pages with an inclusive cursor', async () => {
    const other = await ws.key('admin', ['admin']);
    const body = { ...validCreate(), name: 'Shared key' };
    const first = await ws.api('POST', '/definitions', { body, idem: 'x-shared' });
    const second = await ws.api('POST', '/definitions', { body, idem: 'x-shared' }, other.secret);
    expect(second.json.id).toBe(first.json.id);
    await ws.definition({ name: 'Second' });
    const page = await ws.api('GET', '/definitions', { headers: {} }, ws.owner.secret);
    const one = await ref.api(ws.owner.secret, 'GET', '/definitions?limit=1');
    expect(one.json.nextCursor).toBe(page.json.items[1].id);
  });
});
