/**
 * edges(schema): the values everyone knows matter, listed rather than drawn. For every bound of
 * a JSON Schema, nested bounds included, the last valid value and the first invalid one on each
 * side, each as a whole value (a request body, say) that is minimal everywhere else
 * (minimal.ts), so that nothing but the edge gives a server a reason to answer differently:
 *
 * - maxLength / minLength: a string of exactly the bound, and one character past it; from 3
 *   characters on, its padding is é (one code point, one UTF-16 unit, two UTF-8 bytes), so a
 *   server that counts bytes shows at the bound;
 * - maxItems / minItems: exactly the bound, and one item past it;
 * - maximum / minimum (and the exclusive forms): the bound itself (or the nearest value inside
 *   it), and the nearest value outside it (the next integer, or a thousandth away; see
 *   violations.ts for why not the adjacent double);
 * - enum: every value, and one value outside it;
 * - pattern and format: the listed edges of each (patterns.ts, formats.ts), such as an
 *   upper-case hexadecimal digit, a uuid or a date-time with one character of junk before or
 *   after it, a second of 61, an offset of +25:00.
 *
 * Every run sends all of them (violations.ts and valid.ts generate the interior and the mixes).
 * The same schema always gives the same edges, in the same order.
 */
import type { JsonSchema } from '../spec/types.ts';
import { FORMATS } from './formats.ts';
import { itemTag, minimalItems, minimalObject, propertyTag } from './minimal.ts';
import { checkKeywords, numericRange, typesOf } from './options.ts';
import { PATTERNS } from './patterns.ts';
import { textFor } from './strings.ts';

/** One edge of one bound. */
export interface Edge {
  /** What the edge is, e.g. "name at maxLength 80" or "name one past maxLength 80". */
  scenario: string;
  /** JSON pointer of the edge value in the whole value, e.g. "/decision_trace/factors/0/criterion". */
  path: string;
  /** The keyword of the bound: maxLength, minLength, maxItems, minItems, maximum, minimum, exclusiveMinimum, exclusiveMaximum, enum, pattern, format. */
  keyword: string;
  /** True for the last valid value (must be accepted), false for the first invalid one (must be refused). */
  valid: boolean;
  /**
   * True when the invalid maxItems edge must repeat an item (the items are an enum with fewer
   * values than maxItems + 1): a server reading the array as a set may count it shorter.
   */
  repeatsItems?: true;
  /** The edge value itself, at `path`. */
  at: unknown;
  /** The whole value. */
  value: unknown;
}

type Embed = (edge: unknown) => unknown;

interface Site {
  path: string;
  label: string;
  schemaPath: string;
  tag: string;
  embed: Embed;
}

/**
 * Every edge of `schema`, outermost first, properties in schema order.
 * @throws UnsupportedSchemaError naming the schema path, as validValue().
 */
export function edges(schema: JsonSchema, opts: { schemaPath?: string } = {}): Edge[] {
  const out: Edge[] = [];
  collect(schema, { path: '', label: 'body', schemaPath: opts.schemaPath ?? '#', tag: '', embed: (v) => v }, out);
  return out;
}

type Add = (keyword: string, valid: boolean, what: string, at: unknown, extra?: { path?: string; repeatsItems?: true }) => void;

function collect(schema: JsonSchema, site: Site, out: Edge[]): void {
  checkKeywords(schema, site.schemaPath);
  const add: Add = (keyword, valid, what, at, extra = {}) => {
    out.push({ scenario: `${site.label} ${what}`, path: extra.path ?? site.path, keyword, valid, ...(extra.repeatsItems ? { repeatsItems: true as const } : {}), at, value: site.embed(at) });
  };
  if (Object.hasOwn(schema, 'const')) return;
  if (schema.enum) {
    for (const v of schema.enum) add('enum', true, `= ${JSON.stringify(v)}`, v);
    const outside = `${String(schema.enum.find((v) => typeof v === 'string') ?? 'value')}_other`;
    add('enum', false, `= ${JSON.stringify(outside)}, outside its enum`, outside);
    return;
  }
  const types = typesOf(schema);
  if (types.includes('string')) stringEdges(schema, site, add);
  if (types.includes('integer') || types.includes('number')) numberEdges(schema, types.includes('number'), add);
  if (types.includes('array')) arrayEdges(schema, site, add, out);
  if (types.includes('object')) objectEdges(schema, site, out);
}

