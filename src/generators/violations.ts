/**
 * violations(schema): one entry per bound of a JSON Schema, nested bounds included, each an
 * arbitrary of whole values (request bodies, parameter sets) that break exactly that bound
 * and are valid everywhere else. The bad value sits at `path`; for a bound inside an array
 * it is item 0, for a bound inside an optional property that property is present. Everything
 * else is minimal (minimal.ts), and a bad value is one that every conformant server must
 * refuse, not merely one a strict validator refuses (see wrongTypes, notIn, formats.ts).
 */
import fc from 'fast-check';
import type { JsonSchema } from '../spec/types.ts';
import { FORMATS } from './formats.ts';
import { checkKeywords, numericRange, typesOf, UnsupportedSchemaError, type ViolationOptions, type Wire } from './options.ts';
import { PATTERNS } from './patterns.ts';
import { stringOfLength } from './strings.ts';
import { itemTag, minimalItems, minimalObject, propertyTag } from './minimal.ts';

/** One single-bound violation. */
export interface Violation {
  /** What is wrong, e.g. "name longer than maxLength 80". */
  scenario: string;
  /** JSON pointer of the bad value in the whole value, e.g. "/decision_trace/factors/0/criterion". */
  path: string;
  /** The ajv keyword expected to fail (maxLength, required, type, ...). */
  keyword: string;
  /**
   * Keywords that unavoidably fail with it at the same path (e.g. an empty Idempotency-Key
   * breaks minLength and the pattern); absent for a clean single-bound violation.
   */
  alsoFails?: string[];
  /**
   * True when breaking maxItems needs a repeated item (the items are an enum with fewer values
   * than maxItems + 1, as entityKinds): a server reading the array as a set may count it shorter.
   */
  repeatsItems?: true;
  /** Whole values breaking that bound and nothing else. */
  value: fc.Arbitrary<unknown>;
}

