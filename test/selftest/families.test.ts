/**
 * The generated fault families (src/selftest/families.ts): the bounds family has two faults per
 * length, count and number bound of every definition write in specs/openapi.yaml, each a name
 * the reference resolves and honours at exactly that bound, declaring the clause of its bound;
 * a fault no client can observe says why.
 */
import { describe, expect, it } from 'vitest';
import { BOUND_FAULT_RE, resolveFaults } from '../../src/reference/faults.ts';
import { boundsFamily, familyFaults, patchSemanticsFamily, ruleCellsFamily, shapesFamily, suitesFor } from '../../src/selftest/families.ts';
import { CELL_FAULT_RE } from '../../src/reference/faults.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { startReference } from '../../src/reference/index.ts';
import { Ref } from '../reference/helpers.ts';
import { SHAPE_FAULT_RE, UNTOUCHED_FAULT_RE } from '../../src/reference/faults.ts';
import { FAULTS, SEQUENCE_FAULTS } from '../../src/reference/faults.ts';

const bounds = await boundsFamily();

describe('the bounds family', () => {
  it('has a tighten and a loosen fault per bound of each write, with unique names the reference resolves', () => {
    expect(new Set(bounds.map((f) => f.name)).size).toBe(bounds.length);
    for (const f of bounds) expect(f.name).toMatch(BOUND_FAULT_RE);
    expect(() => resolveFaults(bounds.map((f) => f.name))).not.toThrow();
    const sites = new Set(bounds.map((f) => f.name.replace(/:(tighten|loosen)$/, '')));
    expect(bounds.length).toBe(2 * sites.size);
    // The four writes, their own fields and the trace on each.
    for (const w of ['create', 'update', 'archive', 'merge_value']) {
      expect(sites.has(`bound:${w}:body.reason:max`), w).toBe(true);
      expect(sites.has(`bound:${w}:body.decision_trace.factors:max`), w).toBe(true);
    }
    expect(sites.has('bound:create:body.enumValues[].label:min')).toBe(true);
    expect(sites.has('bound:update:body.archiveEnumValueSlugs:max')).toBe(true);
  });

  it('declares one clause each, and gives a reason for every fault it does not run', () => {
    for (const f of bounds) {
      expect(f.clauses).toHaveLength(1);
      if (f.unobservable !== undefined) expect(f.unobservable.length).toBeGreaterThan(20);
    }
    expect(bounds.filter((f) => f.unobservable).length).toBeLessThan(bounds.length / 5);
  });

  it('moves exactly the named bound by one, on that write only', async () => {
    const api = async (faults: string[], method: string, path: string, body: unknown) => {
      const ref = await startReference({ faults });
      try {
        const res = await fetch(`${ref.controlUrl}/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${ref.controlToken}`, 'content-type': 'application/json' }, body: '{}' });
        const { workspaceId } = (await res.json()) as { workspaceId: string };
        const member = (await (
          await fetch(`${ref.controlUrl}/workspaces/${workspaceId}/members`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ref.controlToken}`, 'content-type': 'application/json' },
            body: '{"role":"owner"}',
          })
        ).json()) as { userId: string };
        const key = (await (
          await fetch(`${ref.controlUrl}/workspaces/${workspaceId}/keys`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ref.controlToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ userId: member.userId, scopes: ['admin', 'graph:read'] }),
          })
        ).json()) as { secret: string };
        return (await fetch(`${ref.baseUrl}/api/v1${path}`, { method, headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;
      } finally {
        await ref.close();
      }
    };
    const create = (name: string) => ({ name, moduleKey: 'customers', entityKinds: ['account'], valueType: 'text', reason: 'r' });
    expect(await api([], 'POST', '/definitions', create('n'.repeat(80)))).toBe(201);
    expect(await api(['bound:create:body.name:max:tighten'], 'POST', '/definitions', create('n'.repeat(80)))).toBe(400);
    expect(await api(['bound:create:body.name:max:tighten'], 'POST', '/definitions', create('n'.repeat(79)))).toBe(201);
    expect(await api(['bound:create:body.name:max:loosen'], 'POST', '/definitions', create('n'.repeat(81)))).toBe(201);
    expect(await api(['bound:create:body.name:max:loosen'], 'POST', '/definitions', create('n'.repeat(82)))).toBe(400);
    expect(await api(['bound:update:body.name:max:loosen'], 'POST', '/definitions', create('n'.repeat(81)))).toBe(400);
    expect(await api(['bound:create:body.autoApplyThreshold:max:tighten'], 'POST', '/definitions', { ...create('t'), autoApplyThreshold: 1 })).toBe(400);
    expect(await api(['bound:create:body.autoApplyThreshold:max:loosen'], 'POST', '/definitions', { ...create('t'), autoApplyThreshold: 1.001 })).toBe(201);
    const refs = (revision: number) => ({ ...create('r'), decision_trace: { reason: 'r', definition_refs: [{ entity_kind: 'definition', entity_id: 'x', revision, content_hash: 'a'.repeat(64) }] } });
    expect(await api(['bound:create:body.decision_trace.definition_refs[].revision:min:loosen'], 'POST', '/definitions', refs(0))).toBe(201);
    expect(await api([], 'POST', '/definitions', refs(0))).toBe(400);
  });
});

describe('the shapes and patch-semantics families', () => {
  it('drop and mistype every Definition field in each of the four answers; change every field a client can set behind a PATCH that does not name it', async () => {
    const shapes = await shapesFamily();
    const untouched = await patchSemanticsFamily();
    for (const f of shapes) expect(f.name).toMatch(SHAPE_FAULT_RE);
    for (const f of untouched) expect(f.name).toMatch(UNTOUCHED_FAULT_RE);
    // 25 fields of 2.1 and the three output fields of every enum value of 2.2 (DEF-005), each dropped and mistyped.
    expect(shapes.length).toBe(4 * (25 + 3) * 2);
    const ofValues = (f: { name: string }) => f.name.includes(':enum_values.');
    expect(shapes.filter(ofValues).every((f) => f.clauses[0] === 'DEF-005')).toBe(true);
    expect(shapes.filter((f) => !ofValues(f) && f.name.endsWith(':drop')).every((f) => f.clauses[0] === 'DEF-001')).toBe(true);
    expect(shapes.filter((f) => !ofValues(f) && !f.name.endsWith(':drop')).every((f) => f.clauses[0] === 'DEF-002')).toBe(true);
    // A string field is mistyped as a number, a number as a string, a string-or-number never.
    expect(shapes.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'shape:list:id:as-number',
        'shape:update:auto_apply_threshold:as-string',
        'shape:archive:est_credits_low:as-string',
        'shape:list:enum_values.slug:drop',
        'shape:create:enum_values.archived:as-string',
      ]),
    );
    expect(untouched.map((f) => f.name)).toEqual(expect.arrayContaining(['untouched:description', 'untouched:enum_values', 'untouched:chat_visible']));
    expect(untouched.map((f) => f.name)).not.toContain('untouched:updated_at');
    expect(() => resolveFaults([...shapes, ...untouched].map((f) => f.name))).not.toThrow();
  });
});

describe('familyFaults', () => {
  it('gives the named faults first, then the generated ones', async () => {
    const all = await familyFaults(FAULTS);
    expect(all.slice(0, FAULTS.length)).toEqual([...FAULTS]);
    expect(all.length).toBe(FAULTS.length + bounds.length + (await shapesFamily()).length + (await patchSemanticsFamily()).length + (await ruleCellsFamily()).length + SEQUENCE_FAULTS.length);
    expect((await familyFaults(FAULTS, ['bounds'])).length).toBe(bounds.length);
  });
});

describe('the rule-cells family', () => {
  it('forgets each rule on each endpoint it governs, one route at a time, with names the reference resolves', async () => {
    const cells = await ruleCellsFamily();
    const spec = await loadSpec();
    expect(new Set(cells.map((f) => f.name)).size).toBe(cells.length);
    for (const f of cells) expect(f.name).toMatch(CELL_FAULT_RE);
    expect(() => resolveFaults(cells.map((f) => f.name))).not.toThrow();
    const rules = (rule: string) => cells.filter((f) => f.name.startsWith(`forgets:${rule}@`));
    // Standing and the price of a 401 on every endpoint; idempotency on the five of 4.1.
    for (const rule of ['x-api-key', 'revoked', 'disabled', 'departed', 'paused', 'free-unauthorized', 'free-refusals']) expect(rules(rule), rule).toHaveLength(spec.operations.length);
    for (const rule of ['replay', 'conflict', 'key-bounds', 'free-replay']) expect(rules(rule), rule).toHaveLength(5);
    // Scopes only where the document names some.
    expect(
      rules('scopes')
        .map((f) => f.name)
        .sort(),
    ).toEqual(
      [
        'definitions.list',
        'definitions.create',
        'definitions.update',
        'definitions.archive',
        'definitions.merge_value',
        'query',
        'compute.preview',
        'compute.run',
        // The catalog operations whose permission 4.8 shows, one at a time.
        'operations.graph.apply_update',
        'operations.graph.agent_preview',
        'operations.graph.agent_run',
      ]
        .map((s) => `forgets:scopes@api:${s}`)
        .sort(),
    );
    expect(rules('isolation').length).toBeGreaterThanOrEqual(10);
    // The price of each catalog operation priced on its own: three submissions, three live reads.
    expect(rules('price').filter((f) => /@api:(operations\.graph|query\.crm)\./.test(f.name))).toHaveLength(6);
    // Each is run against the suites of its clauses only.
    expect(suitesFor(cells.find((f) => f.name === 'forgets:revoked@api:me')!)).toEqual(['auth']);
    expect(suitesFor(cells.find((f) => f.name === 'forgets:free-refusals@api:definitions.create')!)).toEqual(['billing']);
  });

  it('forgets the X-Api-Key header form on that route only', async () => {
    const ref = await Ref.start(['forgets:x-api-key@api:definitions.list']);
    try {
      const { secret } = await (await ref.workspace()).key('owner', ['graph:read']);
      expect((await ref.api(secret, 'GET', '/definitions', { auth: 'x-api-key' })).status).toBe(401);
      expect((await ref.api(secret, 'GET', '/definitions')).status).toBe(200);
      expect((await ref.api(secret, 'GET', '/me', { auth: 'x-api-key' })).status).toBe(200);
    } finally {
      await ref.close();
    }
  });

  it('forgets the price on that catalog operation only', async () => {
    const ref = await Ref.start(['forgets:price@api:query.crm.read_partner_deal_properties']);
    try {
      const ws = await ref.workspace();
      const { secret } = await ws.key('owner', ['crm:read']);
      const read = async (operation: string, properties: string[]) => {
        const before = await ws.charged();
        expect((await ref.api(secret, 'POST', '/query', { body: { operation, arguments: { properties } } })).status).toBe(200);
        return (await ws.charged()) - before;
      };
      expect(await read('crm.read_partner_company_properties', ['name'])).toBe(1);
      expect(await read('crm.read_partner_deal_properties', ['dealname'])).toBe(0);
    } finally {
      await ref.close();
    }
  });

  it('forgets the rule on that route only', async () => {
    const ref = await Ref.start(['forgets:revoked@api:definitions.list']);
    try {
      const { keyId, secret } = await (await ref.workspace()).key('owner', ['graph:read']);
      expect((await ref.control('POST', `/keys/${keyId}/revoke`)).status).toBe(204);
      expect((await ref.api(secret, 'GET', '/definitions')).status).toBe(200);
      expect((await ref.api(secret, 'GET', '/me')).status).toBe(401);
    } finally {
      await ref.close();
    }
  });
});
