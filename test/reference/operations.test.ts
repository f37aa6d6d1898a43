/** Catalog operations, live CRM reads, compute, stored data and traces of the reference target (seed 4.8, 4.9, 2.7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, Ref, type Ws } from './helpers.ts';

let ref: Ref;
let ws: Ws;
beforeAll(async () => {
  ref = await Ref.start();
  ws = await ref.workspace();
});
afterAll(() => ref.close());

const submit = (operation: string, args: unknown, o: { secret?: string; reason?: string } = {}) =>
  ws.api('POST', '/operations', { body: { operation, reason: o.reason ?? 'approved', arguments: args } }, o.secret);

describe('introspection and catalog', () => {
  it('GET /me reports key, holder, scopes and capabilities', async () => {
    const k = await ws.key('analyst', ['crm:read', 'graph:read']);
    const me = await ref.api(k.secret, 'GET', '/me');
    expect(me.json).toEqual({
      workspaceId: ws.id,
      userId: k.userId,
      role: 'analyst',
      scopes: ['graph:read', 'crm:read'],
      beta: true,
      capabilities: {
        definitions: true,
        graphReads: true,
        graphEdits: true,
        context: true,
        research: true,
        enrichment: true,
        crm: true,
        workflows: true,
        automaticCapture: true,
        relationEditing: true,
        graphCompute: true,
        operationCatalog: '/api/v1/capabilities',
        moduleVisibility: 'definitions',
      },
    });
  });

  it('GET /capabilities lists every operation with permissions, arguments and caller authorization', async () => {
    const k = await ws.key('analyst', ['graph:write']);
    const cap = await ref.api(k.secret, 'GET', '/capabilities');
    expect(cap.status).toBe(200);
    const names = cap.json.operations.map((o: any) => o.name);
    for (const n of ['graph.apply_update', 'graph.propose_update', 'graph.agent_preview', 'graph.agent_run', 'graph.context_refresh']) expect(names).toContain(n);
    const apply = cap.json.operations.find((o: any) => o.name === 'graph.apply_update');
    expect(apply).toMatchObject({ permissions: { scopes: ['graph:write'] }, authorized: true });
    expect(apply.arguments.map((a: any) => a.name)).toEqual(['customer_id', 'summary', 'changes']);
    expect(apply.changeKinds.map((c: any) => c.kind)).toEqual(['person_field', 'account_field', 'label']);
    expect(cap.json.operations.find((o: any) => o.name === 'graph.agent_preview').authorized).toBe(false);
    expect(cap.json.queryOperations.map((q: any) => q.name)).toEqual(['crm.read_partner_company_properties', 'crm.read_partner_contact_properties', 'crm.read_partner_deal_properties']);
    expect(cap.json.guidance.length).toBeGreaterThan(0);
  });

  it('refuses unknown operations and malformed submissions with 400', async () => {
    expectError(await submit('graph.delete_everything', {}), 400);
    expectError(await ws.api('POST', '/operations', { body: { operation: 'graph.context_refresh', arguments: {} } }), 400);
    expectError(await ws.api('POST', '/operations', { body: { operation: 'graph.context_refresh', reason: 'r', arguments: [] } }), 400);
    expectError(await ws.api('GET', '/operations/nope'), 404);
    expectError(await ws.api('GET', '/operations/00000000-0000-4000-8000-000000000000'), 404);
  });
});

describe('graph.apply_update and graph.propose_update', () => {
  it('applies person fields, fills firmographic gaps only, reads back, and leaves the CRM alone', async () => {
    const acc = await ws.account('Acme', 'acme.test');
    const ap = await ws.person(acc, 'Jane', 'CTO');
    const changes = [
      { kind: 'person_field', target_label: 'Jane', person_id: ap.accountPersonId, field: 'title', after: 'CEO' },
      { kind: 'account_field', target_label: 'Acme', field: 'domain', after: 'other.test' },
      { kind: 'account_field', target_label: 'Acme', field: 'employee_count', after: 250 },
    ];
    const sub = await submit('graph.apply_update', { customer_id: acc, summary: 'promote', changes });
    expect(sub.status).toBe(202);
    expect(sub.json).toMatchObject({ operation: 'graph.apply_update', status: 'queued', result: null });
    const done = await ws.settle(sub.json.id);
    expect(done.status).toBe('partial');
    expect(done.result.changes.map((c: any) => c.applied)).toEqual([true, false, true]);
    expect(done.result.readback.account.firmographics).toMatchObject({ domain: 'acme.test', employee_count: 250 });
    expect(done.result.crmWrites).toBe(0);
    const person = await ws.api('GET', `/data/people/${ap.personId}`);
    expect(person.json.memberships[0].fields.title).toBe('CEO');
    expect(person.json.relatedData).toBeTruthy();
    const account = await ws.api('GET', `/data/accounts/${acc}`);
    expect(account.json).toMatchObject({ id: acc, domain: 'acme.test', relatedData: { contacts: `/api/v1/data/accounts/${acc}/contacts` } });
  });

  it('validates changes: membership ids, other workspaces, label permissions', async () => {
    const acc = await ws.account();
    const ap = await ws.person(acc);
    const change = { kind: 'person_field', target_label: 'J', person_id: ap.personId, field: 'title', after: 'x' };
    expectError(await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [change] }), 400);
    expectError(await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [] }), 400);
    expectError(await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [{ ...change, field: 'salary', person_id: ap.accountPersonId }] }), 400);
    expectError(await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [{ kind: 'account_field', target_label: 'a', field: 'employee_count', after: 'many' }] }), 400);
    const other = await ref.workspace();
    const theirs = await other.account();
    expectError(await submit('graph.apply_update', { customer_id: theirs, summary: 's', changes: [{ kind: 'account_field', target_label: 'a', field: 'industry', after: 'x' }] }), 404);
    const d = await ws.definition();
    const label = { kind: 'label', target_label: 'Acme', definition_id: d.id, entity_kind: 'account', entity_id: acc, value_slug: 'gold' };
    const writer = await ws.key('owner', ['graph:write']);
    expectError(await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [label] }, { secret: writer.secret }), 403);
    const analystAdmin = await ws.key('analyst', ['graph:write', 'admin']);
    expectError(await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [label] }, { secret: analystAdmin.secret }), 403);
    const sub = await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [label] });
    expect((await ws.settle(sub.json.id)).status).toBe('succeeded');
    const proposal = await submit('graph.propose_update', { customer_id: acc, summary: 's', changes: [{ ...change, person_id: ap.accountPersonId }] });
    expect((await ws.settle(proposal.json.id)).status).toBe('needs_review');
    expect((await ws.api('GET', `/data/people/${ap.personId}`)).json.memberships[0].fields.title).toBeNull();
  });
});

describe('agent preview and run', () => {
  it('quotes a batch scope and refuses scopes over the limits', async () => {
    const accs = [];
    for (let i = 0; i < 21; i++) accs.push(await ws.account(`a${i}`));
    const sub = await submit('graph.agent_preview', { customerIds: accs.slice(0, 20), accountFields: ['industry'], personFields: ['title'], contextTargets: ['news'] });
    expect(sub.status).toBe(202);
    const done = await ws.settle(sub.json.id);
    expect(done.status).toBe('succeeded');
    const q = done.result;
    for (const k of ['modelCreditCeiling', 'apiPreviewCredits', 'apiSubmissionCredits']) expect(typeof q[k]).toBe('number');
    for (const k of ['analysisLabel', 'model']) expect(typeof q[k]).toBe('string');
    expect(q.totalCredits).toBe(q.modelCreditCeiling + q.apiPreviewCredits + q.apiSubmissionCredits);
    expectError(await submit('graph.agent_preview', { customerIds: accs }), 400);
    expectError(await submit('graph.agent_preview', { customerIds: [accs[0], accs[0]] }), 400);
    expectError(await submit('graph.agent_preview', { customerIds: [accs[0]], accountFields: ['revenue_secret'] }), 400);
    expectError(await submit('graph.agent_preview', { customerIds: [accs[0]], connectedReads: [{ source: 'crm', entity: 'deal', fields: ['amount'], account: accs[1], limit: 5 }] }), 400);
    expectError(await submit('graph.agent_preview', { customerIds: [accs[0]], connectedReads: [{ source: 'crm', entity: 'deal', fields: ['amount'], account: accs[0], limit: 101 }] }), 400);
    const big = await ws.account('big');
    for (let i = 0; i < 101; i++) await ws.person(big, `p${i}`);
    expectError(await submit('graph.agent_preview', { customerIds: [big] }), 400);
  });

  it('runs add-only: fills gaps, keeps existing values, validates cap and words', async () => {
    const acc = await ws.account('Run', 'run.test');
    await ws.person(acc, 'P', 'Boss');
    const base = { customerIds: [acc], accountFields: ['domain', 'industry'], personFields: ['title', 'email'], contextTargets: ['news'], mode: 'apply', creditCap: 1000, user_said: 'yes, run it' };
    expectError(await submit('graph.agent_run', { ...base, creditCap: 0 }), 400);
    expectError(await submit('graph.agent_run', { ...base, user_said: '  ' }), 400);
    expectError(await submit('graph.agent_run', { ...base, mode: 'dry_run' }), 400);
    expectError(await ws.api('POST', '/operations', { body: { operation: 'graph.agent_run', reason: '', arguments: base } }), 400);
    const sub = await submit('graph.agent_run', base, { reason: 'yes, run it' });
    const done = await ws.settle(sub.json.id);
    expect(done.status).toBe('succeeded');
    const [a] = done.result.accounts;
    expect(a.readback.firmographics).toMatchObject({ domain: 'run.test', industry: 'researched industry' });
    expect(a.readback.context.news).toHaveLength(1);
    expect(done.result).toMatchObject({ crmWrites: 0, externalDeliveries: 0 });
    const capped = await ws.settle((await submit('graph.agent_run', { ...base, creditCap: 1 })).json.id);
    expect(capped.status).toBe('partial');
    const again = await ws.settle((await submit('graph.agent_run', base)).json.id);
    expect(again.result.accounts[0].readback.context.news).toHaveLength(2);
  });
});

describe('CRM reads, compute, data, traces', () => {
  it('reads CRM properties from the field catalog', async () => {
    const r = await ws.api('POST', '/query', { body: { operation: 'crm.read_partner_company_properties', arguments: { properties: ['name', 'domain'] } } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ operation: 'crm.read_partner_company_properties', items: [] });
    const w = await ws.api('POST', '/operations', { body: { operation: 'crm.update_partner_company_properties', reason: 'r', arguments: { recordId: 'c1', properties: { name: 'Acme' } } } });
    await ws.settle(w.json.id);
    const r2 = await ws.api('POST', '/query', { body: { operation: 'crm.read_partner_company_properties', arguments: { properties: ['name', 'domain'], recordIds: ['c1'] } } });
    expect(r2.json.items).toEqual([{ id: 'c1', properties: { name: 'Acme', domain: null } }]);
    expectError(await ws.api('POST', '/query', { body: { operation: 'crm.read_partner_company_properties', arguments: { properties: ['ssn'] } } }), 400);
    expectError(await ws.api('POST', '/query', { body: { operation: 'crm.write', arguments: { properties: ['name'] } } }), 400);
    const reader = await ws.key('analyst', ['crm:read']);
    expectError(
      await ref.api(reader.secret, 'POST', '/operations', { body: { operation: 'crm.update_partner_company_properties', reason: 'r', arguments: { recordId: 'c1', properties: { name: 'x' } } } }),
      403,
    );
  });

  it('previews, starts and polls compute runs', async () => {
    const p = await ws.api('POST', '/compute/preview', { body: { job: 'pmm_refresh' } });
    expect(p.json).toMatchObject({ job: 'pmm_refresh' });
    expectError(await ws.api('POST', '/compute/preview', { body: { job: 'other' } }), 400);
    expectError(await ws.api('POST', '/compute/runs', { body: { job: 'pmm_refresh' } }), 400);
    const run = await ws.api('POST', '/compute/runs', { body: { job: 'pmm_refresh', reason: 'r' } });
    expect(run.status).toBe(202);
    const polled = await ws.api('GET', `/compute/runs/${run.json.id}`);
    expect(polled.json.status).toBe('succeeded');
    expectError(await ws.api('GET', '/compute/runs/nope'), 404);
  });

  it('reads data: 404 for unknown or foreign ids, relatedData links resolve', async () => {
    const acc = await ws.account();
    const ap = await ws.person(acc);
    expectError(await ws.api('GET', '/data/accounts/00000000-0000-4000-8000-000000000000'), 404);
    expectError(await ws.api('GET', '/data/accounts/not-a-uuid'), 404);
    expectError(await ws.api('GET', '/data/people/nope'), 404);
    const a = (await ws.api('GET', `/data/accounts/${acc}`)).json;
    for (const link of Object.values(a.relatedData) as string[]) {
      const r = await ws.api('GET', link.replace('/api/v1', ''));
      expect(r.status, link).toBe(200);
    }
    const contacts = await ws.api('GET', `/data/accounts/${acc}/contacts`);
    expect(contacts.json.items.map((c: any) => c.id)).toEqual([ap.accountPersonId]);
    expect((await ws.api('GET', `/data/people/${ap.accountPersonId}`)).json.id).toBe(ap.personId);
    const rel = await ws.api('GET', '/data/relationships?limit=200');
    expect(rel.json.items.some((r: any) => r.id === ap.accountPersonId)).toBe(true);
  });

  it('reads traces with markers and related refs, changing nothing', async () => {
    const acc = await ws.account();
    const ap = await ws.person(acc);
    const d = await ws.definition();
    const label = { kind: 'label', target_label: 'Acme', definition_id: d.id, entity_kind: 'account', entity_id: acc, value_slug: 'gold' };
    await ws.settle((await submit('graph.apply_update', { customer_id: acc, summary: 's', changes: [label] })).json.id);
    const before = (await ws.api('GET', '/definitions?limit=200')).json;
    const t = await ws.api('GET', `/graph/traces?kind=account&id=${acc}`);
    expect(t.status).toBe(200);
    expect(t.json.events.at(-1).markers).toEqual(['untracked_legacy']);
    const labelRef = t.json.related_trace_refs.find((r: any) => r.kind === 'label_decision');
    expect(t.json.related_trace_refs).toContainEqual({ kind: 'person', id: ap.accountPersonId });
    const l1 = await ws.api('GET', `/graph/traces?kind=label_decision&id=${labelRef.id}`);
    expect(l1.json.events[0].markers).toEqual([]);
    await ws.api('PATCH', `/definitions/${d.id}`, { body: { reason: 'r', name: 'changed' } });
    const l2 = await ws.api('GET', `/graph/traces?kind=label_decision&id=${labelRef.id}`);
    expect(l2.json.events[0].markers).toEqual(['changed_or_deleted']);
    const d2 = await ws.definition();
    const dt = await ws.api('GET', `/graph/traces?kind=definition&id=${d2.id}`);
    expect(dt.json.events[0]).toMatchObject({ markers: ['not_recorded'], factors: [] });
    const after = (await ws.api('GET', '/definitions?limit=200')).json;
    expect(after.items.filter((x: any) => x.id !== d.id && x.id !== d2.id)).toEqual(before.items.filter((x: any) => x.id !== d.id));
    expectError(await ws.api('GET', '/graph/traces?kind=widget&id=x'), 400);
    expectError(await ws.api('GET', '/graph/traces?kind=account'), 400);
    expectError(await ws.api('GET', `/graph/traces?kind=account&id=${acc}&before_revision=0`), 400);
    expectError(await ws.api('GET', '/graph/traces?kind=account&id=00000000-0000-4000-8000-000000000000'), 404);
  });
});