/** Wraps a bad value at some depth into a whole value that is valid (and minimal) elsewhere. */
type Embed = (bad: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>;

interface Site {
  path: string;
  /** Readable name of the place: "decision_trace.factors[0].criterion", or "body" for the root. */
  label: string;
  schemaPath: string;
  /** The place's tag for minimal values (see minimal.ts). */
  tag: string;
  /**
   * True when the place is an optional property. JSON null there is no type violation: the
   * seed does not say what null means for a field that may be left out, and "null = not given"
   * (pydantic Optional, Jackson) or, on PATCH, "null = clear" are conformant readings.
   */
  optional: boolean;
  embed: Embed;
}

/**
 * Every single-bound violation of `schema`. Around the bad value the whole value is minimal
 * (minimal.ts): only required properties and the properties leading to the bad value, arrays at
 * minItems, short strings, so that nothing but the broken bound gives a server a reason to
 * refuse it.
 * @throws UnsupportedSchemaError naming the schema path, as validValue().
 */
export function violations(schema: JsonSchema, opts: ViolationOptions = {}): Violation[] {
  const out: Violation[] = [];
  const wire = opts.wire ?? 'json';
  collect(schema, { path: '', label: 'body', schemaPath: opts.schemaPath ?? '#', tag: '', optional: false, embed: (bad) => bad }, wire, out);
  return out;
}

function collect(schema: JsonSchema, site: Site, wire: Wire, out: Violation[]): void {
  checkKeywords(schema, site.schemaPath);
  const add: Add = (keyword, what, bad, path = site.path, alsoFails, repeatsItems) => {
    out.push({ scenario: `${site.label} ${what}`, path, keyword, ...(alsoFails ? { alsoFails } : {}), ...(repeatsItems ? { repeatsItems } : {}), value: site.embed(bad) });
  };
  const types = typesOf(schema);
  if (Object.hasOwn(schema, 'const')) {
    add('const', `not the constant ${JSON.stringify(schema.const)}`, fc.constant(`${String(schema.const)}-other`));
  } else if (schema.enum) {
    add('enum', 'not one of its enum values', fc.constantFrom(...notIn(schema.enum)));
  } else if (schema.type !== undefined) {
    // With an enum or const, any wrong-typed value would fail that keyword too; their own violation covers it.
    const wrong = wrongTypes(schema, types, wire, site.optional);
    if (wrong.length) add('type', `of the wrong type (not ${types.join(' or ')})`, fc.constantFrom(...wrong));
  }
  if (types.includes('string')) stringBounds(schema, site, add);
  if (types.includes('integer') || types.includes('number')) numberBounds(schema, types.includes('number'), add);
  if (types.includes('array')) arrayBounds(schema, site, wire, add, out);
  if (types.includes('object')) objectBounds(schema, site, wire, add, out);
}

type Add = (keyword: string, what: string, bad: fc.Arbitrary<unknown>, path?: string, alsoFails?: string[], repeatsItems?: true) => void;

function stringBounds(schema: JsonSchema, site: Site, add: Add): void {
  const { minLength: min, maxLength: max, pattern, format } = schema;
  const support = pattern === undefined ? undefined : PATTERNS[pattern];
  if (pattern !== undefined && !support) {
    throw new UnsupportedSchemaError(site.schemaPath, `pattern ${pattern} is not supported by the generators (see src/generators/patterns.ts)`);
  }
  // A wrong length keeps matching the pattern when some string of that length does; otherwise
  // the pattern fails too, and the violation says so.
  const ofLength = (length: number): [fc.Arbitrary<string>, string[] | undefined] => {
    if (!support) return [stringOfLength(length), undefined];
    const matching = support.ofLength(length);
    return matching ? [matching, undefined] : [stringOfLength(length), ['pattern']];
  };
  if (max !== undefined) {
    const [bad, also] = ofLength(max + 1);
    add('maxLength', `longer than maxLength ${max}`, bad, site.path, also);
  }
  if (min !== undefined && min > 0) {
    const [bad, also] = ofLength(min - 1);
    add('minLength', `shorter than minLength ${min}`, bad, site.path, also);
  }
  if (support) add('pattern', `not matching pattern ${pattern}`, support.invalid(min ?? 0, max));
  if (format !== undefined) {
    const formatSupport = FORMATS[format];
    if (!formatSupport) throw new UnsupportedSchemaError(site.schemaPath, `format "${format}" is not supported by the generators`);
    add('format', `not in format ${format}`, formatSupport.invalid);
  }
}

function numberBounds(schema: JsonSchema, fractional: boolean, add: Add): void {
  const { lo, hi, loExcluded, hiExcluded } = numericRange(schema);
  // Just outside the bound (the next integer, or a thousandth away), then further away. Not the
  // adjacent double: a server may hold the number as a 32-bit float (Java float, Go float32),
  // which reads 1.0000000000000002 as 1 and -5e-324 as 0, back inside the bounds.
  const step = (bound: number): number => Math.max(0.001, Math.abs(bound) * 1e-6);
  const above = (bound: number, inclusive: boolean): fc.Arbitrary<number> =>
    fractional ? fc.constantFrom(...(inclusive ? [] : [bound]), bound + step(bound), bound + 1, bound + 1000) : fc.constantFrom(inclusive ? bound + 1 : bound, bound + 2, bound + 1000);
  const below = (bound: number, inclusive: boolean): fc.Arbitrary<number> =>
    fractional ? fc.constantFrom(...(inclusive ? [] : [bound]), bound - step(bound), bound - 1, bound - 1000) : fc.constantFrom(inclusive ? bound - 1 : bound, bound - 2, bound - 1000);
  if (schema.maximum !== undefined && !hiExcluded) add('maximum', `greater than maximum ${hi}`, above(hi, true));
  if (schema.exclusiveMaximum !== undefined && hiExcluded) add('exclusiveMaximum', `not below exclusiveMaximum ${hi}`, above(hi, false));
  if (schema.minimum !== undefined && !loExcluded) add('minimum', `less than minimum ${lo}`, below(lo, true));
  if (schema.exclusiveMinimum !== undefined && loExcluded) add('exclusiveMinimum', `not above exclusiveMinimum ${lo}`, below(lo, false));
}

function arrayBounds(schema: JsonSchema, site: Site, wire: Wire, add: Add, out: Violation[]): void {
  const itemSchema = schema.items ?? {};
  const itemsAt = `${site.schemaPath}/items`;
  const min = schema.minItems ?? 0;
  // Minimal items, built afresh for each value; distinct while the item schema allows it.
  const items = (count: number, start = 0): fc.Arbitrary<unknown[]> => fc.constant(null).map(() => minimalItems(schema, site.schemaPath, count, site.tag, start));
  if (schema.maxItems !== undefined) {
    const count = schema.maxItems + 1;
    const distinct = itemSchema.enum && !Object.hasOwn(itemSchema, 'const') ? itemSchema.enum.length : Infinity;
    // More items than an enum has values cannot all differ: say so, a server treating the array as a set may count it shorter.
    if (count > distinct) {
      add('maxItems', `with more than maxItems ${schema.maxItems} items (${count} of ${distinct} possible values: some repeat)`, items(count), site.path, undefined, true);
    } else {
      add('maxItems', `with more than maxItems ${schema.maxItems} items`, items(count));
    }
  }
  if (min > 0) add('minItems', `with fewer than minItems ${min} items`, items(min - 1));
  // Bounds of the items: the bad item goes first, followed by the minimal items that minItems needs.
  const rest = Math.max(0, min - 1);
  collect(
    itemSchema,
    {
      path: `${site.path}/0`,
      label: `${site.label === 'body' ? '' : site.label}[0]`,
      schemaPath: itemsAt,
      tag: itemTag(site.tag, 0),
      optional: false,
      embed: (bad) => site.embed(bad.map((first) => [first, ...minimalItems(schema, site.schemaPath, rest, site.tag, 1)])),
    },
    wire,
    out,
  );
}

function objectBounds(schema: JsonSchema, site: Site, wire: Wire, add: Add, out: Violation[]): void {
  const required = schema.required ?? [];
  // The object's other required properties, minimal, built afresh for each value.
  const others = (except?: string): Record<string, unknown> => minimalObject(schema, site.schemaPath, site.tag, except);
  for (const name of required) {
    add(
      'required',
      `without required property "${name}"`,
      fc.constant(null).map(() => others(name)),
      `${site.path}/${escape(name)}`,
    );
  }
  if (schema.additionalProperties === false) {
    let extra = 'unexpected_property';
    while (schema.properties && Object.hasOwn(schema.properties, extra)) extra += '_';
    add(
      'additionalProperties',
      `with an undeclared property "${extra}"`,
      fc.constant(null).map(() => ({ ...others(), [extra]: 'not allowed' })),
      `${site.path}/${escape(extra)}`,
    );
  }
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    collect(
      child,
      {
        path: `${site.path}/${escape(name)}`,
        label: site.label === 'body' ? name : `${site.label}.${name}`,
        schemaPath: `${site.schemaPath}/properties/${name}`,
        tag: propertyTag(site.tag, schema, name),
        optional: !required.includes(name),
        embed: (bad) => site.embed(bad.map((value) => ({ ...others(name), [name]: value }))),
      },
      wire,
      out,
    );
  }
}