function stringEdges(schema: JsonSchema, site: Site, add: Add): void {
  const { minLength: min, maxLength: max, pattern, format } = schema;
  const support = pattern === undefined ? undefined : PATTERNS[pattern];
  if (support) {
    for (const v of support.edges.valid) if (fits(v, min, max)) add('pattern', true, `matching pattern ${pattern}: ${JSON.stringify(brief(v))}`, v);
    for (const v of support.edges.invalid) if (fits(v, min, max)) add('pattern', false, `not matching pattern ${pattern}: ${JSON.stringify(brief(v))}`, v);
  }
  if (format !== undefined) {
    const formatSupport = FORMATS[format];
    for (const v of formatSupport?.edges.valid ?? []) add('format', true, `in format ${format}: ${JSON.stringify(v)}`, v);
    for (const v of formatSupport?.edges.invalid ?? []) add('format', false, `not in format ${format}: ${JSON.stringify(v)}`, v);
  }
  // Lengths of free text only: a pattern's own edges include its lengths, a format has none.
  if (support || format !== undefined) return;
  const ofLength = (n: number): string => beyondAscii(textFor(site.tag, n, n));
  if (max !== undefined) {
    add('maxLength', true, `at maxLength ${max}`, ofLength(max));
    add('maxLength', false, `one past maxLength ${max}`, ofLength(max + 1));
  }
  if (min !== undefined && min > 0) {
    add('minLength', true, `at minLength ${min}`, ofLength(min));
    add('minLength', false, `one short of minLength ${min}`, ofLength(min - 1));
  }
}

/** `text` with its inner "w" padding (textFor's) written as é; the first and last characters stay as they are. */
function beyondAscii(text: string): string {
  return text.length < 3 ? text : text[0] + text.slice(1, -1).replace(/w/g, '\u00e9') + text.at(-1);
}

function fits(v: string, min: number | undefined, max: number | undefined): boolean {
  return v.length >= (min ?? 0) && (max === undefined || v.length <= max);
}

const brief = (v: string): string => (v.length > 24 ? `${v.slice(0, 10)}…${v.slice(-10)} (${v.length} characters)` : v);

function numberEdges(schema: JsonSchema, fractional: boolean, add: Add): void {
  const { lo, hi } = numericRange(schema);
  const step = (bound: number): number => (fractional ? Math.max(0.001, Math.abs(bound) * 1e-6) : 1);
  // Rounded so that 1 + 0.001 reads 1.001 on the wire, not 1.0010000000000001.
  const tidy = (n: number): number => Number(n.toPrecision(12));
  if (schema.maximum !== undefined) {
    add('maximum', true, `at maximum ${hi}`, hi);
    add('maximum', false, `just above maximum ${hi}`, tidy(hi + step(hi)));
  }
  if (schema.exclusiveMaximum !== undefined) {
    add('exclusiveMaximum', true, `just below exclusiveMaximum ${hi}`, tidy(hi - step(hi)));
    add('exclusiveMaximum', false, `at exclusiveMaximum ${hi}`, hi);
  }
  if (schema.minimum !== undefined) {
    add('minimum', true, `at minimum ${lo}`, lo);
    add('minimum', false, `just below minimum ${lo}`, tidy(lo - step(lo)));
  }
  if (schema.exclusiveMinimum !== undefined) {
    add('exclusiveMinimum', true, `just above exclusiveMinimum ${lo}`, tidy(lo + step(lo)));
    add('exclusiveMinimum', false, `at exclusiveMinimum ${lo}`, lo);
  }
}

