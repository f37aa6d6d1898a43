/** Definitions and decision traces of the reference target (seed 2.1, 2.2, 2.6, 3, 4.3-4.7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFINITION_FIELDS, expectError, Ref, UUID_RE, validCreate, type Ws } from './helpers.ts';

let ref: Ref;
let ws: Ws;
beforeAll(async () => {
  ref = await Ref.start();
  ws = await ref.workspace();
});
afterAll(() => ref.close());

const full = {
  name: 'Full',
  description: 'd',
  moduleKey: 'partners',
  entityKinds: ['account', 'contact', 'deal', 'investor'],
  valueType: 'enum',
  cardinality: 'multi',
  enumValues: [{ label: 'Ünïcode Välue!', description: 'x', color: '#A1b2C3' }, { label: 'Ünïcode Välue!' }, { label: 'Old', archived: true }],
  instruction: 'i',
  refreshPolicy: 'manual',
  captureEnabled: true,
  autoApplyThreshold: 1,
  reviewThreshold: 0,
  chatVisible: false,
  reason: 'because',
};

describe('create', () => {
  it('returns 201 with all 25 fields reflecting the request', async () => {
    const r = await ws.api('POST', '/definitions', { body: full });
    expect(r.status).toBe(201);
    const d = r.json;
    expect(Object.keys(d).sort()).toEqual([...DEFINITION_FIELDS].sort());
    expect(d).toMatchObject({
      workspace_id: ws.id,
      name: 'Full',
      slug: 'full',
      description: 'd',
      module_key: 'partners',
      entity_kinds: full.entityKinds,
      value_type: 'enum',
      cardinality: 'multi',
      instruction: 'i',
      refresh_policy: 'manual',
      capture_enabled: true,
      auto_apply_threshold: 1,
      review_threshold: 0,
      chat_visible: false,
      state: 'draft',
      est_credits_low: null,
      est_credits_high: null,
      last_run_credits: null,
      created_by: ws.owner.userId,
      reason: 'because',
      archived_at: null,
    });
    expect(d.id).toMatch(UUID_RE);
    expect(d.created_at).toBe(d.updated_at);
    expect(new Date(d.created_at).toISOString()).toBe(d.created_at);
    expect(d.enum_values).toEqual([
      { label: 'Ünïcode Välue!', slug: 'unicode_value', description: 'x', color: '#A1b2C3', archived: false },
      { label: 'Ünïcode Välue!', slug: 'unicode_value_2', archived: false },
      { label: 'Old', slug: 'old', archived: true },
    ]);
  });

  it('fills defaults and ignores unknown properties', async () => {
    const d = await ws.definition({ valueType: 'text', enumValues: undefined, colour: 'red', workspace_id: 'x' });
    expect(d).toMatchObject({
      refresh_policy: 'on_ingest',
      capture_enabled: false,
      auto_apply_threshold: 0.85,
      review_threshold: 0.6,
      chat_visible: true,
      enum_values: [],
      cardinality: null,
      description: null,
      instruction: null,
    });
    expect(d).not.toHaveProperty('colour');
    expect(d.workspace_id).toBe(ws.id);
  });

  const over = (n: number, ch = 'a') => ch.repeat(n);
  const bad: [string, Record<string, unknown>][] = [
    ['no name', { name: undefined }],
    ['empty name', { name: '' }],
    ['long name', { name: over(81) }],
    ['name not string', { name: 5 }],
    ['long description', { description: over(1001) }],
    ['null description', { description: null }],
    ['bad moduleKey', { moduleKey: 'clients' }],
    ['no entityKinds', { entityKinds: [] }],
    ['5 entityKinds', { entityKinds: ['account', 'contact', 'deal', 'investor', 'account'] }],
    ['bad entity kind', { entityKinds: ['company'] }],
    ['bad valueType', { valueType: 'string' }],
    ['bad cardinality', { cardinality: 'single' }],
    ['201 enum values', { enumValues: Array.from({ length: 201 }, (_, i) => ({ label: `v${i}` })) }],
    ['empty label', { enumValues: [{ label: '' }] }],
    ['long label', { enumValues: [{ label: over(81) }] }],
    ['long value description', { enumValues: [{ label: 'a', description: over(501) }] }],
    ['bad color', { enumValues: [{ label: 'a', color: '#12345' }] }],
    ['color without #', { enumValues: [{ label: 'a', color: '123456' }] }],
    ['archived not boolean', { enumValues: [{ label: 'a', archived: 'no' }] }],
    ['long instruction', { instruction: over(2001) }],
    ['bad refreshPolicy', { refreshPolicy: 'daily' }],
    ['captureEnabled string', { captureEnabled: 'true' }],
    ['threshold above 1', { autoApplyThreshold: 1.0001 }],
    ['threshold below 0', { reviewThreshold: -0.1 }],
    ['threshold string', { reviewThreshold: '0.5' }],
    ['chatVisible number', { chatVisible: 1 }],
    ['no reason', { reason: undefined }],
    ['long reason', { reason: over(501) }],
    ['empty reason', { reason: '' }],
  ];
  it.each(bad)('refuses %s with 400 and stores nothing', async (_name, patch) => {
    const body = { ...validCreate(), ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete body[k];
    const before = (await ws.api('GET', '/definitions?limit=200')).json.items.length;
    expectError(await ws.api('POST', '/definitions', { body }), 400);
    expect((await ws.api('GET', '/definitions?limit=200')).json.items.length).toBe(before);
  });

  it('accepts every bound exactly, counting code points', async () => {
    const emoji = '😀'.repeat(80);
    const d = await ws.definition({
      name: emoji,
      reason: '😀'.repeat(500),
      instruction: 'x'.repeat(2000),
      description: 'y'.repeat(1000),
      enumValues: Array.from({ length: 200 }, (_, i) => ({ label: i === 0 ? 'é'.repeat(80) : `v${i}`, description: 'z'.repeat(500) })),
    });
    expect(d.name).toBe(emoji);
    expect(d.enum_values).toHaveLength(200);
    expect(new Set(d.enum_values.map((v: any) => v.slug)).size).toBe(200);
  });
});

describe('update, archive, merge', () => {
  it('applies each PATCH field and advances updated_at', async () => {
    const d = await ws.definition();
    const r = await ws.api('PATCH', `/definitions/${d.id}`, {
      body: {
        reason: 'r2',
        name: 'Renamed',
        description: 'nd',
        instruction: 'ni',
        refreshPolicy: 'manual',
        captureEnabled: true,
        autoApplyThreshold: 0.5,
        reviewThreshold: 0.4,
        chatVisible: false,
        addEnumValues: [{ label: 'Gold' }, { label: 'Bronze', color: '#000000' }],
        archiveEnumValueSlugs: ['silver'],
      },
    });
    expect(r.status).toBe(200);
    const u = r.json;
    expect(u).toMatchObject({
      name: 'Renamed',
      description: 'nd',
      instruction: 'ni',
      refresh_policy: 'manual',
      capture_enabled: true,
      auto_apply_threshold: 0.5,
      review_threshold: 0.4,
      chat_visible: false,
      reason: 'r2',
      slug: d.slug,
      created_at: d.created_at,
    });
    expect(u.updated_at > d.updated_at).toBe(true);
    expect(u.enum_values).toEqual([
      { label: 'Gold', slug: 'gold', archived: false },
      { label: 'Silver', slug: 'silver', archived: true },
      { label: 'Gold', slug: 'gold_2', archived: false },
      { label: 'Bronze', slug: 'bronze', color: '#000000', archived: false },
    ]);
  });

  it('refuses bad PATCH bodies, unknown slugs and unknown or malformed ids', async () => {
    const d = await ws.definition();
    for (const body of [
      {},
      { reason: '' },
      { reason: 'r', name: '' },
      { reason: 'r', archiveEnumValueSlugs: [''] },
      { reason: 'r', archiveEnumValueSlugs: ['x'.repeat(65)] },
      { reason: 'r', addEnumValues: [{ label: 'a', color: 'red' }] },
      { reason: 'r', archiveEnumValueSlugs: ['nope'] },
      { reason: 'r', chatVisible: null },
    ]) {
      expectError(await ws.api('PATCH', `/definitions/${d.id}`, { body }), 400);
    }
    expect((await ws.api('GET', '/definitions?limit=200')).json.items.find((x: any) => x.id === d.id)).toEqual(d);
    expectError(await ws.api('PATCH', '/definitions/00000000-0000-4000-8000-000000000000', { body: { reason: 'r' } }), 404);
    expectError(await ws.api('POST', '/definitions/00000000-0000-4000-8000-000000000000/archive', { body: { reason: 'r' } }), 404);
    expectError(await ws.api('POST', '/definitions/00000000-0000-4000-8000-000000000000/merge-value', { body: { fromSlug: 'a', intoSlug: 'b', reason: 'r' } }), 404);
    expectError(await ws.api('PATCH', '/definitions/not-a-uuid', { body: { reason: 'r' } }), 400);
    expect((await ws.api('PATCH', `/definitions/${d.id.toUpperCase()}`, { body: { reason: 'r' } })).status).toBe(200);
  });

  it('archives once: archived_at set, hidden unless includeArchived, then writes refused with 409', async () => {
    const d = await ws.definition({ name: 'ToArchive' });
    expectError(await ws.api('POST', `/definitions/${d.id}/archive`, { body: {} }), 400);
    expectError(await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'x'.repeat(501) } }), 400);
    const a = await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'gone' } });
    expect(a.status).toBe(200);
    expect(a.json.state).toBe('archived');
    expect(a.json.archived_at).toBe(a.json.updated_at);
    const ids = async (q: string) => (await ws.api('GET', `/definitions?limit=200${q}`)).json.items.map((x: any) => x.id);
    expect(await ids('')).not.toContain(d.id);
    expect(await ids('&includeArchived=false')).not.toContain(d.id);
    expect(await ids('&includeArchived=true')).toContain(d.id);
    expectError(await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'again' } }), 409);
    expectError(await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', name: 'back' } }), 409);
    expectError(await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r' } }), 409);
    const still = (await ws.api('GET', '/definitions?limit=200&includeArchived=true')).json.items.find((x: any) => x.id === d.id);
    expect(still).toEqual(a.json);
  });

  it('merges values, rewriting labels, and validates the slugs', async () => {
    const d = await ws.definition({ enumValues: [{ label: 'A' }, { label: 'B' }, { label: 'C' }] });
    const acc = await ws.account();
    const label = { kind: 'label', target_label: 'Acme', definition_id: d.id, entity_kind: 'account', entity_id: acc, value_slug: 'a' };
    const sub = await ws.api('POST', '/operations', { body: { operation: 'graph.apply_update', reason: 'r', arguments: { customer_id: acc, summary: 's', changes: [label] } } });
    expect(sub.status).toBe(202);
    expect((await ws.settle(sub.json.id)).status).toBe('succeeded');
    for (const body of [
      { intoSlug: 'b', reason: 'r' },
      { fromSlug: '', intoSlug: 'b', reason: 'r' },
      { fromSlug: 'a', intoSlug: 'b' },
      { fromSlug: 'a', intoSlug: 'b', reason: 'x'.repeat(501) },
      { fromSlug: 'zz', intoSlug: 'b', reason: 'r' },
      { fromSlug: 'a', intoSlug: 'a', reason: 'r' },
    ]) {
      expectError(await ws.api('POST', `/definitions/${d.id}/merge-value`, { body }), 400);
    }
    const m = await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'a', intoSlug: 'b', reason: 'r' } });
    expect(m.status).toBe(200);
    expect(m.json).toEqual({ rewritten: 1 });
    expect((await ws.api('GET', `/data/accounts/${acc}`)).json.labels.map((l: any) => l.value_slug)).toEqual(['b']);
    const again = await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'c', intoSlug: 'b', reason: 'r' } });
    expect(again.json).toEqual({ rewritten: 0 });
    expectError(await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'b', intoSlug: 'a', reason: 'r' } }), 400);
  });
});

describe('decision traces', () => {
  const trace = {
    reason: 'why',
    basis: 'source_evidence',
    intent: 'correction',
    factors: [{ criterion: 'c', status: 'supports', required: null, rationale: 'r', evidence_ids: ['7d444840-9dc0-11d1-b245-5ffdce74fad2'] }],
    evidence: [{ source_id: '7d444840-9dc0-11d1-b245-5ffdce74fad2', quote: 'q' }],
    definition_refs: [{ entity_kind: 'definition', entity_id: 'x', revision: 1, content_hash: 'a'.repeat(64) }],
    alternatives: ['alt'],
    observations: [{ reference: 'ref', excerpt: 'ex', observed_at: '2024-02-29T23:59:60.5+01:00' }],
    unknowns: ['u'],
    event_at: '2024-01-01T00:00:00Z',
    reported_origin: { kind: 'agent', name: 'bot', run_id: 'r1', model: '', version: 'v' },
  };

  it('accepts a full trace on every definition write and records it', async () => {
    const d = await ws.definition({ decision_trace: trace });
    expect((await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', decision_trace: { reason: 'p' } } })).status).toBe(200);
    expect((await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r', decision_trace: trace } })).status).toBe(200);
    expect((await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r', decision_trace: trace } })).status).toBe(200);
    const before = (await ws.api('GET', '/definitions?includeArchived=true&limit=200')).json;
    const t = await ws.api('GET', `/graph/traces?kind=definition&id=${d.id}&limit=2`);
    expect(t.status).toBe(200);
    expect(t.json.events.map((e: any) => e.action)).toEqual(['archive', 'merge-value']);
    expect(t.json.next_before_revision).toBe(3);
    const older = await ws.api('GET', `/graph/traces?kind=definition&id=${d.id}&before_revision=3`);
    expect(older.json.events.map((e: any) => e.action)).toEqual(['update', 'create']);
    expect(older.json.events[0]).toMatchObject({ reason: 'p', basis: 'reported_statement', intent: 'other', factors: [] });
    expect(older.json.next_before_revision).toBeNull();
    expect((await ws.api('GET', '/definitions?includeArchived=true&limit=200')).json).toEqual(before);
  });

  const bad: [string, unknown][] = [
    ['no reason', { basis: 'human_judgment' }],
    ['long reason', { reason: 'x'.repeat(4001) }],
    ['bad basis', { reason: 'r', basis: 'gut' }],
    ['bad intent', { reason: 'r', intent: 'fun' }],
    ['51 factors', { reason: 'r', factors: Array.from({ length: 51 }, () => ({ criterion: 'c', status: 'unknown' })) }],
    ['31 evidence', { reason: 'r', evidence: Array.from({ length: 31 }, () => ({ source_id: trace.evidence[0]!.source_id })) }],
    ['31 refs', { reason: 'r', definition_refs: Array.from({ length: 31 }, () => trace.definition_refs[0]) }],
    ['31 observations', { reason: 'r', observations: Array.from({ length: 31 }, () => ({ reference: 'a', excerpt: 'b' })) }],
    ['21 alternatives', { reason: 'r', alternatives: Array.from({ length: 21 }, () => 'a') }],
    ['empty alternative', { reason: 'r', alternatives: [''] }],
    ['31 unknowns', { reason: 'r', unknowns: Array.from({ length: 31 }, () => 'a') }],
    ['long unknown', { reason: 'r', unknowns: ['x'.repeat(1001)] }],
    ['bad event_at', { reason: 'r', event_at: '2024-02-30T00:00:00Z' }],
    ['date only', { reason: 'r', event_at: '2024-01-01' }],
    ['factor without status', { reason: 'r', factors: [{ criterion: 'c' }] }],
    ['factor long criterion', { reason: 'r', factors: [{ criterion: 'x'.repeat(501), status: 'unknown' }] }],
    ['factor required string', { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', required: 'yes' }] }],
    ['factor long rationale', { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', rationale: 'x'.repeat(2001) }] }],
    ['factor bad evidence id', { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', evidence_ids: ['nope'] }] }],
    ['factor 31 evidence ids', { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', evidence_ids: Array.from({ length: 31 }, () => trace.evidence[0]!.source_id) }] }],
    ['evidence bad source', { reason: 'r', evidence: [{ source_id: 'x' }] }],
    ['evidence empty quote', { reason: 'r', evidence: [{ source_id: trace.evidence[0]!.source_id, quote: '' }] }],
    ['ref revision 0', { reason: 'r', definition_refs: [{ ...trace.definition_refs[0], revision: 0 }] }],
    ['ref revision 1.5', { reason: 'r', definition_refs: [{ ...trace.definition_refs[0], revision: 1.5 }] }],
    ['ref uppercase hash', { reason: 'r', definition_refs: [{ ...trace.definition_refs[0], content_hash: 'A'.repeat(64) }] }],
    ['ref missing kind', { reason: 'r', definition_refs: [{ entity_id: 'x', revision: 1, content_hash: 'a'.repeat(64) }] }],
    ['observation no excerpt', { reason: 'r', observations: [{ reference: 'a' }] }],
    ['observation bad date', { reason: 'r', observations: [{ reference: 'a', excerpt: 'b', observed_at: 'yesterday' }] }],
    ['origin bad kind', { reason: 'r', reported_origin: { kind: 'robot', name: 'n' } }],
    ['origin no name', { reason: 'r', reported_origin: { kind: 'human' } }],
    ['origin empty run_id', { reason: 'r', reported_origin: { kind: 'human', name: 'n', run_id: '' } }],
    ['origin long model', { reason: 'r', reported_origin: { kind: 'human', name: 'n', model: 'x'.repeat(201) } }],
    ['extra top-level', { reason: 'r', confidence: 1 }],
    ['extra in factor', { reason: 'r', factors: [{ criterion: 'c', status: 'unknown', weight: 1 }] }],
    ['extra in evidence', { reason: 'r', evidence: [{ source_id: trace.evidence[0]!.source_id, url: 'u' }] }],
    ['extra in ref', { reason: 'r', definition_refs: [{ ...trace.definition_refs[0], note: 'n' }] }],
    ['extra in observation', { reason: 'r', observations: [{ reference: 'a', excerpt: 'b', x: 1 }] }],
    ['extra in origin', { reason: 'r', reported_origin: { kind: 'human', name: 'n', verified: true } }],
    ['not an object', 'trace'],
  ];
  it.each(bad)('refuses a trace with %s on every write', async (_n, t) => {
    const d = await ws.definition();
    expectError(await ws.api('POST', '/definitions', { body: { ...validCreate(), decision_trace: t } }), 400);
    expectError(await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', decision_trace: t } }), 400);
    expectError(await ws.api('POST', `/definitions/${d.id}/merge-value`, { body: { fromSlug: 'gold', intoSlug: 'silver', reason: 'r', decision_trace: t } }), 400);
    expectError(await ws.api('POST', `/definitions/${d.id}/archive`, { body: { reason: 'r', decision_trace: t } }), 400);
    expect((await ws.api('GET', '/definitions?limit=200')).json.items.find((x: any) => x.id === d.id)).toEqual(d);
  });

  it('hands out decision-input references that a trace accepts', async () => {
    const d = await ws.definition();
    const r = await ws.api('POST', '/graph/decision-inputs', { body: { definitionIds: [d.id] } });
    expect(r.status).toBe(200);
    const [ref0] = r.json.definition_refs;
    expect(ref0).toMatchObject({ entity_kind: 'definition', entity_id: d.id, revision: 1 });
    expect(ref0.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', decision_trace: { reason: 'x', definition_refs: [ref0] } } })).status).toBe(200);
    const r2 = await ws.api('POST', '/graph/decision-inputs', { body: { definitionIds: [d.id] } });
    expect(r2.json.definition_refs[0].revision).toBe(2);
    expectError(await ws.api('POST', '/graph/decision-inputs', { body: { definitionIds: ['00000000-0000-4000-8000-000000000000'] } }), 404);
    expectError(await ws.api('POST', '/graph/decision-inputs', { body: { definitionIds: [] } }), 400);
  });
});