/*
 * Values of another JSON type than the schema admits (on a text wire, strings that do not
 * parse as the type), left out where a common lenient parser would read them as the right
 * type, since a conformant server built on it may accept them:
 * - for a string, no number or boolean: Jackson turns scalars into strings by default;
 * - for a number, no numeric string ("0.9") and no boolean: pydantic's lax mode and ASP.NET
 *   Core read "0.9" as 0.9, pydantic reads true as 1;
 * - for an integer, no fractional JSON number either: Jackson truncates 1.5 to 1 by default
 *   (ACCEPT_FLOAT_AS_INT); on a text wire "1.5" fails every integer parser and is kept;
 * - for a boolean, no number and no "true"/"false": pydantic reads 0/1 and those strings,
 *   Jackson reads numbers; on a text wire none of yes/no/on/off/1/0/t/f/y/n, which pydantic,
 *   Spring or Go's strconv read as booleans;
 * - null only where the place is not an optional property (see Site.optional).
 * Objects and arrays are kept for every scalar type: no default parser reads them as one.
 */
function wrongTypes(schema: JsonSchema, types: string[], wire: Wire, optional: boolean): unknown[] {
  const fractional = fractionalInRange(schema);
  const has = (t: string): boolean => types.includes(t);
  if (wire === 'text') {
    // Strings and arrays cannot be mistyped in a query string or header: every value is text.
    if (has('string') || has('array') || has('object')) return [];
    const out: unknown[] = [];
    if (has('integer') || has('number')) out.push('abc', 'one');
    if (has('integer') && !has('number') && fractional !== undefined) out.push(String(fractional));
    if (has('boolean')) out.push('maybe', 'abc', '2', 'truee');
    return out;
  }
  const out: unknown[] = [];
  if (!has('object')) out.push({});
  if (!has('array')) out.push([]);
  // A string that reads as no number, boolean, array or object under any parser.
  if (!has('string')) out.push('not-the-right-type');
  // A number is kept for arrays and objects only (see above for strings and booleans).
  if (!has('integer') && !has('number') && (has('array') || has('object'))) out.push(42);
  if (!has('null') && !optional) out.push(null);
  return out;
}

/** A non-integer inside an integer schema's range, so that only `type` fails. */
function fractionalInRange(schema: JsonSchema): number | undefined {
  const { lo, hi, loExcluded } = numericRange(schema);
  const candidate = (loExcluded ? Math.floor(lo) + 1 : Math.ceil(lo)) + 0.5;
  return candidate < hi ? candidate : undefined;
}

/**
 * Strings not in an enum: a suffixed member and an unrelated word. No case change (.NET's
 * JsonStringEnumConverter and ASP.NET Core's binding of query enums ignore case) and no empty
 * string (an empty parameter may read as not given).
 */
function notIn(values: unknown[]): string[] {
  const first = String(values.find((v) => typeof v === 'string') ?? 'value');
  const candidates = [`${first}_other`, 'unknown_value'];
  return [...new Set(candidates)].filter((c) => !values.includes(c));
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
