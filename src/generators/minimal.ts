/**
 * minimalValue(schema): one fixed, small value that satisfies a JSON Schema: only the required
 * properties of objects, arrays at minItems, short lowercase alphanumeric strings (at least
 * one character, minLength when larger), the default or first value of an enum, a number
 * inside the bounds. violations.ts builds the rest of a whole value around a bad one from
 * these, so that a server has no other reason to refuse it than the broken bound (optional
 * fields, long arrays and boundary sizes each invite a server's own additional rules), and so
 * that building it costs next to nothing.
 *
 * Values are plain JSON, built fresh on each call, and derived from a tag (the value's place):
 * strings and ids of distinct places differ, so sibling items of an array are distinct in every
 * string (also ignoring case), and the items of an array of enum values are distinct values
 * as long as the enum has enough of them.
 */
import type { JsonSchema } from '../spec/types.ts';
import { checkKeywords, numericRange, typesOf, UnsupportedSchemaError } from './options.ts';
import { stringShape } from './string-schema.ts';
import { textFor } from './strings.ts';

// Tag alphabet: a letter per property, digits and "x" per item; never "w" (textFor's padding).
const LETTERS = 'abcdefghijklmnopqrstuvyz';

/** The tag of property `name` of an object at `tag`. */
export function propertyTag(tag: string, schema: JsonSchema, name: string): string {
  const index = Object.keys(schema.properties ?? {}).indexOf(name);
  return `${tag}${LETTERS[Math.max(0, index) % LETTERS.length]}`;
}

/** The tag of item `index` of an array at `tag`. */
export function itemTag(tag: string, index: number): string {
  return `${tag}${index}x`;
}

/**
 * The minimal value of `schema` at a place.
 * @throws UnsupportedSchemaError naming the schema path, as validValue().
 */
export function minimalValue(schema: JsonSchema, at = '#', tag = ''): unknown {
  checkKeywords(schema, at);
  if (Object.hasOwn(schema, 'const')) return schema.const;
  if (schema.enum) {
    if (schema.enum.length === 0) throw new UnsupportedSchemaError(at, 'an empty enum admits no value');
    return schema.default !== undefined && schema.enum.includes(schema.default) ? schema.default : schema.enum[0];
  }
  const types = typesOf(schema);
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'string':
      return minimalString(schema, at, tag);
    case 'integer':
    case 'number':
      return minimalNumber(schema, at, type === 'integer');
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return minimalItems(schema, at, schema.minItems ?? 0, tag);
    case 'object':
      return minimalObject(schema, at, tag);
    default:
      throw new UnsupportedSchemaError(at, `type "${type}" is not supported by the generators`);
  }
}

/**
 * `count` minimal items of the array `schema`, numbered from `start` (item i has the tag of
 * index start + i). Enum items take successive enum values, so up to the enum's size they
 * are distinct; past it they repeat.
 */
export function minimalItems(schema: JsonSchema, at: string, count: number, tag: string, start = 0): unknown[] {
  const items = schema.items ?? {};
  const itemsAt = `${at}/items`;
  const values = items.enum && !Object.hasOwn(items, 'const') ? items.enum : undefined;
  return Array.from({ length: count }, (_, i) => {
    if (values && values.length > 0) {
      checkKeywords(items, itemsAt);
      return values[(start + i) % values.length];
    }
    return minimalValue(items, itemsAt, itemTag(tag, start + i));
  });
}

/** The required properties of the object `schema`, each minimal; `except` left out. */
export function minimalObject(schema: JsonSchema, at: string, tag: string, except?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    if (name === except) continue;
    const child = schema.properties?.[name];
    if (!child) throw new UnsupportedSchemaError(at, `required property "${name}" has no schema under properties`);
    out[name] = minimalValue(child, `${at}/properties/${name}`, propertyTag(tag, schema, name));
  }
  return out;
}

function minimalString(schema: JsonSchema, at: string, tag: string): string {
  const shape = stringShape(schema, at);
  const { min, max } = shape;
  if (shape.kind === 'format') return shape.format.example(tag);
  if (shape.kind === 'pattern') return shape.pattern.example(tag, min, max);
  // Never empty where one character is allowed: a server may refuse a blank required string.
  return textFor(tag, Math.max(min, Math.min(1, max ?? 1)), max);
}

/** 1 when the bounds allow it (a small, ordinary number), else the middle of the range. */
function minimalNumber(schema: JsonSchema, at: string, integer: boolean): number {
  const { lo, hi, loExcluded, hiExcluded } = numericRange(schema);
  const inside = (n: number): boolean => (loExcluded ? n > lo : n >= lo) && (hiExcluded ? n < hi : n <= hi);
  if (inside(1)) return 1;
  if (integer) {
    const first = loExcluded ? Math.floor(lo) + 1 : Math.ceil(lo);
    const last = hiExcluded ? Math.ceil(hi) - 1 : Math.floor(hi);
    if (last < first) throw new UnsupportedSchemaError(at, 'the integer bounds admit no value');
    return 1 < first ? first : last;
  }
  const middle = (lo + hi) / 2;
  if (!inside(middle)) throw new UnsupportedSchemaError(at, 'the number bounds admit no value');
  return middle;
}
