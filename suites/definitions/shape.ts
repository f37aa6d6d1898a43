/**
 * Judging a returned Definition against the seed: its shape (components/schemas/Definition),
 * how it reflects a create body, the defaults of omitted fields (read from the request
 * schema's `default` keywords, never typed again) and its enum values.
 */
import type { Evidence } from '../../src/engine/finding.ts';
import { judged } from '../../src/engine/judged.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import type { JsonSchema, LoadedSpec } from '../../src/spec/load.ts';
import { validateSchema } from '../../src/spec/validate.ts';
import { brief, isObject } from '../_shared/json.ts';
import { sameValue, snake, timeOf } from './support.ts';
import { allowedReflection } from './valid-bodies.ts';

const TIMESTAMPS = ['created_at', 'updated_at', 'archived_at'] as const;

/**
 * Shape problems of a Definition: a missing top-level field is DEF-001; a missing label, slug
 * or archived flag of an enum value is DEF-005; any other type, enum or nullability problem,
 * and a timestamp that does not parse, is DEF-002.
 */
export function shapeEvidence(spec: LoadedSpec, value: unknown, ex: Exchange, where: string): Evidence[] {
  const out: Evidence[] = [];
  // Every field's type is looked at (DEF-002); the fields' presence only on an object (DEF-001),
  // the enum values' label, slug and archived only where there are enum values (DEF-005).
  judged('DEF-002');
  if (isObject(value)) judged('DEF-001');
  if (isObject(value) && Array.isArray(value.enum_values) && value.enum_values.some(isObject)) judged('DEF-005');
  for (const issue of validateSchema(spec, 'Definition', value)) {
    const enumValueField = /^\/enum_values\/\d+\/(label|slug|archived)$/.test(issue.path);
    const clause = issue.keyword === 'required' && /^\/[^/]+$/.test(issue.path) ? 'DEF-001' : enumValueField ? 'DEF-005' : 'DEF-002';
    out.push({ clause, message: `${where}: ${issue.message}`, expected: issue.expected, received: issue.received, exchange: ex });
  }
  if (isObject(value)) {
    for (const field of TIMESTAMPS) {
      const v = value[field];
      if (typeof v === 'string' && timeOf(v) === undefined) {
        out.push({ clause: 'DEF-002', message: `${where}: ${field} is not a timestamp`, expected: 'a timestamp', received: JSON.stringify(v), exchange: ex });
      }
    }
  }
  return out;
}

/** Request fields whose value is judged elsewhere (enum values: DEF-005) or never returned (the trace). */
const NOT_REFLECTED = new Set(['enumValues', 'decision_trace']);

/**
 * DEF-003: every field given in the create body comes back under its snake_case name with the
 * given value (entity kinds as a set: the seed does not say they keep order or duplicates), or
 * as the seed also allows (allowedReflection: "" as null in a nullable field, cardinality nulled
 * when the value type is not enum); `nullable` are the Definition's nullable fields.
 */
export function reflectEvidence(body: Record<string, unknown>, def: Record<string, unknown>, ex: Exchange, nullable: ReadonlySet<string> = new Set()): Evidence[] {
  const out: Evidence[] = [];
  for (const [name, given] of Object.entries(body)) {
    if (NOT_REFLECTED.has(name)) continue;
    const field = snake(name);
    const got = def[field];
    judged('DEF-003');
    const same = (Array.isArray(given) && Array.isArray(got) ? sameSet(given, got) : sameValue(given, got)) || allowedReflection(field, given, got, nullable, body.valueType);
    if (!same) {
      out.push({ clause: 'DEF-003', message: `${field} does not reflect the request's ${name}`, expected: brief(given), received: brief(got), exchange: ex });
    }
  }
  return out;
}

function sameSet(a: readonly unknown[], b: readonly unknown[]): boolean {
  const x = new Set(a.map((v) => JSON.stringify(v)));
  const y = new Set(b.map((v) => JSON.stringify(v)));
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** DEF-004: each omitted request field with a schema default comes back with that default. */
export function defaultEvidence(requestSchema: JsonSchema, body: Record<string, unknown>, def: Record<string, unknown>, ex: Exchange): Evidence[] {
  const out: Evidence[] = [];
  for (const [name, schema] of Object.entries(requestSchema.properties ?? {})) {
    if (Object.hasOwn(body, name) || !Object.hasOwn(schema, 'default')) continue;
    const field = snake(name);
    judged('DEF-004');
    if (!sameValue(schema.default, def[field])) {
      out.push({ clause: 'DEF-004', message: `${name} was omitted but ${field} is not its default`, expected: brief(schema.default), received: brief(def[field]), exchange: ex });
    }
  }
  return out;
}

/** An enum value as sent. */
interface EnumValueIn {
  label?: unknown;
  archived?: unknown;
}

/**
 * DEF-005 (and DEF-018 for added values): every input value comes back, matched by label,
 * with a string slug and archived equal to the input's archived flag (false when not given).
 * `pool` are the output values to match against (e.g. only the new ones after a PATCH).
 */
export function enumValueEvidence(clause: string, input: readonly EnumValueIn[], pool: readonly unknown[], ex: Exchange, what: string): Evidence[] {
  const out: Evidence[] = [];
  const unused = pool.filter(isObject);
  for (const [i, v] of input.entries()) {
    judged(clause);
    const want = v.archived === true;
    const sameLabel = unused.filter((o) => o.label === v.label);
    const match = sameLabel.find((o) => o.archived === want && typeof o.slug === 'string');
    if (match) {
      unused.splice(unused.indexOf(match), 1);
      continue;
    }
    const other = sameLabel[0];
    out.push({
      clause,
      message: other
        ? `${what} ${i} (${JSON.stringify(v.label)}) comes back with archived ${JSON.stringify(other.archived)} and slug ${JSON.stringify(other.slug)}`
        : `${what} ${i} (${JSON.stringify(v.label)}) is not among the returned enum values`,
      expected: `label ${JSON.stringify(v.label)}, a string slug, archived ${want}`,
      received: brief(other ?? pool),
      exchange: ex,
    });
  }
  return out;
}
