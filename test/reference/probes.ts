/**
 * One small probe per clause that a fault names: it throws when the reference breaks the
 * clause. fault-probes.test.ts runs them clean (all pass) and under each fault (one of the
 * fault's clauses must fail), so every named fault is shown to change behaviour.
 */
import { expect } from 'vitest';
import { type Ref, type Ws, UUID_RE, DEFINITION_FIELDS, validCreate, expectError } from './helpers.ts';

export type Probe = (ref: Ref, ws: Ws) => Promise<void>;

const NIL = '00000000-0000-4000-8000-000000000000';
const defs = async (ws: Ws, q = '') => (await ws.api('GET', `/definitions?limit=200${q}`)).json.items as any[];
const create = (ws: Ws, extra: Record<string, unknown> = {}, secret?: string) => ws.api('POST', '/definitions', { body: { ...validCreate(), ...extra } }, secret);
const trace400 = async (ws: Ws, trace: unknown) => expectError(await create(ws, { decision_trace: trace }), 400);
const three = ['graph:read', 'graph:write', 'research:run'] as const;
const preview = async (ref: Ref, ws: Ws, secret: string) =>
  ref.api(secret, 'POST', '/operations', { body: { operation: 'graph.agent_preview', reason: 'r', arguments: { customerIds: [await ws.account()] } } });
const computePreview = (ref: Ref, secret: string) => ref.api(secret, 'POST', '/compute/preview', { body: { job: 'pmm_refresh' } });
const free = async (ws: Ws, call: () => Promise<unknown>) => {
  const c0 = await ws.charged();
  await call();
  expect(await ws.charged()).toBe(c0);
};
function envelopeOk(r: { status: number; json: any }) {
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.json).toMatchObject({ defined: true, status: r.status });
  expect(typeof r.json.code).toBe('string');
  expect(typeof r.json.message).toBe('string');
}

