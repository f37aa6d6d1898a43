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

/** Strings that pydantic, Spring or Go's strconv read as booleans (compared in lower case). */
const LAX_BOOLEANS = ['true', 'false', 'yes', 'no', 'on', 'off', '1', '0', 't', 'f', 'y', 'n'];

const pairs = (vs: readonly Violation[]): string[] => vs.map((v) => `${v.path} ${v.keyword}`).sort();

const segmentsOf = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The value at a JSON pointer (undefined when absent). */
function valueAt(value: unknown, pointer: string): unknown {
  let v = value;
  for (const seg of segmentsOf(pointer)) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[seg] : undefined;
  return v;
}

/** The schema at a JSON pointer of values, and whether the last step is an optional property. */
function schemaAt(schema: JsonSchema, pointer: string): { schema: JsonSchema; optional: boolean } {
  let s = schema;
  let optional = false;
  for (const seg of segmentsOf(pointer)) {
    if (s.properties && Object.hasOwn(s.properties, seg)) {
      optional = !(s.required ?? []).includes(seg);
      s = s.properties[seg]!;
    } else {
      optional = false;
      s = s.items ?? {};
    }
  }
  return { schema: s, optional };
}

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/**
 * Asserts that `value` is minimal wherever it is not on the way to the bad value of `v`:
 * objects hold their required properties only (plus the one leading on), arrays have minItems
 * items (on the way: the bad item first and minItems - 1 more), strings a few characters.
 */
function expectMinimalAround(schema: JsonSchema, v: Violation, value: unknown, pointer = ''): void {
  const where = `${v.scenario}: at "${pointer}"`;
  if (pointer === v.path) {
    // The bad value itself; the items of a too long or too short array are minimal.
    if ((v.keyword === 'maxItems' || v.keyword === 'minItems') && Array.isArray(value)) {
      value.forEach((item, i) => expectMinimalAround(schema, v, item, `${pointer}/${i}`));
    }
    return;
  }
  const onWay = v.path.startsWith(`${pointer}/`);
  const next = onWay ? segmentsOf(v.path.slice(pointer.length))[0] : undefined;
  const s = schemaAt(schema, pointer).schema;
  if (Array.isArray(value) && typesOf(s).includes('array')) {
    const min = s.minItems ?? 0;
    expect(value.length, where).toBe(onWay && next === '0' ? Math.max(1, min) : min);
    value.forEach((item, i) => expectMinimalAround(schema, v, item, `${pointer}/${i}`));
  } else if (value !== null && typeof value === 'object' && typesOf(s).includes('object')) {
    const required = s.required ?? [];
    const keys = Object.keys(value).sort();
    // A missing required property or an undeclared one is the bad value's own place.
    const wanted = new Set([...required, ...(next !== undefined ? [next] : [])]);
    if (v.keyword === 'required' && next !== undefined && v.path === `${pointer}/${next}`) wanted.delete(next);
    expect(keys, where).toEqual([...wanted].sort());
    for (const k of keys) expectMinimalAround(schema, v, (value as Record<string, unknown>)[k], `${pointer}/${k}`);
  } else if (typeof value === 'string' && !v.path.startsWith(pointer)) {
    expect(value.length, where).toBeLessThanOrEqual(Math.max(s.minLength ?? 0, s.pattern !== undefined ? 64 : 16, s.format !== undefined ? 36 : 0));
  }
}

/** Every sample of `v` (one per generated value, fixed seed). */
const samplesOf = (v: Violation, numRuns = RUNS): unknown[] => fc.sample(v.value, { seed: SEED, numRuns });

