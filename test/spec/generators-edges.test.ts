/**
 * edges(): for every request body and parameter set of the document, both edges of every bound
 * (string lengths, item counts, number ranges, enums, patterns, formats): each valid edge passes
 * ajv, each invalid one fails on exactly its keyword at its path; every bound read from the
 * schema has its edges; bundles of valid edges pass ajv and carry every valid edge once.
 */
import { describe, expect, test } from 'vitest';
import { bundleEdges, edges, type Edge } from '../../src/generators/edges.ts';
import { parameterSchema } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import type { JsonSchema } from '../../src/spec/types.ts';
import { validateValue } from '../../src/spec/validate.ts';

const spec = await loadSpec();
const schemas: [string, JsonSchema][] = [
  ...spec.operations.filter((op) => op.requestBodySchema).map((op): [string, JsonSchema] => [`${op.operationId} body`, op.requestBodySchema!]),
  ...spec.operations.filter((op) => op.parameters.some((p) => p.in === 'query')).map((op): [string, JsonSchema] => [`${op.operationId} query`, parameterSchema(spec, op.operationId, 'query')]),
];

/** "path keyword" of every bound the schema declares (the edges' reference list). */
function bounds(schema: JsonSchema, path = ''): string[] {
  const out: string[] = [];
  if (schema.const !== undefined) return out;
  if (schema.enum) out.push(`${path} enum`);
  const textLike = schema.pattern !== undefined || schema.format !== undefined;
  for (const k of ['pattern', 'format', 'maximum', 'minimum', 'exclusiveMinimum', 'exclusiveMaximum', 'maxItems', ...(textLike ? [] : ['maxLength'])]) {
    if (schema[k] !== undefined) out.push(`${path} ${k}`);
  }
  if ((schema.minItems ?? 0) > 0) out.push(`${path} minItems`);
  if (!textLike && (schema.minLength ?? 0) > 0) out.push(`${path} minLength`);
  for (const [k, child] of Object.entries(schema.properties ?? {})) out.push(...bounds(child, `${path}/${k}`));
  if (schema.items) out.push(...bounds(schema.items, `${path}/0`));
  return out;
}

describe.each(schemas)('%s', (_name, schema) => {
  const all = edges(schema);

  test('every bound has a valid and an invalid edge', () => {
    for (const b of new Set(bounds(schema))) {
      const [path, keyword] = b.split(' ');
      const here = all.filter((e) => e.path === path && e.keyword === keyword);
      expect(
        here.some((e) => e.valid),
        `${b}: no valid edge`,
      ).toBe(true);
      expect(
        here.some((e) => !e.valid),
        `${b}: no invalid edge`,
      ).toBe(true);
    }
  });

  test('valid edges pass the schema; invalid ones fail on their keyword at their path only', () => {
    for (const e of all) {
      const issues = validateValue(schema, e.value);
      if (e.valid)
        expect(
          issues.map((i) => i.message),
          e.scenario,
        ).toEqual([]);
      else {
        expect(issues.length, e.scenario).toBeGreaterThan(0);
        for (const i of issues) expect(`${i.path} ${i.keyword}`, e.scenario).toBe(`${e.path} ${e.keyword === 'exclusiveMinimum' || e.keyword === 'exclusiveMaximum' ? i.keyword : e.keyword}`);
      }
    }
  });

  test('edges sit exactly on the bound', () => {
    for (const e of all.filter((x) => ['maxLength', 'minLength', 'maxItems', 'minItems'].includes(x.keyword))) {
      const size = typeof e.at === 'string' ? [...e.at].length : (e.at as unknown[]).length;
      const bound = lookup(schema, e.path)[e.keyword] as number;
      const expected = e.valid ? bound : e.keyword.startsWith('max') ? bound + 1 : bound - 1;
      expect(size, e.scenario).toBe(expected);
    }
  });

  test('free-text length edges of 3 or more characters hold a letter beyond ASCII, one UTF-16 unit each', () => {
    for (const e of all.filter((x) => (x.keyword === 'maxLength' || x.keyword === 'minLength') && typeof x.at === 'string' && x.at.length >= 3)) {
      const text = e.at as string;
      // One code point per UTF-16 unit: no character whose count the document leaves open.
      expect([...text].length, e.scenario).toBe(text.length);
      // More UTF-8 bytes than characters: a server counting bytes shows at this bound.
      expect(Buffer.byteLength(text), e.scenario).toBeGreaterThan(text.length);
    }
  });

  test('bundles pass the schema and carry every valid edge once', () => {
    const valid = all.filter((e) => e.valid);
    const bundles = bundleEdges(valid);
    for (const b of bundles) expect(validateValue(schema, b.value).map((i) => i.message)).toEqual([]);
    const carried: Edge[] = bundles.flatMap((b) => b.edges);
    expect(carried.length).toBe(valid.length);
    expect(new Set(carried)).toEqual(new Set(valid));
  });

  test('the same schema gives the same edges', () => {
    expect(JSON.stringify(edges(schema))).toBe(JSON.stringify(all));
  });
});

/** The schema at a JSON pointer of a value (array items at /0). */
function lookup(schema: JsonSchema, pointer: string): JsonSchema {
  let s = schema;
  for (const seg of pointer.split('/').slice(1)) s = (seg === '0' && s.items ? s.items : s.properties![seg])!;
  return s;
}
