/**
 * validValue() and the valid side of bodyArbitraries()/parameterArbitraries(): every value
 * satisfies the document (checked with ajv, not with the generator's own logic), values reach
 * the bounds themselves, sizes stay capped, and generation is reproducible from the seed.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { bodyArbitraries, MAX_BODY_BYTES, parameterArbitraries, UnsupportedSchemaError, validValue, violations } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import type { JsonSchema } from '../../src/spec/types.ts';
import { validateRequestBody, validateValue } from '../../src/spec/validate.ts';

const SEED = 20_240_601;
const RUNS = 300;
const spec = await loadSpec();
const withBody = spec.operations.filter((op) => op.requestBodySchema).map((op) => op.operationId);

describe('valid request bodies', () => {
  test.each(withBody)('%s: 300 generated bodies satisfy the schema and stay under the size cap', (operationId) => {
    const { valid } = bodyArbitraries(spec, operationId);
    fc.assert(
      fc.property(valid, (body) => {
        expect(validateRequestBody(spec, operationId, body)).toEqual([]);
        expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(MAX_BODY_BYTES);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test('createDefinition bodies reach the bounds themselves and vary optional fields', () => {
    const bodies = fc.sample(bodyArbitraries(spec, 'createDefinition').valid, { seed: SEED, numRuns: RUNS }) as Record<string, any>[];
    const seen = (pick: (b: Record<string, any>) => unknown): Set<unknown> => new Set(bodies.map(pick).filter((v) => v !== undefined));
    for (const [what, values, wanted] of [
      ['name length', seen((b) => b['name'].length), [1, 80]],
      ['reason length', seen((b) => b['reason'].length), [1, 500]],
      ['entityKinds count', seen((b) => b['entityKinds'].length), [1, 4]],
      ['enumValues count', seen((b) => b['enumValues']?.length), [0, 200]],
      ['autoApplyThreshold', seen((b) => b['autoApplyThreshold']), [0, 1]],
      ['trace reason length', seen((b) => b['decision_trace']?.reason.length), [1, 4000]],
      ['trace factors count', seen((b) => b['decision_trace']?.factors?.length), [0, 50]],
      ['enum value label length', seen((b) => b['enumValues']?.[0]?.label.length), [1, 80]],
    ] as const) {
      for (const value of wanted) expect(values.has(value), `${what} ${value} never generated`).toBe(true);
    }
    // fast-check leaves an optional key out about one time in six.
    const present = bodies.filter((b) => 'decision_trace' in b).length;
    expect(present).toBeGreaterThan(RUNS / 2);
    expect(RUNS - present).toBeGreaterThan(RUNS / 10);
  });

  test('arrays of enum values are sets: no value repeats, and both item bounds are still reached', () => {
    const bodies = fc.sample(bodyArbitraries(spec, 'createDefinition').valid, { seed: SEED, numRuns: RUNS }) as Record<string, any>[];
    const kinds = bodies.map((b) => b['entityKinds'] as string[]);
    for (const k of kinds) expect(new Set(k).size, JSON.stringify(k)).toBe(k.length);
    const counts = new Set(kinds.map((k) => k.length));
    expect(counts.has(1) && counts.has(4)).toBe(true);
    const modules = fc
      .sample(parameterArbitraries(spec, 'listDefinitions').valid, { seed: SEED, numRuns: RUNS })
      .map((set) => set['moduleKeys'])
      .filter(Array.isArray);
    expect(modules.length).toBeGreaterThan(0);
    for (const m of modules) expect(new Set(m).size, JSON.stringify(m)).toBe(m.length);
  });

  test.each(withBody)('%s: strings have no surrounding whitespace, free text begins and ends with a letter or digit, date-times are past', (operationId) => {
    const { schema, valid } = bodyArbitraries(spec, operationId);
    for (const body of fc.sample(valid, { seed: SEED, numRuns: 100 })) {
      for (const [s, text] of stringsOf(schema, body)) {
        expect(text, text).toBe(text.trim());
        if (s.format === undefined && s.pattern === undefined && text.length > 0) expect(text, text).toMatch(/^[0-9A-Za-z](.*[0-9A-Za-z])?$/s);
        if (s.format === 'date-time') expect(Date.parse(text), text).toBeLessThan(Date.parse('2025-01-01T00:00:00Z'));
      }
    }
  });

  test('is deterministic for a seed', () => {
    const { valid } = bodyArbitraries(spec, 'updateDefinition');
    expect(fc.sample(valid, { seed: 7, numRuns: 25 })).toEqual(fc.sample(valid, { seed: 7, numRuns: 25 }));
    expect(fc.sample(valid, { seed: 7, numRuns: 25 })).not.toEqual(fc.sample(valid, { seed: 8, numRuns: 25 }));
  });
});

/** Every string of `value` with the schema it sits under. */
function stringsOf(schema: JsonSchema, value: unknown): [JsonSchema, string][] {
  if (typeof value === 'string') return [[schema, value]];
  if (Array.isArray(value)) return value.flatMap((item) => stringsOf(schema.items ?? {}, item));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => stringsOf(schema.properties?.[k] ?? {}, v));
  }
  return [];
}

describe('valid parameters', () => {
  test('Idempotency-Key values are 1 to 128 visible characters, both bounds reached', () => {
    const { schema, valid } = parameterArbitraries(spec, 'createDefinition', 'header');
    const keys = fc
      .sample(valid, { seed: SEED, numRuns: RUNS })
      .map((h) => h['Idempotency-Key'])
      .filter((k): k is string => typeof k === 'string');
    for (const key of keys) {
      expect(key).toMatch(/^[\x21-\x7E]{1,128}$/);
      expect(validateValue(schema, { 'Idempotency-Key': key })).toEqual([]);
    }
    const lengths = new Set(keys.map((k) => k.length));
    expect(lengths.has(1) && lengths.has(128)).toBe(true);
  });

  test('listDefinitions query parameters satisfy their schemas, limit at 1 and 200', () => {
    const { schema, valid } = parameterArbitraries(spec, 'listDefinitions');
    const sets = fc.sample(valid, { seed: SEED, numRuns: RUNS });
    for (const set of sets) expect(validateValue(schema, set)).toEqual([]);
    const limits = new Set(sets.map((s) => s['limit']));
    expect(limits.has(1) && limits.has(200)).toBe(true);
  });
});

describe('unsupported schemas fail loudly, naming the schema path', () => {
  test('an unknown pattern', () => {
    const schema = { type: 'object' as const, properties: { code: { type: 'string' as const, pattern: '^[A-Z]{3}$' } } };
    expect(() => validValue(schema, { schemaPath: '#/x' })).toThrow(UnsupportedSchemaError);
    expect(() => validValue(schema, { schemaPath: '#/x' })).toThrow('#/x/properties/code: pattern ^[A-Z]{3}$ is not supported');
    expect(() => violations(schema, { schemaPath: '#/x' })).toThrow('#/x/properties/code: pattern');
  });

  test('an unknown format, and a keyword the generators do not implement', () => {
    expect(() => validValue({ type: 'string', format: 'email' })).toThrow('#: format "email" is not supported');
    expect(() => validValue({ type: 'array', items: { oneOf: [{ type: 'string' }] } })).toThrow('#/items: keyword "oneOf" is not supported');
  });
});
