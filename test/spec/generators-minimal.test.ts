/**
 * minimalValue(): the fixed small values violations are embedded in. Each satisfies its schema
 * (checked with ajv), holds only required properties and minItems items, is the same on every
 * call, and distinct places get distinct strings and ids.
 */
import { describe, expect, test } from 'vitest';
import { bodyArbitraries } from '../../src/generators/index.ts';
import { minimalItems, minimalValue } from '../../src/generators/minimal.ts';
import { loadSpec } from '../../src/spec/load.ts';
import type { JsonSchema } from '../../src/spec/types.ts';
import { validateValue } from '../../src/spec/validate.ts';

const spec = await loadSpec();
const withBody = spec.operations.filter((op) => op.requestBodySchema).map((op) => op.operationId);

/** Every object schema reachable from `schema`, itself included. */
function objectSchemas(schema: JsonSchema): JsonSchema[] {
  const out: JsonSchema[] = schema.properties ? [schema] : [];
  for (const child of Object.values(schema.properties ?? {})) out.push(...objectSchemas(child));
  if (schema.items) out.push(...objectSchemas(schema.items));
  return out;
}

describe.each(withBody)('%s body', (operationId) => {
  const { schema } = bodyArbitraries(spec, operationId);

  test('the minimal body and the minimal value of every nested object satisfy their schema with required properties only', () => {
    for (const s of objectSchemas(schema)) {
      const value = minimalValue(s) as Record<string, unknown>;
      expect(validateValue(s, value)).toEqual([]);
      expect(Object.keys(value).sort()).toEqual([...(s.required ?? [])].sort());
    }
  });

  test('is the same on every call, and a fresh object each time', () => {
    const a = minimalValue(schema, '#', 'a');
    const b = minimalValue(schema, '#', 'a');
    expect(a).toEqual(b);
    if (a !== null && typeof a === 'object') expect(a).not.toBe(b);
  });
});

describe('distinct places, distinct values', () => {
  const create = bodyArbitraries(spec, 'createDefinition').schema;

  test('the required strings of a body differ', () => {
    const body = minimalValue(create) as Record<string, unknown>;
    expect(body['name']).not.toEqual(body['reason']);
    const merge = minimalValue(bodyArbitraries(spec, 'mergeDefinitionValue').schema) as Record<string, unknown>;
    expect(merge['fromSlug']).not.toEqual(merge['intoSlug']);
  });

  test('200 enum value objects have labels that differ, also ignoring case and punctuation, and each is valid', () => {
    const enumValues = create.properties!['enumValues']!;
    const items = minimalItems(enumValues, '#/enumValues', 201, 'g') as { label: string }[];
    const labels = items.map((i) => i.label.toLowerCase().replace(/[^0-9a-z]/g, ''));
    expect(new Set(labels).size).toBe(201);
    for (const item of items) expect(validateValue(enumValues.items!, item)).toEqual([]);
  });

  test('enum items take distinct values as long as the enum has enough', () => {
    const kinds = create.properties!['entityKinds']!;
    expect(minimalItems(kinds, '#/entityKinds', 4, '')).toEqual(['account', 'contact', 'deal', 'investor']);
    expect(minimalValue(kinds)).toEqual(['account']);
  });

  test('uuids and content hashes of sibling items differ and satisfy their format and pattern', () => {
    const trace = spec.componentSchema('DecisionTrace');
    const evidence = minimalItems(trace.properties!['evidence']!, '#/evidence', 31, 'e') as { source_id: string }[];
    expect(new Set(evidence.map((e) => e.source_id)).size).toBe(31);
    const refs = minimalItems(trace.properties!['definition_refs']!, '#/definition_refs', 31, 'f') as { content_hash: string }[];
    expect(new Set(refs.map((r) => r.content_hash)).size).toBe(31);
    for (const r of refs) expect(validateValue(trace.properties!['definition_refs']!.items!, r)).toEqual([]);
  });

  test('strings respect their bounds: at least one character, minLength when larger, cut to maxLength', () => {
    expect(minimalValue({ type: 'string' })).toBe('w');
    expect(minimalValue({ type: 'string', minLength: 5 }, '#', 'ab')).toBe('wwwab');
    expect(minimalValue({ type: 'string', maxLength: 2 }, '#', 'a1xb')).toBe('xb');
    expect(minimalValue({ type: 'string', maxLength: 0 })).toBe('');
  });

  test('numbers are 1 when allowed, else inside the bounds', () => {
    expect(minimalValue({ type: 'integer', exclusiveMinimum: 0 })).toBe(1);
    expect(minimalValue({ type: 'integer', minimum: 5, maximum: 9 })).toBe(5);
    expect(minimalValue({ type: 'number', minimum: 0, maximum: 1 })).toBe(1);
    expect(minimalValue({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 })).toBe(0.5);
  });
});