export const PROBES: Record<string, Probe> = {
  'SVC-005': async (_r, ws) => {
    await ws.definition();
    expect(await defs(ws)).toEqual(await defs(ws));
  },
  'TRACE-017': async (_r, ws) => {
    const d = await ws.definition();
    const before = await defs(ws);
    expect((await ws.api('GET', `/graph/traces?kind=definition&id=${d.id}`)).status).toBe(200);
    expect(await defs(ws)).toEqual(before);
  },
  'TRACE-001': async (_r, ws) => {
    const d = await ws.definition();
    expect((await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r', decision_trace: { reason: 't' } } })).status).toBe(200);
  },
  'TRACE-002': (_r, ws) => trace400(ws, { basis: 'human_judgment' }),
  'TRACE-003': (_r, ws) => trace400(ws, { reason: 'r', basis: 'gut' }),
  'TRACE-004': (_r, ws) => trace400(ws, { reason: 'r', factors: Array.from({ length: 51 }, () => ({ criterion: 'c', status: 'unknown' })) }),
  'TRACE-005': (_r, ws) => trace400(ws, { reason: 'r', alternatives: Array.from({ length: 21 }, (_, i) => `a${i}`) }),
  'TRACE-006': (_r, ws) => trace400(ws, { reason: 'r', event_at: 'yesterday' }),
  'TRACE-007': (_r, ws) => trace400(ws, { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', rationale: 'x'.repeat(2001) }] }),
  'TRACE-008': (_r, ws) => trace400(ws, { reason: 'r', evidence: [{ source_id: 'not-a-uuid' }] }),
  'TRACE-009': async (_r, ws) => {
    await trace400(ws, { reason: 'r', definition_refs: [{ entity_kind: 'definition', entity_id: 'x', revision: 1, content_hash: 'A'.repeat(64) }] });
    await trace400(ws, { reason: 'r', definition_refs: [{ entity_kind: 'definition', entity_id: 'x', revision: 0, content_hash: 'a'.repeat(64) }] });
  },
  'TRACE-010': (_r, ws) => trace400(ws, { reason: 'r', observations: [{ reference: 'a', excerpt: 'x'.repeat(4001) }] }),
  'TRACE-011': (_r, ws) => trace400(ws, { reason: 'r', reported_origin: { kind: 'robot', name: 'n' } }),
  'TRACE-012': (_r, ws) => trace400(ws, { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', weight: 2 }] }),

  'DEF-001': async (_r, ws) => {
    const d = await ws.definition();
    expect(Object.keys(d).sort()).toEqual([...DEFINITION_FIELDS].sort());
    expect(Object.keys((await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r' } })).json).sort()).toEqual([...DEFINITION_FIELDS].sort());
  },
  'DEF-002': async (_r, ws) => {
    const d = await ws.definition();
    expect(['draft', 'proposed', 'backfilling', 'live', 'live_partial', 'archived']).toContain(d.state);
    expect(d.id).toMatch(UUID_RE);
    expect((await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } })).json.entity_kinds).toEqual(expect.any(Array));
  },
  'DEF-003': async (_r, ws) => {
    expect((await ws.definition({ instruction: 'do it', description: 'dd' })).instruction).toBe('do it');
    const d = await ws.definition({ refreshPolicy: 'manual' });
    expect((await defs(ws)).find((x) => x.id === d.id).refresh_policy).toBe('manual');
  },
  'DEF-004': async (_r, ws) =>
    expect(await ws.definition({ enumValues: undefined })).toMatchObject({
      refresh_policy: 'on_ingest',
      capture_enabled: false,
      auto_apply_threshold: 0.85,
      review_threshold: 0.6,
      chat_visible: true,
      enum_values: [],
    }),
  'DEF-005': async (_r, ws) => expect((await ws.definition()).enum_values.every((v: any) => v.archived === false && typeof v.slug === 'string')).toBe(true),
  'DEF-006': async (_r, ws) => {
    expectError(await create(ws, { instruction: 'x'.repeat(2001) }), 400);
    expect((await create(ws, { name: 'n'.repeat(80) })).status).toBe(201);
    expect((await create(ws, { enumValues: Array.from({ length: 200 }, (_, i) => ({ label: `v${i}` })) })).status).toBe(201);
  },
  'DEF-007': async (_r, ws) => {
    expectError(await create(ws, { enumValues: [{ label: 'a', color: 'red' }] }), 400);
    // 80 characters, 160 UTF-8 bytes: at the bound.
    expect((await create(ws, { enumValues: [{ label: '\u00e9'.repeat(80) }] })).status).toBe(201);
  },
  'DEF-008': async (_r, ws) => {
    const d = await ws.definition();
    expectError(await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', description: 'x'.repeat(1001) } }), 400);
    expect((await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', name: 'n'.repeat(80) } })).status).toBe(200);
    const many = await ws.definition({ enumValues: Array.from({ length: 200 }, (_, i) => ({ label: `v${i}` })) });
    const slugs = many.enum_values.map((v: any) => v.slug);
    expect((await ws.api('PATCH', `/definitions/${many.id}`, { body: { reason: 'r', archiveEnumValueSlugs: slugs } })).status).toBe(200);
  },
  'DEF-009': async (_r, ws) => expectError(await ws.api('POST', `/definitions/${(await ws.definition()).id}/archive`, { body: {} }), 400),
  'DEF-010': async (_r, ws) => expectError(await ws.api('POST', `/definitions/${(await ws.definition()).id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver' } }), 400),
  'DEF-011': async (_r, ws) => {
    const n = (await defs(ws, '&includeArchived=true')).length;
    expectError(await create(ws, { moduleKey: 'nope' }), 400);
    expect((await defs(ws, '&includeArchived=true')).length).toBe(n);
  },
  'DEF-012': async (_r, ws) => {
    // Every optional field of an enum value a valid create may carry (a color among them).
    const r = await create(ws, { enumValues: [{ label: 'Gold', description: 'd', color: '#a1b2c3', archived: false }] });
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(300);
    expect(r.json).toMatchObject({ id: expect.any(String), name: expect.any(String) });
  },
  'DEF-013': async (_r, ws) => expect((await ws.api('POST', `/definitions/${(await ws.definition()).id}/archive`, { body: { reason: 'r' } })).json.state).toBe('archived'),
  'DEF-014': async (_r, ws) => expect((await ws.api('POST', `/definitions/${(await ws.definition()).id}/archive`, { body: { reason: 'r' } })).json.archived_at).toEqual(expect.any(String)),
  'DEF-015': async (_r, ws) => {
    const d = await ws.definition();
    await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } });
    expect((await defs(ws)).map((x) => x.id)).not.toContain(d.id);
    expect((await defs(ws, '&includeArchived=true')).map((x) => x.id)).toContain(d.id);
  },
  'DEF-016': async (_r, ws) => {
    const d = await ws.definition();
    await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } });
    const again = await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } });
    if (again.status < 300) expect(again.json.state).toBe('archived');
    expect((await defs(ws, '&includeArchived=true')).find((x) => x.id === d.id).state).toBe('archived');
  },
  'DEF-017': async (_r, ws) =>
    expect((await ws.api('PATCH', `/definitions/${(await ws.definition()).id}`, { body: { reason: 'r', chatVisible: false, name: 'N' } })).json).toMatchObject({ chat_visible: false, name: 'N' }),
  'DEF-018': async (_r, ws) => {
    const d = await ws.definition();
    const r = await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', addEnumValues: [{ label: 'Brand New' }] } });
    expect(r.json.enum_values).toContainEqual(expect.objectContaining({ label: 'Brand New', archived: false }));
    expect(r.json.enum_values.length).toBe(d.enum_values.length + 1);
  },
  'DEF-019': async (_r, ws) => {
    const r = await ws.api('PATCH', `/definitions/${(await ws.definition()).id}`, { body: { reason: 'r', archiveEnumValueSlugs: ['gold'] } });
    expect(r.json.enum_values.find((v: any) => v.slug === 'gold').archived).toBe(true);
  },
  'DEF-028': async (_r, ws) => {
    const d = await ws.definition({ description: 'kept', instruction: 'kept too' });
    const u = (await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', chatVisible: false } })).json;
    expect(u).toMatchObject({ description: 'kept', instruction: 'kept too', name: d.name, enum_values: d.enum_values, capture_enabled: d.capture_enabled });
  },
  'DEF-030': async (_r, ws) => {
    const d = await ws.definition({ enumValues: [{ label: 'Gold' }, { label: 'Silver' }, { label: 'Bronze' }] });
    expect((await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' } })).status).toBe(200);
    const listed = (await defs(ws, '&includeArchived=true')).find((x) => x.id === d.id);
    for (const slug of ['silver', 'bronze']) expect(listed.enum_values.find((v: any) => v.slug === slug)).toEqual(d.enum_values.find((v: any) => v.slug === slug));
  },
  'DEF-031': async (_r, ws) => {
    const d = await ws.definition();
    await new Promise((res) => setTimeout(res, 5));
    const u = (await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', description: 'later' } })).json;
    expect(Date.parse(u.updated_at)).toBeGreaterThan(Date.parse(d.updated_at));
  },
  'DEF-032': async (ref, ws) => {
    const d = await ws.definition({ cardinality: 'multi' });
    const entityId = await ws.account();
    expect((await ref.control('POST', `/workspaces/${ws.id}/labels`, { definitionId: d.id, entityKind: 'account', entityId, slug: 'gold' })).status).toBe(201);
    expect((await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' } })).status).toBe(200);
    const labels = (await ref.control('GET', `/workspaces/${ws.id}/labels`)).json.labels.filter((l: any) => l.definitionId === d.id);
    expect(labels.map((l: any) => [l.entityId, l.slug])).toEqual([[entityId, 'silver']]);
  },
  'TRACE-020': async (_r, ws) => {
    const d = await ws.definition();
    const r = await ws.api('POST', '/graph/decision-inputs', { body: { definitionIds: [d.id] } });
    const refs = JSON.stringify(r.json).match(/"revision":-?\d+/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const m of refs) expect(Number(m.split(':')[1])).toBeGreaterThan(0);
  },
  'DEF-020': async (_r, ws) => {
    const d = await ws.definition();
    const u = (await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r' } })).json;
    expect(Date.parse(u.updated_at)).toBeGreaterThanOrEqual(Date.parse(d.updated_at));
    expect(Date.parse(u.updated_at)).toBeGreaterThanOrEqual(Date.parse(u.created_at));
  },
  'DEF-021': async (_r, ws) => {
    const d = await ws.definition();
    await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } });
    const p = await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r' } });
    if (p.status < 300) expect(p.json.state).toBe('archived');
    expect((await defs(ws, '&includeArchived=true')).find((x) => x.id === d.id).state).toBe('archived');
  },
  'DEF-022': async (_r, ws) => {
    const r = await ws.api('POST', `/definitions/${(await ws.definition()).id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' } });
    expect(Number.isInteger(r.json.rewritten) && r.json.rewritten >= 0).toBe(true);
  },
  'DEF-023': async (_r, ws) => {
    await ws.definition({ moduleKey: 'partners' });
    await ws.definition({ moduleKey: 'customers' });
    const items = (await ws.api('GET', '/definitions?moduleKeys=partners')).json.items;
    expect(items.length).toBe(1);
    expect(items.every((d: any) => d.module_key === 'partners')).toBe(true);
  },
  'DEF-024': async (_r, ws) => expect((await ws.definition()).workspace_id).toBe(ws.id),
  'DEF-025': async (_r, ws) => {
    const r = await create(ws, { zzzUnknown: 1 });
    if (r.status !== 400) expect(r.json).not.toHaveProperty('zzzUnknown');
  },
  'DEF-026': async (_r, ws) => expectError(await ws.api('PATCH', `/definitions/${NIL}`, { body: { reason: 'r' } }), 404),
  'DEF-027': async (_r, ws) => {
    const r = await ws.api('PATCH', '/definitions/not-a-uuid', { body: { reason: 'r' } });
    expect([400, 404]).toContain(r.status);
    envelopeOk(r);
  },
  'ENV-001': async (_r, ws) => {
    await ws.definition();
    const r = (await ws.api('GET', '/definitions')).json;
    expect(Array.isArray(r.items)).toBe(true);
    expect(r.nextCursor === null || UUID_RE.test(r.nextCursor)).toBe(true);
  },
  'ENV-002': async (_r, ws) => {
    const r = (await ws.api('GET', '/operations')).json;
    expect(Array.isArray(r.items)).toBe(true);
    expect(r).toHaveProperty('nextCursor');
  },
  'ENV-003': async (_r, ws) => expect((await ws.api('GET', '/data/relationships')).json).toMatchObject({ items: [], nextCursor: null }),
  'ENV-004': async (_r, ws) => {
    const a = await ws.account();
    expect((await ws.api('GET', `/data/accounts/${a}/evidence`)).json).toMatchObject({ items: [], nextCursor: null });
  },
  'PAGE-013': async (_r, ws) => {
    const a = await ws.account();
    for (const limit of [0, 201]) expectError(await ws.api('GET', `/data/accounts/${a}/contacts?limit=${limit}`), 400);
    // Part 8's maximum is accepted on the 4.9 listings too.
    expect((await ws.api('GET', '/data/relationships?limit=200')).status).toBe(200);
    // And its default page size holds on a linked collection of more than 50.
    for (let i = 0; i < 51; i++) await ws.person(a, `P${i}`);
    const page = await ws.api('GET', `/data/accounts/${a}/contacts`);
    expect([page.json.items.length, typeof page.json.nextCursor]).toEqual([50, 'string']);
  },
  'ME-001': async (_r, ws) => {
    const me = (await ws.api('GET', '/me')).json;
    expect([typeof me.workspaceId, typeof me.userId, typeof me.role, typeof me.beta, Array.isArray(me.scopes), typeof me.capabilities]).toEqual([
      'string',
      'string',
      'string',
      'boolean',
      true,
      'object',
    ]);
  },
  'ME-002': async (_r, ws) => {
    const caps = (await ws.api('GET', '/me')).json.capabilities;
    for (const c of ['definitions', 'graphReads', 'graphEdits', 'context', 'research', 'enrichment', 'crm', 'workflows', 'automaticCapture', 'relationEditing', 'graphCompute'])
      expect(typeof caps[c]).toBe('boolean');
  },
  'ME-003': async (_r, ws) => expect((await ws.api('GET', '/me')).json.capabilities.operationCatalog).toBe('/api/v1/capabilities'),
  'ME-004': async (_r, ws) => expect((await ws.api('GET', '/me')).json.capabilities.moduleVisibility).toBe('definitions'),
  'ME-005': async (ref, ws) => {
    const k = await ws.key('analyst', ['crm:read']);
    expect((await ref.api(k.secret, 'GET', '/me')).json).toMatchObject({ workspaceId: ws.id, userId: k.userId, role: 'analyst', scopes: ['crm:read'] });
  },

  'IDEM-001': async (_r, ws) =>
    expect((await ws.api('POST', `/definitions/${(await ws.definition()).id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' }, idem: 'k1' })).status).toBe(200),
  'IDEM-002': async (_r, ws) => {
    const a = await ws.api('POST', '/definitions', { body: validCreate(), idem: 'same' });
    const b = await ws.api('POST', '/definitions', { body: validCreate(), idem: 'same' });
    expect([b.status, b.text]).toEqual([a.status, a.text]);
    // A reuse with other input is refused and leaves the key's answer as it was.
    expectError(await ws.api('POST', '/definitions', { body: { ...validCreate(), name: 'other' }, idem: 'same' }), 409);
    const after = await ws.api('POST', '/definitions', { body: validCreate(), idem: 'same' });
    expect([after.status, after.text]).toEqual([a.status, a.text]);
    const c = await ws.api('POST', '/definitions', { body: Object.fromEntries(Object.entries(validCreate()).reverse()), idem: 'same' });
    expect([c.status, c.text]).toEqual([a.status, a.text]);
  },
  'IDEM-003': async (_r, ws) => {
    await ws.api('POST', '/definitions', { body: validCreate(), idem: 'once' });
    await ws.api('POST', '/definitions', { body: validCreate(), idem: 'once' });
    expect(await defs(ws)).toHaveLength(1);
  },
  'IDEM-004': async (_r, ws) => {
    await ws.api('POST', '/definitions', { body: validCreate(), idem: 'k' });
    expectError(await ws.api('POST', '/definitions', { body: { ...validCreate(), name: 'other' }, idem: 'k' }), 409);
    expectError(await ws.api('POST', '/definitions', { body: { ...validCreate(), entityKinds: ['account', 'deal'] }, idem: 'k' }), 409);
    expect(await defs(ws)).toHaveLength(1);
    const [a, b] = [await ws.definition(), await ws.definition()];
    expect((await ws.api('PATCH', `/definitions/${a.id}`, { body: { reason: 'r', description: 'd' }, idem: 'p' })).status).toBe(200);
    expectError(await ws.api('PATCH', `/definitions/${b.id}`, { body: { reason: 'r', description: 'd' }, idem: 'p' }), 409);
  },
  'IDEM-005': async (_r, ws) => {
    expect([400, 201]).toContain((await ws.api('POST', '/definitions', { body: validCreate(), idem: 'x'.repeat(129) })).status);
    expectError(await ws.api('POST', `/definitions/${(await ws.definition()).id}/archive`, { body: { reason: 'r' }, idem: 'x'.repeat(129) }), 400);
  },
  'IDEM-006': async (_r, ws) => {
    expectError(await ws.api('POST', '/definitions', { body: validCreate(), idem: 'a b' }), 400);
    expectError(await ws.api('POST', `/definitions/${(await ws.definition()).id}/archive`, { body: { reason: 'r' }, idem: 'a b' }), 400);
  },
  'IDEM-007': async (_r, ws) => {
    expect((await ws.api('POST', '/definitions', { body: validCreate(), idem: 'x'.repeat(128) })).status).toBe(201);
    expect((await ws.api('POST', '/definitions', { body: validCreate(), idem: 'y' })).status).toBe(201);
  },
  'IDEM-008': async (_r, ws) => {
    await Promise.all(Array.from({ length: 20 }, () => ws.api('POST', '/definitions', { body: validCreate(), idem: 'race' })));
    expect(await defs(ws)).toHaveLength(1);
  },
  'IDEM-009': async (_r, ws) => {
    expectError(await ws.api('POST', '/definitions', { body: { name: '' }, idem: 'f' }), 400);
    const r = await ws.api('POST', '/definitions', { body: validCreate(), idem: 'f' });
    expect([400, 409, 201]).toContain(r.status);
    if (r.status === 201) {
      await ws.api('POST', '/definitions', { body: validCreate(), idem: 'f' });
      expect(await defs(ws)).toHaveLength(1);
    }
  },

  'OPS-001': async (_r, ws) => {
    const s = await ws.api('POST', '/operations', { body: { operation: 'graph.context_refresh', reason: 'r', arguments: { customerIds: [await ws.account()] } } });
    expect((await ws.api('GET', `/operations/${s.json.id}`)).status).toBe(200);
  },
  'OPS-002': async (_r, ws) => envelopeOk(await ws.api('POST', '/operations', { body: { operation: 'graph.nope', reason: 'r', arguments: {} } })),
  'OPS-003': async (_r, ws) => {
    const names = (await ws.api('GET', '/capabilities')).json.operations.map((o: any) => o.name);
    for (const n of ['graph.apply_update', 'graph.propose_update', 'graph.agent_preview', 'graph.agent_run', 'graph.context_refresh']) expect(names).toContain(n);
  },
  'OPS-004': async (ref, ws) => {
    const q = (await ws.settle((await preview(ref, ws, ws.owner.secret)).json.id)).result;
    expect([typeof q.modelCreditCeiling, typeof q.apiPreviewCredits, typeof q.apiSubmissionCredits, typeof q.analysisLabel, typeof q.model]).toEqual([
      'number',
      'number',
      'number',
      'string',
      'string',
    ]);
  },
  'OPS-005': async (_r, ws) => {
    const ids = await Promise.all(Array.from({ length: 21 }, (_, i) => ws.account(`a${i}`)));
    const r = await ws.api('POST', '/operations', { body: { operation: 'graph.agent_preview', reason: 'r', arguments: { customerIds: ids } } });
    expect(r.status).toBeGreaterThanOrEqual(400);
  },
  'OPS-006': async (_r, ws) => {
    const acc = await ws.account();
    const ap = await ws.person(acc);
    const change = { kind: 'person_field', target_label: 'J', person_id: ap.accountPersonId, field: 'title', after: 'CEO' };
    expect((await ws.api('POST', '/operations', { body: { operation: 'graph.apply_update', reason: 'r', arguments: { customer_id: acc, summary: 's', changes: [change] } } })).status).toBe(202);
  },
  'OPS-007': async (_r, ws) => {
    const acc = await ws.account('Filled', 'filled.example.com');
    const change = { kind: 'account_field', target_label: 'Domain', field: 'domain', after: 'changed.example.com' };
    const s = await ws.api('POST', '/operations', { body: { operation: 'graph.apply_update', reason: 'r', arguments: { customer_id: acc, summary: 's', changes: [change] } } });
    await ws.settle(s.json.id);
    expect((await ws.api('GET', `/data/accounts/${acc}`)).json.firmographics.domain).toBe('filled.example.com');
  },
  'OPS-012': async (_r, ws) => {
    const run = await ws.api('POST', '/compute/runs', { body: { job: 'pmm_refresh', reason: 'r' } });
    expect((await ws.api('GET', `/compute/runs/${run.json.id}`)).status).toBe(200);
  },
  'OPS-013': async (_r, ws) => expectError(await ws.api('GET', `/operations/${NIL}`), 404),
  'DATA-001': async (_r, ws) => {
    const account = await ws.account();
    const { accountPersonId } = await ws.person(account);
    const links = (await ws.api('GET', `/data/accounts/${account}`)).json.relatedData as Record<string, string>;
    expect(JSON.stringify((await ws.api('GET', links.contacts!.replace(/^\/api\/v1/, ''))).json.items)).toContain(accountPersonId);
  },
  'DATA-002': async (_r, ws) =>
    expect(Object.values((await ws.api('GET', `/data/people/${(await ws.person(await ws.account())).personId}`)).json.relatedData ?? {})).toContainEqual(expect.stringMatching(/^\/api\/v1\//)),
  'DATA-003': async (_r, ws) => expect((await ws.api('GET', '/data/relationships')).status).toBe(200),
  'DATA-004': async (_r, ws) => expectError(await ws.api('GET', `/data/accounts/${NIL}`), 404),

  'AUTH-001': async (ref, ws) => {
    expect((await ws.api('GET', '/me')).status).toBe(200);
    // Another workspace deleted: this one's key still works.
    const other = await ref.workspace();
    expect((await ref.control('DELETE', `/workspaces/${other.id}`)).status).toBe(204);
    expect((await ws.api('GET', '/me')).status).toBe(200);
  },
  'AUTH-002': async (_r, ws) => expect((await ws.api('GET', '/me', { auth: 'x-api-key' })).json).toEqual((await ws.api('GET', '/me')).json),
  'AUTH-003': async (_r, ws) => expect(ws.owner.secret).toMatch(/^[A-Za-z0-9]+_/),
  'AUTH-004': async (ref) => expectError(await ref.api(null, 'GET', '/definitions'), 401),
  'AUTH-005': async (ref) => expectError(await ref.api(`wgr_${'Z'.repeat(32)}`, 'GET', '/me'), 401),
  'AUTH-006': async (ref, ws) => expectError(await ref.api(`x${ws.owner.secret}`, 'GET', '/me'), 401),
  'AUTH-007': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    await ref.control('POST', `/keys/${k.keyId}/revoke`);
    expectError(await ref.api(k.secret, 'GET', '/me'), 401);
  },
  'AUTH-008': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    await ref.control('POST', `/keys/${k.keyId}/disable`);
    expectError(await ref.api(k.secret, 'GET', '/me'), 401);
  },
  'AUTH-009': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    await ref.control('DELETE', `/workspaces/${ws.id}/members/${k.userId}`);
    expect([401, 403]).toContain((await ref.api(k.secret, 'GET', '/definitions')).status);
  },
  'AUTH-010': async (ref, ws) => {
    await ref.control('POST', `/workspaces/${ws.id}/pause`);
    expect([401, 403]).toContain((await ws.api('GET', '/definitions')).status);
  },
  'AUTH-011': async (ref, ws) => {
    const other = await ref.workspace();
    const r = await ws.api('POST', `/definitions?workspaceId=${other.id}`, { body: { ...validCreate(), workspace_id: other.id }, headers: { 'x-workspace-id': other.id } });
    expect(r.json.workspace_id).toBe(ws.id);
    expect(await defs(other)).toHaveLength(0);
  },
  'AUTH-012': async (ref, ws) => {
    const other = await ref.workspace();
    const d = await other.definition();
    expect([403, 404]).toContain((await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', name: 'hijacked' } })).status);
    expect((await defs(other))[0].name).toBe(d.name);
  },
  'AUTH-013': async (_r, ws) => {
    for (const p of ['/me', '/capabilities']) expect((await ws.api('GET', p)).text).not.toContain(ws.owner.secret);
  },
  'AUTH-014': async (ref, ws) => {
    const other = await ref.workspace();
    await other.definition();
    expect(await defs(ws)).toHaveLength(0);
  },

  'SCOPE-001': async (ref, ws) => {
    expectError(await ref.api((await ws.key('owner', ['graph:write', 'crm:read'])).secret, 'GET', '/definitions'), 403);
    expect((await ref.api((await ws.key('owner', ['graph:read'])).secret, 'GET', '/definitions')).status).toBe(200);
  },
  'SCOPE-002': async (ref, ws) => expectError(await create(ws, {}, (await ws.key('owner', ['graph:read'])).secret), 403),
  'SCOPE-003': async (ref, ws) => expectError(await ref.api((await ws.key('owner', ['graph:read'])).secret, 'PATCH', `/definitions/${(await ws.definition()).id}`, { body: { reason: 'r' } }), 403),
  'SCOPE-004': async (ref, ws) =>
    expectError(await ref.api((await ws.key('owner', ['graph:read'])).secret, 'POST', `/definitions/${(await ws.definition()).id}/archive`, { body: { reason: 'r' } }), 403),
  'SCOPE-005': async (ref, ws) =>
    expectError(
      await ref.api((await ws.key('owner', ['graph:read'])).secret, 'POST', `/definitions/${(await ws.definition()).id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' } }),
      403,
    ),
  'SCOPE-006': async (ref, ws) =>
    expectError(
      await ref.api((await ws.key('owner', ['graph:read'])).secret, 'POST', '/query', { body: { operation: 'crm.read_partner_deal_properties', arguments: { properties: ['amount'] } } }),
      403,
    ),
  'SCOPE-007': async (ref, ws) => expectError(await preview(ref, ws, (await ws.key('owner', ['graph:read', 'graph:write'])).secret), 403),
  'SCOPE-008': async (ref, ws) => {
    const k = await ws.key('owner', ['graph:read', 'graph:write']);
    const args = { customerIds: [await ws.account()], mode: 'apply', creditCap: 10, user_said: 'yes' };
    expectError(await ref.api(k.secret, 'POST', '/operations', { body: { operation: 'graph.agent_run', reason: 'yes', arguments: args } }), 403);
  },
  'SCOPE-009': async (ref, ws) => expectError(await computePreview(ref, (await ws.key('owner', ['graph:read'])).secret), 403),
  'SCOPE-010': async (ref, ws) => expectError(await ref.api((await ws.key('owner', ['admin'])).secret, 'GET', '/definitions'), 403),
  'SCOPE-011': async (ref, ws) => {
    const acc = await ws.account();
    const body = {
      operation: 'graph.apply_update',
      reason: 'r',
      arguments: { customer_id: acc, summary: 's', changes: [{ kind: 'account_field', target_label: 'a', field: 'industry', after: 'x' }] },
    };
    expectError(await ref.api((await ws.key('owner', ['graph:read'])).secret, 'POST', '/operations', { body }), 403);
  },
  'SCOPE-012': async (ref, ws) => {
    expectError(await create(ws, {}, (await ws.key('owner', ['graph:read'])).secret), 403);
    expect(await defs(ws)).toHaveLength(0);
  },
  'ROLE-001': async (ref, ws) => expectError(await computePreview(ref, (await ws.key('analyst', ['admin'])).secret), 403),
  'ROLE-002': async (ref, ws) => {
    for (const role of ['owner', 'admin'] as const) expect((await computePreview(ref, (await ws.key(role, ['admin'])).secret)).status).toBe(200);
  },
  'ROLE-003': async (ref, ws) => expect((await preview(ref, ws, (await ws.key('analyst', [...three])).secret)).status).toBe(202),
  'ROLE-004': async (ref, ws) => {
    const k = await ws.key('analyst', [...three]);
    await ref.control('PATCH', `/workspaces/${ws.id}/members/${k.userId}`, { role: 'member' });
    expectError(await preview(ref, ws, k.secret), 403);
  },
  'ROLE-005': async (ref, ws) => {
    const k = await ws.key('owner', ['admin']);
    expect((await computePreview(ref, k.secret)).status).toBe(200);
    await ref.control('PATCH', `/workspaces/${ws.id}/members/${k.userId}`, { role: 'analyst' });
    expectError(await computePreview(ref, k.secret), 403);
  },
  'ROLE-006': async (ref, ws) => {
    const def = await ws.definition();
    const label = (entityId: string) => ({ kind: 'label', target_label: 'L', definition_id: def.id, entity_kind: 'account', entity_id: entityId, value_slug: def.enum_values[0].slug });
    const submit = async (secret: string) => {
      const acc = await ws.account();
      const s = await ws.api('POST', '/operations', { body: { operation: 'graph.apply_update', reason: 'r', arguments: { customer_id: acc, summary: 's', changes: [label(acc)] } } }, secret);
      if (s.status === 202) await ws.settle(s.json.id);
      return (await ref.control('GET', `/workspaces/${ws.id}/labels`)).json.labels.filter((l: any) => l.entityId === acc).length;
    };
    expect(await submit((await ws.key('owner', ['graph:read', 'graph:write', 'admin'])).secret)).toBe(1);
    expect(await submit((await ws.key('owner', ['graph:read', 'graph:write'])).secret)).toBe(0);
    expect(await submit((await ws.key('analyst', ['graph:read', 'graph:write', 'admin'])).secret)).toBe(0);
  },
  'GRANT-001': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['crm:read'] });
    expect((await ref.api(k.secret, 'GET', '/me')).status).toBe(200);
  },
  'GRANT-002': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    expect((await ref.api(k.secret, 'GET', '/definitions')).status).toBe(200);
    await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['admin'] });
    expectError(await ref.api(k.secret, 'GET', '/definitions'), 403);
    expect((await create(ws, {}, k.secret)).status).toBe(201);
  },
  'GRANT-003': async (ref, ws) => {
    const k = await ws.key('admin', ['admin']);
    const d = (await create(ws, {}, k.secret)).json;
    await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['graph:read'] });
    expect((await defs(ws)).find((x) => x.id === d.id)?.state).toBe('draft');
  },
  'GRANT-004': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    const before = (await ref.api(k.secret, 'GET', '/me')).json;
    await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['graph:read', 'crm:read'] });
    const after = (await ref.api(k.secret, 'GET', '/me')).json;
    expect([after.userId, after.role]).toEqual([before.userId, before.role]);
  },
  'GRANT-005': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    await ref.api(k.secret, 'GET', '/me');
    await ref.control('PUT', `/keys/${k.keyId}/scopes`, { scopes: ['crm:read'] });
    expect((await ref.api(k.secret, 'GET', '/me')).json.scopes).toEqual(['crm:read']);
  },

  'ERR-001': async (_r, ws) => envelopeOk(await create(ws, { name: '' })),
  'ERR-002': async (_r, ws) => expectError(await create(ws, { name: '' }), 400),
  'ERR-003': async (_r, ws) => envelopeOk(await ws.api('GET', '/no/such/path')),
  'ERR-004': async (_r, ws) => expectError(await ws.api('POST', '/definitions', { raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400),
  'ERR-005': async (_r, ws) => expectError(await create(ws, { captureEnabled: 'not-a-boolean' }), 400),
  'ERR-006': async (_r, ws) => {
    const form = new URLSearchParams(Object.entries(validCreate()).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
    envelopeOk(await ws.api('POST', '/definitions', { raw: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
  },
  'ERR-007': async (ref, ws) => {
    expectError(await computePreview(ref, (await ws.key('analyst', ['admin'])).secret), 403);
    expectError(await ref.api((await ws.key('owner', ['admin'])).secret, 'GET', '/definitions'), 403);
  },
  'ERR-008': async (ref, ws) => {
    await ref.control('PUT', `/workspaces/${ws.id}/rate-limit`, { requestsPerMinute: 1 });
    await ws.api('GET', '/me');
    expectError(await ws.api('GET', '/me'), 429);
  },
  'DATA-005': async (_ref, ws) => {
    const a = await ws.account('A');
    const b = await ws.account('B');
    const pa = await ws.person(a);
    const pb = await ws.person(b);
    const contacts = await ws.api('GET', `/data/accounts/${a}/contacts`);
    expect(JSON.stringify(contacts.json)).not.toContain(pb.personId);
    const accounts = await ws.api('GET', `/data/people/${pa.personId}/accounts`);
    expect(JSON.stringify(accounts.json)).not.toContain(b);
  },
  'AUTH-016': async (ref, ws) => {
    const { keyId, secret } = await ws.key('owner', ['graph:read']);
    await ref.control('POST', `/keys/${keyId}/disable`);
    await ref.control('POST', `/keys/${keyId}/enable`);
    expect((await ref.api(secret, 'GET', '/me')).status).toBe(200);
    await ref.control('POST', `/workspaces/${ws.id}/pause`);
    await ref.control('POST', `/workspaces/${ws.id}/resume`);
    expect((await ref.api(secret, 'GET', '/me')).status).toBe(200);
    await ref.control('POST', `/keys/${keyId}/revoke`);
    await ref.control('POST', `/keys/${keyId}/enable`);
    expect((await ref.api(secret, 'GET', '/me')).status).toBe(401);
  },
  'ERR-010': async (ref, ws) => {
    await ref.control('PUT', `/workspaces/${ws.id}/rate-limit`, { requestsPerMinute: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await ws.api('GET', '/me')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  },
  'ERR-009': async (ref, ws) => {
    await ref.control('PUT', `/workspaces/${ws.id}/capabilities`, { definitions: false });
    expectError(await ws.api('GET', '/definitions'), 503);
  },

  'DEF-029': async (_r, ws) => {
    const d = await ws.definition({ name: 'stored' });
    const patched = await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', instruction: 'patched instruction' } });
    const listed = (await ws.api('GET', '/definitions?limit=200')).json.items.find((x: any) => x.id === d.id);
    expect(listed.instruction).toBe(patched.json.instruction);
    const archived = await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'archived for good' } });
    const after = (await ws.api('GET', '/definitions?limit=200&includeArchived=true')).json.items.find((x: any) => x.id === d.id);
    expect(after.archived_at).toBe(archived.json.archived_at);
  },

  'OPS-014': async (ref, ws) => {
    const { accountId } = (await ref.control('POST', `/workspaces/${ws.id}/accounts`, { name: 'a' })).json;
    const { accountPersonId } = (await ref.control('POST', `/workspaces/${ws.id}/accounts/${accountId}/people`, { name: 'p' })).json;
    const body = {
      operation: 'graph.apply_update',
      reason: 'r',
      arguments: { customer_id: accountId, summary: 's', changes: [{ kind: 'person_field', target_label: 'Title', person_id: accountPersonId, field: 'title', after: 'x' }] },
    };
    const sub = await ws.api('POST', '/operations', { body, headers: { 'idempotency-key': `k-${Date.now()}` } });
    const id = sub.json.id ?? sub.json.receipt?.id;
    const list = (await ws.api('GET', '/operations')).json;
    expect(list.items.map((r: any) => r.id)).toContain(id);
  },

  'OPS-015': async (ref, ws) => {
    const { accountId } = (await ref.control('POST', `/workspaces/${ws.id}/accounts`, { name: 'a' })).json;
    const { accountPersonId } = (await ref.control('POST', `/workspaces/${ws.id}/accounts/${accountId}/people`, { name: 'p' })).json;
    const args = { customer_id: accountId, summary: 's', changes: [{ kind: 'person_field', target_label: 'Title', person_id: accountPersonId, field: 'title', after: 'x' }] };
    expectError(await ws.api('POST', '/operations', { body: { operation: 'graph.apply_update', reason: 42, arguments: args } }), 400);
    expectError(await ws.api('POST', '/operations', { body: { operation: 'graph.apply_update', reason: 'r', arguments: 'x' } }), 400);
  },

  'OPS-016': async (ref, ws) => {
    const { accountId } = (await ref.control('POST', `/workspaces/${ws.id}/accounts`, { name: 'a' })).json;
    const { personId } = (await ref.control('POST', `/workspaces/${ws.id}/accounts/${accountId}/people`, { name: 'p' })).json;
    const body = {
      operation: 'graph.apply_update',
      reason: 'r',
      arguments: { customer_id: accountId, summary: 's', changes: [{ kind: 'person_field', target_label: 'Title', person_id: personId, field: 'title', after: 'x' }] },
    };
    expect((await ws.api('POST', '/operations', { body })).status).toBe(400);
  },

  'PAGE-001': async (_r, ws) => {
    await Promise.all(Array.from({ length: 55 }, (_, i) => create(ws, { name: `p${i}` })));
    expect((await ws.api('GET', '/definitions')).json.items).toHaveLength(50);
  },
  'PAGE-002': async (_r, ws) => {
    await Promise.all(Array.from({ length: 5 }, (_, i) => create(ws, { name: `p${i}` })));
    for (const l of [1, 150, 200]) expect((await ws.api('GET', `/definitions?limit=${l}`)).json.items.length).toBe(Math.min(l, 5));
  },
  'PAGE-003': async (_r, ws) => {
    for (const l of ['0', '201', '1.5']) expectError(await ws.api('GET', `/definitions?limit=${l}`), 400);
  },
  'PAGE-004': async (_r, ws) => expectError(await ws.api('GET', '/definitions?cursor=abc'), 400),
  'PAGE-005': async (_r, ws) => {
    await Promise.all(Array.from({ length: 6 }, (_, i) => create(ws, { name: `p${i}` })));
    const ids = (await ws.api('GET', '/definitions?limit=4')).json.items.map((d: any) => d.id);
    expect(ids).toEqual([...ids].sort());
  },
  'PAGE-006': async (_r, ws) => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => create(ws, { name: `p${i}` })));
    const seen: string[] = [];
    let c: string | null = null;
    for (let i = 0; i < 20; i++) {
      const r: any = await ws.api('GET', `/definitions?limit=3${c ? `&cursor=${c}` : ''}`);
      seen.push(...r.json.items.map((d: any) => d.id));
      c = r.json.nextCursor ?? null;
      if (!c) break;
    }
    expect(seen.length).toBe(10);
    expect(new Set(seen).size).toBe(10);
  },
  'PAGE-007': async (_r, ws) => {
    const all = await Promise.all(Array.from({ length: 12 }, (_, i) => ws.definition({ name: `p${i}` })));
    for (const d of all.slice(0, 6)) await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } });
    expect((await ws.api('GET', '/definitions?limit=6')).json.items).toHaveLength(6);
  },
  'PAGE-008': async (_r, ws) => {
    await Promise.all(Array.from({ length: 6 }, (_, i) => create(ws, { name: `p${i}` })));
    const p1 = (await ws.api('GET', '/definitions?limit=3')).json;
    const p2 = (await ws.api('GET', `/definitions?limit=3&cursor=${p1.items[2].id}`)).json;
    expect(p2.items.every((d: any) => d.id > p1.items[2].id)).toBe(true);
    // A cursor no item has: the uuid just before the 2nd item (as a 128-bit number, minus one).
    const second: string = p1.items[1].id;
    const hex = (BigInt(`0x${second.replace(/-/g, '')}`) - 1n).toString(16).padStart(32, '0');
    const before = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    expect(before).not.toBe(p1.items[0].id);
    expect((await ws.api('GET', `/definitions?limit=3&cursor=${before}`)).json.items[0].id).toBe(second);
  },
  'PAGE-009': async (_r, ws) => {
    expect((await ws.api('GET', '/definitions?includeArchived=true')).status).toBe(200);
    expectError(await ws.api('GET', '/definitions?includeArchived=maybe'), 400);
  },
  'PAGE-010': async (_r, ws) => expectError(await ws.api('GET', '/definitions?moduleKeys=bogus'), 400),
  'PAGE-011': async (_r, ws) => {
    await Promise.all(Array.from({ length: 201 }, (_, i) => create(ws, { name: `p${i}` })));
    for (const l of [101, 200]) expect((await ws.api('GET', `/definitions?limit=${l}`)).json.items).toHaveLength(l);
  },
  'PAGE-012': async (ref, ws) => {
    const other = await ref.workspace();
    await Promise.all(Array.from({ length: 20 }, (_, i) => create(ws, { name: `p${i}` })));
    await Promise.all(Array.from({ length: 20 }, (_, i) => create(other, { name: `o${i}` })));
    expect((await ws.api('GET', '/definitions?limit=20')).json.items).toHaveLength(20);
  },

  'BILL-014': async (_r, ws) => {
    const d = await ws.definition({ name: 'surface' });
    await ws.api('GET', '/definitions?limit=1');
    await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r' } });
    const { entries } = await ws.usage();
    expect(new Set(entries.map((e) => e.surface)).size).toBe(3);
  },

  'BILL-001': async (_r, ws) => {
    const c0 = await ws.charged();
    await create(ws);
    expect(await ws.charged()).toBe(c0 + 1);
  },
  'BILL-002': (_r, ws) => free(ws, () => ws.api('GET', '/me')),
  'BILL-003': (_r, ws) => free(ws, () => ws.api('GET', '/capabilities')),
  'BILL-004': async (_r, ws) => {
    const s = await ws.api('POST', '/operations', { body: { operation: 'graph.context_refresh', reason: 'r', arguments: { customerIds: [await ws.account()] } } });
    await free(ws, async () => {
      await ws.api('GET', '/operations');
      await ws.api('GET', `/operations/${s.json.id}`);
    });
  },
  'BILL-005': async (_r, ws) => {
    const run = await ws.api('POST', '/compute/runs', { body: { job: 'pmm_refresh', reason: 'r' } });
    await free(ws, () => ws.api('GET', `/compute/runs/${run.json.id}`));
  },
  'BILL-006': (_r, ws) => free(ws, () => create(ws, { name: '' })),
  'BILL-007': async (ref, ws) => {
    const k = await ws.key('admin', ['graph:read']);
    await ref.control('POST', `/keys/${k.keyId}/revoke`);
    await free(ws, () => ref.api(k.secret, 'GET', '/definitions'));
  },
  'BILL-008': async (ref, ws) => {
    await ref.control('PUT', `/workspaces/${ws.id}/rate-limit`, { requestsPerMinute: 0 });
    await free(ws, () => ws.api('GET', '/definitions'));
  },
  'BILL-009': async (ref, ws) => {
    await ref.control('PUT', `/workspaces/${ws.id}/capabilities`, { definitions: false });
    await free(ws, () => ws.api('GET', '/definitions'));
  },
  'BILL-010': async (_r, ws) => {
    await ws.api('POST', '/definitions', { body: validCreate(), idem: 'b' });
    await free(ws, () => ws.api('POST', '/definitions', { body: validCreate(), idem: 'b' }));
  },
  'BILL-011': async (ref, ws) => {
    const acc = await ws.account();
    const c0 = await ws.charged();
    const s = await ref.api(ws.owner.secret, 'POST', '/operations', { body: { operation: 'graph.agent_preview', reason: 'r', arguments: { customerIds: [acc] } } });
    const q = (await ws.settle(s.json.id)).result;
    expect([q.apiPreviewCredits, 1 + q.apiPreviewCredits]).toContain((await ws.charged()) - c0);
  },
  'VER-001': async (ref, ws) => expect((await fetch(`${ref.ref.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${ws.owner.secret}` } })).status).toBe(200),
  'VER-003': async (ref, ws) => {
    // Any valid key, whatever its scopes, gets 2xx with JSON (the seed shows no shape).
    for (const secret of [ws.owner.secret, (await ws.key('analyst', ['admin'])).secret]) {
      const r = await ref.api(secret, 'GET', '/capabilities');
      expect(r.status).toBe(200);
      expect(r.json).not.toBeUndefined();
    }
  },
};