describe.each(withBody)('%s body', (operationId) => {
  const { schema, violations } = bodyArbitraries(spec, operationId);

  test('has one violation for every bound, nested ones included', () => {
    expect(pairs(violations)).toEqual(bounds(schema).sort());
  });

  test.each(violations.map((v) => [v.scenario, v] as const))('%s', (_scenario, v) => {
    expectSingleBound(schema, v);
  });

  test('around each bad value the body is minimal: required properties, minItems items, short strings', () => {
    for (const v of violations) for (const value of samplesOf(v)) expectMinimalAround(schema, v, value);
  });

  test('a violation weighs its bad value and a few hundred bytes more', () => {
    for (const v of violations) {
      const badAt = v.keyword === 'required' || v.keyword === 'additionalProperties' ? v.path.slice(0, v.path.lastIndexOf('/')) : v.path;
      for (const value of samplesOf(v)) {
        const size = JSON.stringify(value).length - (JSON.stringify(valueAt(value, badAt))?.length ?? 0);
        expect(size, v.scenario).toBeLessThanOrEqual(600);
      }
    }
  });

  test('null is a wrong type only where the property is required (or an item, or the body)', () => {
    for (const v of violations.filter((x) => x.keyword === 'type')) {
      const { optional } = schemaAt(schema, v.path);
      const nulls = samplesOf(v, 40).filter((value) => valueAt(value, v.path) === null);
      if (optional) expect(nulls, v.scenario).toEqual([]);
    }
    const nullable = (path: string): boolean => violations.some((v) => v.path === path && v.keyword === 'type' && samplesOf(v, 40).some((x) => valueAt(x, path) === null));
    if (operationId === 'createDefinition') {
      expect(nullable('/name') && nullable('/reason') && nullable('/decision_trace/factors/0/criterion')).toBe(true);
      expect(nullable('/description') || nullable('/autoApplyThreshold') || nullable('/decision_trace')).toBe(false);
    }
  });

  test('no wrong-typed value is one a lax parser reads as the right type', () => {
    for (const v of violations.filter((x) => x.keyword === 'type')) {
      const types = typesOf(schemaAt(schema, v.path).schema);
      for (const value of samplesOf(v, 40).map((x) => valueAt(x, v.path))) {
        const what = `${v.scenario}: ${JSON.stringify(value)}`;
        // Jackson turns numbers and booleans into strings.
        if (types.includes('string')) expect(['number', 'boolean'], what).not.toContain(typeof value);
        // pydantic and ASP.NET Core read "0.9" as a number, pydantic reads true as 1, Jackson truncates 1.5.
        if (types.includes('number') || types.includes('integer')) {
          expect(typeof value === 'boolean' || typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))), what).toBe(false);
        }
        // pydantic reads 0/1 and "true", "yes", "on", "1"...; Jackson reads numbers.
        if (types.includes('boolean')) {
          expect(typeof value === 'number' || (typeof value === 'string' && LAX_BOOLEANS.includes(value.toLowerCase())), what).toBe(false);
        }
      }
    }
  });

  test('bounds of numbers hold even for a server keeping 32-bit floats', () => {
    for (const v of violations.filter((x) => ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum'].includes(x.keyword))) {
      const s = schemaAt(schema, v.path).schema;
      for (const value of samplesOf(v, 40).map((x) => Math.fround(valueAt(x, v.path) as number))) {
        if (v.keyword === 'maximum') expect(value, v.scenario).toBeGreaterThan(s.maximum!);
        if (v.keyword === 'minimum') expect(value, v.scenario).toBeLessThan(s.minimum!);
        if (v.keyword === 'exclusiveMaximum') expect(value, v.scenario).toBeGreaterThanOrEqual(s.exclusiveMaximum!);
        if (v.keyword === 'exclusiveMinimum') expect(value, v.scenario).toBeLessThanOrEqual(s.exclusiveMinimum!);
      }
    }
  });

  test('enum violations are no case variant of a value and never empty', () => {
    for (const v of violations.filter((x) => x.keyword === 'enum')) {
      const values = (schemaAt(schema, v.path).schema.enum ?? []).map((e) => String(e).toLowerCase());
      for (const value of samplesOf(v, 40).map((x) => valueAt(x, v.path))) {
        expect(value, v.scenario).not.toBe('');
        expect(values, v.scenario).not.toContain(String(value).toLowerCase());
      }
    }
  });

  test('strings of a wrong length carry no surrounding whitespace a server could trim away', () => {
    for (const v of violations.filter((x) => x.keyword === 'maxLength' || x.keyword === 'minLength')) {
      for (const value of samplesOf(v, 40).map((x) => valueAt(x, v.path) as string)) expect(value, v.scenario).toBe(value.trim());
    }
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

  test('only entityKinds must repeat an item to break maxItems, and says so', () => {
    const flagged = withBody.flatMap((op) =>
      bodyArbitraries(spec, op)
        .violations.filter((v) => v.repeatsItems)
        .map((v) => `${op} ${v.path} ${v.keyword}`),
    );
    expect(flagged).toEqual(['createDefinition /entityKinds maxItems']);
    const v = bodyArbitraries(spec, 'createDefinition').violations.find((x) => x.repeatsItems)!;
    expect(v.scenario).toContain('some repeat');
    const enumValues = bodyArbitraries(spec, 'createDefinition').violations.find((x) => x.path === '/enumValues' && x.keyword === 'maxItems')!;
    const labels = (fc.sample(enumValues.value, { seed: SEED, numRuns: 1 })[0] as { enumValues: { label: string }[] }).enumValues.map((e) => e.label.toLowerCase());
    expect(new Set(labels).size).toBe(201);
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

  test('a wrong-typed boolean parameter is text no common parser reads as a boolean', () => {
    const v = query.violations.find((x) => x.path === '/includeArchived' && x.keyword === 'type')!;
    const values = new Set(fc.sample(v.value, { seed: SEED, numRuns: 200 }).map((set) => String((set as Record<string, unknown>)['includeArchived'])));
    expect(values.size).toBeGreaterThan(1);
    for (const value of values) expect(LAX_BOOLEANS, value).not.toContain(value.toLowerCase());
  });

  test('each parameter violation sends the bad parameter alone', () => {
    for (const v of [...query.violations, ...header.violations, ...path.violations]) {
      for (const set of fc.sample(v.value, { seed: SEED, numRuns: 20 })) expect(Object.keys(set as object), v.scenario).toEqual([segmentsOf(v.path)[0]]);
    }
  });
});

describe('format violations are invalid under every common reading of the format', () => {
  const formatViolations = (format: string): unknown[] =>
    withBody.flatMap((op) => {
      const { schema, violations } = bodyArbitraries(spec, op);
      return violations.filter((v) => v.keyword === 'format' && schemaAt(schema, v.path).schema.format === format).flatMap((v) => samplesOf(v, 60).map((x) => valueAt(x, v.path)));
    });

  test('uuid: never hyphen-less, braced, urn:uuid:, upper case, with short or long groups, or empty', () => {
    const ids = [
      ...formatViolations('uuid'),
      ...fc.sample(parameterArbitraries(spec, 'updateDefinition', 'path').violations[0]!.value, { seed: SEED, numRuns: 60 }).map((x) => (x as Record<string, unknown>)['definitionId']),
    ];
    expect(ids.length).toBeGreaterThan(100);
    for (const id of ids as string[]) {
      expect(id).not.toBe('');
      // Python uuid.UUID, Postgres, Go and .NET, once braces, "urn:uuid:" and hyphens are gone and case is ignored.
      expect(
        id
          .toLowerCase()
          .replace(/^urn:uuid:/, '')
          .replace(/^\{(.*)\}$/, '$1')
          .replace(/-/g, ''),
        id,
      ).not.toMatch(/^[0-9a-f]{32}$/);
      // Java's UUID.fromString: five hexadecimal groups of any length up to 8-4-4-4-12.
      expect(id, id).not.toMatch(/^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$/);
    }
  });

  test('date-time: never a date alone, a local time, a rolled-over day, digits alone or empty', () => {
    const times = formatViolations('date-time') as string[];
    expect(new Set(times).size).toBeGreaterThan(10);
    for (const t of times) {
      expect(t).not.toBe('');
      // JavaScript's Date is the laxest common reader: date alone, no offset, 2024-02-30.
      expect(Date.parse(t), t).toBeNaN();
      expect(t, t).not.toMatch(/^\d+$/);
    }
  });
});
