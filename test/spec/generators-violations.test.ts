/**
 * violations(): one entry per bound of every request body and parameter set, nested bounds
 * included, and each entry's values fail ajv on exactly the intended keyword at the intended
 * path and on nothing else.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { bodyArbitraries, parameterArbitraries, type Violation } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import type { JsonSchema } from '../../src/spec/types.ts';
import { validateValue } from '../../src/spec/validate.ts';

const SEED = 20_240_601;
const RUNS = 8;
const spec = await loadSpec();
const withBody = spec.operations.filter((op) => op.requestBodySchema).map((op) => op.operationId);

/** Asserts that every value of `v` fails `schema` on its keyword (and declared companions) at its path only. */
function expectSingleBound(schema: JsonSchema, v: Violation): void {
  const allowed = new Set([v.keyword, ...(v.alsoFails ?? [])]);
  fc.assert(
    fc.property(v.value, (value) => {
      const issues = validateValue(schema, value);
      expect(issues.map((i) => i.keyword)).toContain(v.keyword);
      for (const i of issues) {
        expect(allowed.has(i.keyword) && i.path === v.path, `unexpected ${i.message}`).toBe(true);
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
}

/**
 * The (path keyword) pairs a schema's bounds call for, read straight from the schema:
 * the reference the generator's list is compared with.
 */
function bounds(schema: JsonSchema, path = ''): string[] {
  const out: string[] = [];
  if (schema.const !== undefined) out.push(`${path} const`);
  else if (schema.enum) out.push(`${path} enum`);
  else if (schema.type) out.push(`${path} type`);
  for (const k of ['maxLength', 'pattern', 'format', 'maximum', 'minimum', 'exclusiveMinimum', 'exclusiveMaximum', 'maxItems']) {
    if (schema[k] !== undefined) out.push(`${path} ${k}`);
  }
  for (const k of ['minLength', 'minItems'] as const) if ((schema[k] ?? 0) > 0) out.push(`${path} ${k}`);
  for (const r of schema.required ?? []) out.push(`${path}/${r} required`);
  if (schema.additionalProperties === false) out.push(`${path}/unexpected_property additionalProperties`);
  for (const [k, child] of Object.entries(schema.properties ?? {})) out.push(...bounds(child, `${path}/${k}`));
  if (schema.items) out.push(...bounds(schema.items, `${path}/0`));
  return out;
}

const pairs = (vs: readonly Violation[]): string[] => vs.map((v) => `${v.path} ${v.keyword}`).sort();

describe.each(withBody)('%s body', (operationId) => {
  const { schema, violations } = bodyArbitraries(spec, operationId);

  test('has one violation for every bound, nested ones included', () => {
    expect(pairs(violations)).toEqual(bounds(schema).sort());
  });

  test.each(violations.map((v) => [v.scenario, v] as const))('%s', (_scenario, v) => {
    expectSingleBound(schema, v);
  });
});

describe('named bounds of the seed have their violation', () => {
  test('createDefinition reaches into enum values and every decision-trace sub-object', () => {
    const found = pairs(bodyArbitraries(spec, 'createDefinition').violations);
    for (const pair of [
      '/name maxLength',
      '/entityKinds minItems',
      '/entityKinds maxItems',
      '/enumValues maxItems',
      '/enumValues/0/color pattern',
      '/enumValues/0/label minLength',
      '/autoApplyThreshold maximum',
      '/decision_trace/factors/0/criterion maxLength',
      '/decision_trace/factors/0/evidence_ids/0 format',
      '/decision_trace/definition_refs/0/revision exclusiveMinimum',
      '/decision_trace/definition_refs/0/content_hash pattern',
      '/decision_trace/reported_origin/kind enum',
      '/decision_trace/unexpected_property additionalProperties',
      '/decision_trace/observations/0/excerpt required',
    ]) {
      expect(found).toContain(pair);
    }
  });

  test('a wrong length still matches the pattern where the pattern allows it', () => {
    const hash = bodyArbitraries(spec, 'archiveDefinition').violations.find((v) => v.path.endsWith('/content_hash') && v.keyword === 'pattern');
    const samples = fc.sample(hash!.value, { seed: SEED, numRuns: 30 }) as { decision_trace: { definition_refs: { content_hash: string }[] } }[];
    const lengths = new Set(samples.map((s) => s.decision_trace.definition_refs[0]!.content_hash.length));
    expect([...lengths].some((n) => n !== 64)).toBe(true);
  });
});

describe('parameter violations', () => {
  const query = parameterArbitraries(spec, 'listDefinitions', 'query');
  const header = parameterArbitraries(spec, 'createDefinition', 'header');
  const path = parameterArbitraries(spec, 'updateDefinition', 'path');

  test.each([...query.violations, ...header.violations, ...path.violations].map((v) => [v.scenario, v] as const))('%s', (_scenario, v) => {
    const schema = [query, header, path].find((p) => p.violations.includes(v))!.schema;
    expectSingleBound(schema, v);
  });

  test('cover limit 0 / 201 / non-integer, non-uuid cursor, unknown module key, non-boolean includeArchived', () => {
    const sample = (path: string, keyword: string): unknown[] => {
      const v = query.violations.find((x) => x.path === path && x.keyword === keyword);
      expect(v, `${path} ${keyword}`).toBeDefined();
      return fc.sample(v!.value, { seed: SEED, numRuns: 40 }).map((set) => (set as Record<string, unknown>)[path.split('/')[1]!]);
    };
    expect(sample('/limit', 'minimum')).toContain(0);
    expect(sample('/limit', 'maximum')).toContain(201);
    expect(sample('/limit', 'type')).toContain('1.5');
    expect(sample('/cursor', 'format').every((c) => typeof c === 'string')).toBe(true);
    expect(sample('/includeArchived', 'type').every((c) => typeof c === 'string')).toBe(true);
    expect(sample('/moduleKeys/0', 'enum').length).toBeGreaterThan(0);
  });

  test('Idempotency-Key: too long, empty (which also breaks the pattern), and a space inside', () => {
    const byKeyword = new Map(header.violations.map((v) => [v.keyword, v]));
    const longest = fc.sample(byKeyword.get('maxLength')!.value, { seed: SEED, numRuns: 5 }).map((h) => (h as Record<string, string>)['Idempotency-Key']!);
    expect(longest.every((k) => k.length === 129)).toBe(true);
    expect(byKeyword.get('minLength')?.alsoFails).toEqual(['pattern']);
    expect(byKeyword.get('pattern')).toBeDefined();
  });

  test('a missing path parameter cannot be sent, so none is generated', () => {
    expect(pairs(path.violations)).toEqual(['/definitionId format']);
  });
});
