/**
 * The documented shapes (suites/_shared/documented.ts): its field lists are the schemas of
 * specs/openapi.yaml, and the comparisons built on it judge only what the document defines. The
 * case of issue 28: a field of the server's own (a `revision` that goes up on every write) must
 * not make a PATCH look as if it changed what it did not name.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_SPEC_PATH } from '../../src/spec/load.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { comparableRenderings } from '../../suites/_shared/definitions.ts';
import { CAPABILITY_FIELDS, DEFINITION_FIELDS, documentedBody, ENUM_VALUE_FIELDS, ERROR_FIELDS, LIST_FIELDS, ME_FIELDS, MERGE_RESULT_FIELDS } from '../../suites/_shared/documented.ts';
import { untouchedEvidence } from '../../suites/definitions/untouched.ts';

const schemas = (parse(readFileSync(DEFAULT_SPEC_PATH, 'utf8')) as { components: { schemas: Record<string, { required?: string[]; properties: Record<string, { required?: string[] }> }> } }).components
  .schemas;
const props = (name: string): string[] => Object.keys(schemas[name]!.properties).sort();

describe('the documented fields', () => {
  it('are the properties of the OpenAPI schemas', () => {
    expect([...DEFINITION_FIELDS].sort()).toEqual(props('Definition'));
    expect([...ENUM_VALUE_FIELDS].sort()).toEqual(props('EnumValue'));
    expect([...LIST_FIELDS].sort()).toEqual(props('DefinitionPage'));
    expect([...ME_FIELDS].sort()).toEqual(props('Me'));
    const capabilities = schemas.Me!.properties.capabilities as unknown as { properties: Record<string, unknown> };
    expect([...CAPABILITY_FIELDS].sort()).toEqual(Object.keys(capabilities.properties).sort());
    expect([...MERGE_RESULT_FIELDS].sort()).toEqual(props('MergeResult'));
    // data is optional and its content not shown (part 7 rule 4): never compared.
    expect([...ERROR_FIELDS, 'data'].sort()).toEqual(props('ErrorEnvelope'));
  });
});

/** A Definition as an extended server renders it: the 25 fields of 2.1 and fields of its own. */
function rendered(over: Record<string, unknown> = {}, own: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = Object.fromEntries(DEFINITION_FIELDS.map((f) => [f, null]));
  return {
    ...base,
    id: '0b8c5d7e-1a2b-4c3d-8e9f-001122334455',
    name: 'Tier',
    state: 'draft',
    updated_at: '2026-01-01T00:00:00Z',
    enum_values: [{ label: 'Gold', slug: 'gold', archived: false, seen_at: 't1', ...((own.valueExtra as object) ?? {}) }],
    revision: 1,
    served_at: 't1',
    ...over,
    ...own,
  };
}

const ex = {} as Exchange;

describe('comparisons judge only the documented fields', () => {
  it("a revision of the server's own that moves on a PATCH is not a change the PATCH did not name", () => {
    const before = rendered();
    const after = rendered({ reason: 'renamed', updated_at: '2026-01-01T00:00:05Z' }, { revision: 2, served_at: 't2', etag: 'W/"x"', valueExtra: { seen_at: 't2', ordinal: 7 } });
    expect(untouchedEvidence({ reason: 'renamed', captureEnabled: true }, before, after, ex)).toEqual([]);
  });

  it('still finds a documented field the PATCH did not name', () => {
    const before = rendered();
    const after = rendered({ name: 'Other' }, { revision: 2 });
    expect(untouchedEvidence({ reason: 'r' }, before, after, ex).map((e) => e.message)).toEqual(['name changed although the PATCH did not name it']);
    const valueChanged = rendered({ enum_values: [{ label: 'Golden', slug: 'gold', archived: false }] });
    expect(untouchedEvidence({ reason: 'r' }, before, valueChanged, ex).map((e) => e.clause)).toEqual(['DEF-028']);
  });

  it("comparableRenderings leaves out fields of the server's own, keeps dropped documented fields visible", () => {
    const [x, y] = comparableRenderings(rendered(), rendered({}, { revision: 9, served_at: 't9' }));
    expect(x).toEqual(y);
    expect(Object.keys(x)).not.toContain('revision');
    const dropped = rendered();
    delete dropped.reason;
    const [a, b] = comparableRenderings(rendered(), dropped);
    expect(Object.hasOwn(a, 'reason')).toBe(true);
    expect(Object.hasOwn(b, 'reason')).toBe(false);
  });

  it('documentedBody keeps the documented parts of envelopes, GET /me and merge results', () => {
    expect(documentedBody({ defined: true, code: 'NOT_FOUND', status: 404, message: 'm', data: { x: 1 }, request_id: 'r' })).toEqual({ defined: true, code: 'NOT_FOUND', status: 404, message: 'm' });
    expect(documentedBody({ items: [rendered()], nextCursor: null, request_id: 'r' })).toEqual({ items: [documentedBody(rendered())], nextCursor: null });
    expect(documentedBody({ rewritten: 2, merged_at: 't' })).toEqual({ rewritten: 2 });
    const me = documentedBody({ workspaceId: 'w', userId: 'u', role: 'Owner', scopes: [], beta: true, capabilities: { crm: true, webhooks: false }, request_id: 'r' });
    expect(me).toEqual({ workspaceId: 'w', userId: 'u', role: 'Owner', scopes: [], beta: true, capabilities: { crm: true } });
    // A shape the document does not show is returned as it is.
    const receipt = { receipt_id: 'x', polled_at: 't' };
    expect(documentedBody(receipt)).toBe(receipt);
  });
});
