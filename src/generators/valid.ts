/**
 * validValue(schema): an arbitrary of values that satisfy a JSON Schema of specs/openapi.yaml,
 * biased to the bounds themselves (shortest and longest strings, 0 and 1 for thresholds,
 * empty and full arrays), with optional properties present sometimes. Deterministic for a
 * fast-check seed (no other randomness is used).
 */
import fc from 'fast-check';
import type { JsonSchema } from '../spec/types.ts';
import { checkKeywords, FULL_ITEMS, numericRange, typesOf, UNBOUNDED_ITEMS, UnsupportedSchemaError, type ValueOptions } from './options.ts';
import { stringShape } from './string-schema.ts';
import { boundedString } from './strings.ts';

/**
 * Values satisfying `schema`.
 * @throws UnsupportedSchemaError (message starts with the schema path) for a keyword, format or
 *   pattern the generators do not implement, rather than produce values that may not satisfy it.
 */
export function validValue(schema: JsonSchema, opts: ValueOptions = {}): fc.Arbitrary<unknown> {
  const at = opts.schemaPath ?? '#';
  checkKeywords(schema, at);
  if (Object.hasOwn(schema, 'const')) return fc.constant(schema.const);
  if (schema.enum) {
    if (schema.enum.length === 0) throw new UnsupportedSchemaError(at, 'an empty enum admits no value');
    return fc.constantFrom(...schema.enum);
  }
  const arbitraries = typesOf(schema).map((type) => ofType(type, schema, at, opts.compact === true));
  return arbitraries.length === 1 ? (arbitraries[0] as fc.Arbitrary<unknown>) : fc.oneof(...arbitraries);
}

function ofType(type: string, schema: JsonSchema, at: string, compact: boolean): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return validString(schema, at, compact);
    case 'integer':
      return validInteger(schema, at);
    case 'number':
      return validNumber(schema, at);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return validArray(schema, at, compact);
    case 'object':
      return validObject(schema, at, compact);
    default:
      throw new UnsupportedSchemaError(at, `type "${type}" is not supported by the generators`);
  }
}

/** A string for `schema`: its format, its pattern, or printable text within its length bounds. */
export function validString(schema: JsonSchema, at: string, compact: boolean): fc.Arbitrary<string> {
  const shape = stringShape(schema, at);
  const { min, max } = shape;
  if (shape.kind === 'format') return shape.format.valid;
  if (shape.kind === 'pattern') {
    try {
      return shape.pattern.valid(min, max, compact);
    } catch (err) {
      throw new UnsupportedSchemaError(at, (err as Error).message);
    }
  }
  return boundedString(min, max, compact);
}

function validInteger(schema: JsonSchema, at: string): fc.Arbitrary<number> {
  const range = numericRange(schema);
  const lo = range.loExcluded ? Math.floor(range.lo) + 1 : Math.ceil(range.lo);
  const hi = range.hiExcluded ? Math.ceil(range.hi) - 1 : Math.floor(range.hi);
  if (hi < lo) throw new UnsupportedSchemaError(at, 'the integer bounds admit no value');
  return fc.oneof(fc.constant(lo), fc.constant(hi), fc.integer({ min: lo, max: Math.min(hi, lo + 100) }), fc.integer({ min: lo, max: hi }));
}

function validNumber(schema: JsonSchema, at: string): fc.Arbitrary<number> {
  const { lo, hi, loExcluded, hiExcluded } = numericRange(schema);
  if (hi < lo || (hi === lo && (loExcluded || hiExcluded))) throw new UnsupportedSchemaError(at, 'the number bounds admit no value');
  const inside = fc.double({ min: lo, max: hi, minExcluded: loExcluded, maxExcluded: hiExcluded, noNaN: true, noDefaultInfinity: true });
  const options: fc.Arbitrary<number>[] = [inside, inside.map((n) => Math.round(n * 100) / 100).filter((n) => inRange(n, lo, hi, loExcluded, hiExcluded))];
  // The inclusive bounds themselves (0 and 1 for a threshold) are the most interesting values.
  if (!loExcluded) options.push(fc.constant(lo));
  if (!hiExcluded) options.push(fc.constant(hi));
  return fc.oneof(...options);
}

function inRange(n: number, lo: number, hi: number, loExcluded: boolean, hiExcluded: boolean): boolean {
  return (loExcluded ? n > lo : n >= lo) && (hiExcluded ? n < hi : n <= hi);
}

/**
 * An array for `schema`: a few full-size items, or (up to and at maxItems) compact ones; see
 * SIZE POLICY. An array of enum values is a set of distinct values (see distinctSubset).
 */
function validArray(schema: JsonSchema, at: string, compact: boolean): fc.Arbitrary<unknown[]> {
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? min + UNBOUNDED_ITEMS;
  if (max < min) throw new UnsupportedSchemaError(at, `maxItems ${max} is below minItems ${min}`);
  const itemSchema = schema.items ?? {};
  const set = distinctSubset(itemSchema, `${at}/items`, min, max, compact);
  if (set) return set;
  const small = validValue(itemSchema, { schemaPath: `${at}/items`, compact: true });
  if (compact) return fc.array(small, { minLength: min, maxLength: Math.min(max, min + 2) });
  const full = validValue(itemSchema, { schemaPath: `${at}/items` });
  return fc.oneof(
    { weight: 3, arbitrary: fc.array(full, { minLength: min, maxLength: Math.min(max, Math.max(min, FULL_ITEMS)) }) },
    { weight: 1, arbitrary: fc.array(small, { minLength: max, maxLength: max }) },
    { weight: 1, arbitrary: fc.array(small, { minLength: min, maxLength: max, size: 'max' }) },
  );
}

/**
 * For items that are an enum: distinct values in random order, min items, as many as allowed
 * (maxItems, or every value when the enum has fewer), or in between. The seed's bounds allow
 * repeats (entityKinds "1 to 4 items" of 4 kinds), but a server may read such an array as a
 * set and refuse a repeated value. Undefined for other items, or when minItems exceeds the
 * enum's size (the values must then repeat).
 */
function distinctSubset(items: JsonSchema, at: string, min: number, max: number, compact: boolean): fc.Arbitrary<unknown[]> | undefined {
  if (!items.enum || Object.hasOwn(items, 'const')) return undefined;
  checkKeywords(items, at);
  const values = [...new Set(items.enum)];
  const hi = Math.min(max, values.length);
  if (min > hi) return undefined;
  const subset = (minLength: number, maxLength: number): fc.Arbitrary<unknown[]> => fc.shuffledSubarray(values, { minLength, maxLength });
  if (compact) return subset(min, Math.min(hi, min + 2));
  return fc.oneof(subset(min, min), subset(hi, hi), subset(min, hi));
}

/** An object for `schema`: every required property, each optional one sometimes, nothing undeclared. */
function validObject(schema: JsonSchema, at: string, compact: boolean): fc.Arbitrary<Record<string, unknown>> {
  const model = propertyModel(schema, at, compact);
  return fc.record(model, { requiredKeys: schema.required ?? [], noNullPrototype: true });
}

/** One arbitrary per declared property; `except` left out. */
export function propertyModel(schema: JsonSchema, at: string, compact: boolean, except?: string): Record<string, fc.Arbitrary<unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    if (name === except) continue;
    model[name] = validValue(child, { schemaPath: `${at}/properties/${name}`, compact });
  }
  return model;
}
