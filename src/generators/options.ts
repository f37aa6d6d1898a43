/**
 * Options shared by the generator factories, the size policy, and the keyword check that
 * makes every factory refuse a schema it does not fully understand (an arbitrary that
 * ignores a bound would produce wrong data silently).
 */
import type { JsonSchema } from '../spec/types.ts';

/** Options of validValue(). */
export interface ValueOptions {
  /** Where the schema sits, used in error messages (default "#"). */
  schemaPath?: string;
  /**
   * Keep the value small: strings within COMPACT_SLACK characters of their minLength, arrays
   * within 2 items of their minItems. Used for the items of long arrays (see SIZE POLICY).
   */
  compact?: boolean;
}

/**
 * How values reach the target. "json": request bodies, any JSON type can be sent.
 * "text": query/header parameters, where everything travels as a string, so a "wrong type"
 * can only be a string that does not parse as the declared type.
 */
export type Wire = 'json' | 'text';

/** Options of violations(). */
export interface ViolationOptions {
  schemaPath?: string;
  /** Default "json". */
  wire?: Wire;
}

/*
 * SIZE POLICY. Bodies are kept small except at a bound, and bounds stay reachable:
 * - a string is at its minLength, at its maxLength, or in between; without maxLength it is at
 *   most minLength + UNBOUNDED_LENGTH characters;
 * - a string is a random printable text of at most CHEAP_LENGTH characters, repeated to its
 *   length, so a 4000-character boundary value costs one short generation;
 * - an array has up to FULL_ITEMS full-size items, or (at or up to maxItems) compact items:
 *   strings within COMPACT_SLACK of their minLength, nested arrays within 2 of their minItems;
 *   without maxItems it has at most minItems + UNBOUNDED_ITEMS items.
 * With specs/openapi.yaml the largest generated body is a few tens of KB;
 * test/spec/generators-valid.test.ts keeps it under MAX_BODY_BYTES.
 * Violations are smaller still: around the bad value everything is minimal (minimal.ts: required
 * properties only, arrays at minItems, strings of a few characters), so a violation's size is
 * that of its bad value plus a few hundred bytes (test/spec/generators-violations.test.ts).
 */
export const MAX_BODY_BYTES = 256 * 1024;
export const UNBOUNDED_LENGTH = 32;
export const CHEAP_LENGTH = 24;
export const COMPACT_SLACK = 8;
export const FULL_ITEMS = 3;
export const UNBOUNDED_ITEMS = 8;

const VALIDATION_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
const ANNOTATION_KEYWORDS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

/** Error for a schema the generators cannot honour; the message names the schema path. */
export class UnsupportedSchemaError extends Error {
  override name = 'UnsupportedSchemaError';
  constructor(schemaPath: string, what: string) {
    super(`${schemaPath}: ${what}`);
  }
}

/** Throws UnsupportedSchemaError for any keyword (or keyword form) the generators do not implement. */
export function checkKeywords(schema: JsonSchema, schemaPath: string): void {
  for (const keyword of Object.keys(schema)) {
    if (VALIDATION_KEYWORDS.has(keyword) || ANNOTATION_KEYWORDS.has(keyword) || keyword.startsWith('x-')) continue;
    throw new UnsupportedSchemaError(schemaPath, `keyword "${keyword}" is not supported by the generators`);
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && typeof extra !== 'boolean') {
    throw new UnsupportedSchemaError(schemaPath, 'a schema-valued additionalProperties is not supported by the generators');
  }
  for (const name of schema.required ?? []) {
    if (!schema.properties || !Object.hasOwn(schema.properties, name)) {
      throw new UnsupportedSchemaError(schemaPath, `required property "${name}" has no schema under properties`);
    }
  }
  if (schema.format !== undefined && (schema.minLength !== undefined || schema.maxLength !== undefined || schema.pattern !== undefined)) {
    throw new UnsupportedSchemaError(schemaPath, 'format combined with length bounds or a pattern is not supported by the generators');
  }
}

/** The JSON types a schema admits; a schema without `type` is an object if it has properties, else a simple value. */
export function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  return schema.properties ? ['object'] : ['string', 'number', 'boolean', 'null'];
}

/** Lowest and highest allowed numbers (exclusive bounds as flags); unbounded sides default to +-2^31. */
export function numericRange(schema: JsonSchema): { lo: number; hi: number; loExcluded: boolean; hiExcluded: boolean } {
  const DEFAULT = 2 ** 31;
  const { minimum, maximum, exclusiveMinimum: xmin, exclusiveMaximum: xmax } = schema;
  // When both forms are given, the stricter one is the bound.
  const loExcluded = xmin !== undefined && (minimum === undefined || xmin >= minimum);
  const hiExcluded = xmax !== undefined && (maximum === undefined || xmax <= maximum);
  const lo = loExcluded ? (xmin as number) : (minimum ?? -DEFAULT);
  const hi = hiExcluded ? (xmax as number) : (maximum ?? DEFAULT - 1);
  return { lo, hi, loExcluded, hiExcluded };
}