function arrayEdges(schema: JsonSchema, site: Site, add: Add, out: Edge[]): void {
  const itemSchema = schema.items ?? {};
  const min = schema.minItems ?? 0;
  const items = (count: number): unknown[] => minimalItems(schema, site.schemaPath, count, site.tag);
  const distinct = itemSchema.enum && !Object.hasOwn(itemSchema, 'const') ? itemSchema.enum.length : Infinity;
  if (schema.maxItems !== undefined) {
    add('maxItems', true, `with maxItems ${schema.maxItems} items`, items(schema.maxItems));
    const count = schema.maxItems + 1;
    add(
      'maxItems',
      false,
      `with maxItems ${schema.maxItems} + 1 items${count > distinct ? ` (${count} of ${distinct} possible values: some repeat)` : ''}`,
      items(count),
      count > distinct ? { repeatsItems: true } : {},
    );
  }
  if (min > 0) {
    add('minItems', true, `with minItems ${min} items`, items(min));
    add('minItems', false, `with minItems ${min} - 1 items`, items(min - 1));
  }
  // The edges of the items: on item 0, followed by the minimal items minItems needs.
  const rest = Math.max(0, min - 1);
  collect(
    itemSchema,
    {
      path: `${site.path}/0`,
      label: `${site.label === 'body' ? '' : site.label}[0]`,
      schemaPath: `${site.schemaPath}/items`,
      tag: itemTag(site.tag, 0),
      embed: (edge) => site.embed([edge, ...minimalItems(schema, site.schemaPath, rest, site.tag, 1)]),
    },
    out,
  );
}

function objectEdges(schema: JsonSchema, site: Site, out: Edge[]): void {
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    collect(
      child,
      {
        path: `${site.path}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        label: site.label === 'body' ? name : `${site.label}.${name}`,
        schemaPath: `${site.schemaPath}/properties/${name}`,
        tag: propertyTag(site.tag, schema, name),
        embed: (edge) => site.embed({ ...minimalObject(schema, site.schemaPath, site.tag, name), [name]: edge }),
      },
      out,
    );
  }
}

/** A whole value carrying several valid edges at once, and the edges it carries. */
export interface EdgeBundle {
  value: unknown;
  edges: Edge[];
}

/**
 * Valid edges packed into few whole values: the i-th bundle carries the i-th valid edge of
 * every path (so the number of bundles is the most valid edges any one path has), each set
 * into the bundle at its path, shallower paths first. An edge that would put repeated items
 * into an array of enum values or of objects with labels (which a server may refuse for a
 * reason of its own) opens a bundle of its own instead. A bundle a server refuses is split
 * into its edges by the caller to find the one it refused.
 */
export function bundleEdges(valid: readonly Edge[]): EdgeBundle[] {
  const byPath = new Map<string, Edge[]>();
  for (const e of valid) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  const rounds = Math.max(0, ...[...byPath.values()].map((l) => l.length));
  const out: EdgeBundle[] = [];
  for (let i = 0; i < rounds; i++) {
    const chosen = [...byPath.values()].map((l) => l[i]).filter((e): e is Edge => e !== undefined);
    chosen.sort((a, b) => a.path.split('/').length - b.path.split('/').length);
    let bundle: EdgeBundle | undefined;
    for (const e of chosen) {
      if (!bundle) {
        bundle = { value: structuredClone(e.value), edges: [e] };
        continue;
      }
      const merged = structuredClone(bundle.value);
      if (setFrom(merged, e) && !hasRepeats(merged)) bundle = { value: merged, edges: [...bundle.edges, e] };
      else out.push({ value: structuredClone(e.value), edges: [e] });
    }
    if (bundle) out.push(bundle);
  }
  return out;
}

/** Sets `e.at` at `e.path` in `target`, taking missing parents from `e.value`; false when the shapes clash. */
function setFrom(target: unknown, e: Edge): boolean {
  const segments = e.path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (segments.length === 0) return false;
  let here = target as Record<string, unknown>;
  let source = e.value as Record<string, unknown>;
  for (const [i, seg] of segments.entries()) {
    if (typeof here !== 'object' || here === null) return false;
    if (i === segments.length - 1) {
      here[seg] = structuredClone(e.at);
      return true;
    }
    source = source?.[seg] as Record<string, unknown>;
    if (here[seg] === undefined) {
      here[seg] = structuredClone(source);
      return true;
    }
    here = here[seg] as Record<string, unknown>;
  }
  return false;
}

/** True when some array holds the same string twice, or two objects with the same label. */
function hasRepeats(v: unknown): boolean {
  if (Array.isArray(v)) {
    const keys = v
      .map((x) =>
        typeof x === 'string' ? x : typeof x === 'object' && x !== null && typeof (x as { label?: unknown }).label === 'string' ? `label:${(x as { label: string }).label.toLowerCase()}` : undefined,
      )
      .filter((k) => k !== undefined);
    if (new Set(keys).size !== keys.length) return true;
    return v.some(hasRepeats);
  }
  if (typeof v === 'object' && v !== null) return Object.values(v).some(hasRepeats);
  return false;
}
