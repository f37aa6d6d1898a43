/**
 * A small, exact validator for request bodies. Lengths are counted in Unicode code points
 * (as JSON Schema's minLength/maxLength count them), numbers must be JSON numbers, and
 * every bound is inclusive unless named otherwise. A schema returns the normalised value
 * (defaults filled in) or records issues; {@link parseBody} throws one 400 listing them all
 * (an {@link InvalidRequest}, which a variant may answer 422). A variant may read more
 * leniently ({@link Reading}); the default reads strictly.
 */
import { InvalidRequest, type Issue } from './errors.ts';

/** Marker for "the property was absent" (distinct from null). */
export const ABSENT: unique symbol = Symbol('absent');

/**
 * How leniently a body is read (Choices.bodies and Choices.uuids; the default: all false). The
 * lenient readings are those of common stacks: pydantic's Optional fields and lax mode, Jackson
 * with Bean Validation, Python's uuid.UUID, Go's google/uuid.
 */
export interface Reading {
  /** JSON null in an optional property means the property was not given (unless the property takes null). */
  readonly nullIsAbsent: boolean;
  /** A numeral string ("0.9") is read as a number, "true" and "false" as booleans. */
  readonly coerceScalars: boolean;
  /** A uuid may also be written as 32 hexadecimal digits without hyphens (read as the hyphenated form). */
  readonly plainUuids: boolean;
}

/** The default's strict reading. */
export const STRICT: Reading = { nullIsAbsent: false, coerceScalars: false, plainUuids: false };

/**
 * Which bound of which field a generated bounds fault (faults.ts) moves by one, and which way:
 * `tighten` refuses the last valid value, `loosen` accepts the first invalid one. Undefined for
 * every bound no fault moves (always, but under the bounds family of the self-test).
 */
export type BoundShift = (path: string, bound: 'min' | 'max') => 'tighten' | 'loosen' | undefined;

/** A length or count bound as a fault moved it (by one), or as given. */
export function shifted(shift: BoundShift | undefined, path: string, bound: 'min' | 'max', value: number): number {
  const how = shift?.(path, bound);
  // Stryker disable next-line ConditionalExpression: → true only stops the generated bounds faults (inert with no fault on); → false moves every bound and is caught
  if (how === undefined) return value;
  // Stryker disable next-line all: reached only under a generated bounds fault (inert with no fault on; the self-test covers each)
  return value + ((how === 'tighten') === (bound === 'min') ? 1 : -1);
}

/**
 * A validator: checks `value` at `path`, pushes issues, returns the normalised value. `shift`
 * moves bounds under a generated bounds fault (BoundShift); composite schemas pass it on.
 */
export type Schema<T> = (value: unknown, path: string, issues: Issue[], reading?: Reading, shift?: BoundShift) => T;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PLAIN_UUID_RE = /^[0-9a-f]{32}$/i;
const NUMERAL_RE = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Number of Unicode code points in `s` (lone surrogates count as one). */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Stryker disable all: a character outside the Basic Multilingual Plane (a surrogate pair) counts as one code point or as two UTF-16 units, readings the document leaves open; the suite sends letters beyond ASCII that every reading counts as one (é: src/generators/strings.ts), and none of these
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    // Stryker restore all
    n++;
  }
  return n;
}

/** True for a uuid in its canonical 8-4-4-4-12 hex form (any case, any version). */
// Stryker disable next-line all: not used by the rule code under test (exported for the reference's tools)
export function isUuid(s: unknown): s is string {
  // Stryker disable next-line all: not used by the rule code under test (exported for the reference's tools)
  return typeof s === 'string' && UUID_RE.test(s);
}

/**
 * The lowercase 8-4-4-4-12 form of a uuid written in a form the reading accepts (any case; with
 * `plain`, also 32 hex digits without hyphens), else undefined.
 */
export function canonicalUuid(s: unknown, plain: boolean): string | undefined {
  // Stryker disable next-line ConditionalExpression: every caller passes a string (a body value is type-checked first)
  if (typeof s !== 'string') return undefined;
  if (UUID_RE.test(s)) return s.toLowerCase();
  // Stryker disable all: the lenient reading of a uuid without hyphens; refusing it is the strict reading, which the document allows too, and the suite never sends one
  if (!plain || !PLAIN_UUID_RE.test(s)) return undefined;
  const h = s.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  // Stryker restore all
}

/** An id as looked up: a uuid in the reading's forms as its lowercase hyphenated form, anything else lowercased. */
export function lookupId(raw: string, reading: Reading = STRICT): string {
  return canonicalUuid(raw, reading.plainUuids) ?? raw.toLowerCase();
}

/** True for an RFC 3339 date-time with real calendar and clock values. */
export function isDateTime(s: string): boolean {
  const m = DATE_TIME_RE.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo! < 1 || mo! > 12) return false;
  if (d! < 1 || d! > 31) return false;
  if (h! > 23 || mi! > 59) return false;
  // Stryker disable next-line EqualityOperator: a second 60 (a leap second) may be refused or accepted; the suite sends none
  if (se! > 60) return false;
  // Stryker disable all: an impossible day of a real month (2023-02-29, 2024-04-31): refusing it or rolling it over (JavaScript's Date) are both readings the suite accepts (src/generators/formats.ts)
  const leap = (y! % 4 === 0 && y! % 100 !== 0) || y! % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo! - 1]!;
  if (d! > days) return false;
  // Stryker restore all
  const offset = m[8]!;
  if (offset === 'Z') return true;
  // Stryker disable next-line all: a lower-case z may be accepted or refused (RFC 3339 leaves it to the application); the suite sends none
  if (offset === 'z') return true;
  // Stryker disable next-line EqualityOperator: an offset of 23 hours may be refused (java.time allows ±18:00); the suite sends none
  if (Number(m[10]) > 23) return false;
  return Number(m[11]) <= 59;
}

// Stryker disable all: names a value's type in an issue's message (free: part 7)
function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
// Stryker restore all

/** A string with code-point bounds and an optional pattern or format. */
export function str(o: { min?: number; max?: number; pattern?: RegExp; format?: 'uuid' | 'date-time'; patternName?: string } = {}): Schema<string> {
  return (v, path, issues, reading = STRICT, shift) => {
    if (typeof v !== 'string') {
      issues.push({ path, message: `must be a string, got ${kind(v)}` });
      // Stryker disable next-line StringLiteral: after an issue the body is refused; the value is never used
      return '';
    }
    // Stryker disable next-line ConditionalExpression,LogicalOperator: → true only counts a string no bound will read
    if (o.min !== undefined || o.max !== undefined) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut: the empty string has 0 code points either way
      const n = v.length === 0 ? 0 : codePoints(v);
      // Stryker disable next-line ConditionalExpression: → false passes an absent bound on, and an absent bound stays absent
      const min = o.min === undefined ? undefined : shifted(shift, path, 'min', o.min);
      // Stryker disable next-line ConditionalExpression: → false passes an absent bound on, and an absent bound stays absent
      const max = o.max === undefined ? undefined : shifted(shift, path, 'max', o.max);
      // Stryker disable next-line ConditionalExpression: → true compares with an absent bound, which is false
      if (min !== undefined && n < min) issues.push({ path, message: `must have at least ${min} characters (has ${n})` });
      // Stryker disable next-line ConditionalExpression: → true compares with an absent bound, which is false
      if (max !== undefined && n > max) issues.push({ path, message: `must have at most ${max} characters (has ${n})` });
    }
    if (o.pattern && !o.pattern.test(v)) issues.push({ path, message: `must match ${o.patternName ?? String(o.pattern)}` });
    if (o.format === 'uuid') {
      const id = canonicalUuid(v, reading.plainUuids);
      if (id === undefined) issues.push({ path, message: 'must be a uuid' });
      // Stryker disable next-line LogicalOperator,MethodExpression: the fallback serves a refused value only, and a hyphenated uuid lowercased is its canonical form
      return id ?? v.toLowerCase();
    }
    if (o.format === 'date-time' && !isDateTime(v)) issues.push({ path, message: 'must be an RFC 3339 date-time' });
    return v;
  };
}

/** Under an inclusive minimum (or at or under an exclusive one), as a generated bounds fault may move it. */
function under(v: number, min: number, exclusive: boolean, how: 'tighten' | 'loosen' | undefined, step: number): boolean {
  // Stryker disable next-line ConditionalExpression: → true only stops the generated bounds faults (inert with no fault on); → false loosens every bound and is caught
  if (how === undefined) return exclusive ? v <= min : v < min;
  // Stryker disable next-line all: reached only under a generated bounds fault (inert with no fault on; the self-test covers each): tighten refuses the bound, loosen lets one step past it through
  return how === 'tighten' ? (exclusive ? v <= min + step : v <= min) : exclusive ? v < min : v < min - step;
}

/** Over an inclusive maximum, as a generated bounds fault may move it. */
function over(v: number, max: number, how: 'tighten' | 'loosen' | undefined, step: number): boolean {
  // Stryker disable next-line ConditionalExpression: → true only stops the generated bounds faults (inert with no fault on); → false loosens the bound and is caught
  if (how === undefined) return v > max;
  // Stryker disable next-line all: reached only under a generated bounds fault (inert with no fault on; the self-test covers each)
  return how === 'tighten' ? v >= max : v > max + step;
}

/** A JSON number (integer when `int`), with inclusive or exclusive bounds. */
export function num(o: { min?: number; max?: number; exclusiveMin?: number; int?: boolean } = {}): Schema<number> {
  return (raw, path, issues, reading = STRICT, shift) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: the lenient variant's reading of a numeral string; not coercing is the strict reading, which the document allows as well
    const v = reading.coerceScalars && typeof raw === 'string' && NUMERAL_RE.test(raw) ? Number(raw) : raw;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a value that is not a number is never finite, so the type test is implied by the second
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      issues.push({ path, message: `must be a ${o.int ? 'integer' : 'number'}, got ${kind(v)}` });
      return 0;
    }
    // Stryker disable next-line all: a fractional number for an integer may be refused or read (Jackson truncates it by default); the suite sends none (src/generators/violations.ts)
    if (o.int && !Number.isInteger(v)) issues.push({ path, message: 'must be an integer' });
    const step = o.int ? 1 : 0.001;
    const low = shift?.(path, 'min');
    const high = shift?.(path, 'max');
    // Stryker disable next-line ConditionalExpression: → true compares with an absent bound, which is false
    if (o.min !== undefined && under(v, o.min, false, low, step)) issues.push({ path, message: `must be at least ${o.min}` });
    // Stryker disable next-line ConditionalExpression: → true compares with an absent bound, which is false
    if (o.max !== undefined && over(v, o.max, high, step)) issues.push({ path, message: `must be at most ${o.max}` });
    // Stryker disable next-line ConditionalExpression: → true compares with an absent bound, which is false
    if (o.exclusiveMin !== undefined && under(v, o.exclusiveMin, true, low, step)) issues.push({ path, message: `must be greater than ${o.exclusiveMin}` });
    return v;
  };
}

/** A JSON boolean. */
export const bool =
  (): Schema<boolean> =>
  (raw, path, issues, reading = STRICT) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral,EqualityOperator: the lenient variant's reading of "true" and "false"; not coercing is the strict reading, which the document allows as well
    const v = reading.coerceScalars && (raw === 'true' || raw === 'false') ? raw === 'true' : raw;
    if (typeof v !== 'boolean') issues.push({ path, message: `must be a boolean, got ${kind(v)}` });
    return v === true;
  };

/** One of the listed strings. */
export function oneOf<const T extends string>(values: readonly T[]): Schema<T> {
  const set = new Set<string>(values);
  return (v, path, issues) => {
    // Stryker disable next-line ConditionalExpression: a Set of strings holds no other type, so the type test is implied by the second
    if (typeof v !== 'string' || !set.has(v)) issues.push({ path, message: `must be one of ${values.join(', ')}` });
    return v as T;
  };
}

/** The value itself, or null. */
export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  return (v, path, issues, reading, shift) => (v === null ? null : inner(v, path, issues, reading, shift));
}

/** Any JSON value (for free-form fields such as a change's new value). */
export const any = (): Schema<unknown> => (v) => v;

/** An array with item-count bounds. */
export function arr<T>(item: Schema<T>, o: { min?: number; max?: number; unique?: boolean } = {}): Schema<T[]> {
  return (v, path, issues, reading, shift) => {
    if (!Array.isArray(v)) {
      issues.push({ path, message: `must be an array, got ${kind(v)}` });
      // Stryker disable next-line ArrayDeclaration: after an issue the body is refused; the value is never used
      return [];
    }
    // Stryker disable next-line ConditionalExpression: → false passes an absent bound on, and an absent bound stays absent
    const min = o.min === undefined ? undefined : shifted(shift, path, 'min', o.min);
    // Stryker disable next-line ConditionalExpression: → false passes an absent bound on, and an absent bound stays absent
    const max = o.max === undefined ? undefined : shifted(shift, path, 'max', o.max);
    // Stryker disable next-line ConditionalExpression: → true compares with an absent bound, which is false
    if (min !== undefined && v.length < min) issues.push({ path, message: `must have at least ${min} items (has ${v.length})` });
    // Stryker disable next-line ConditionalExpression: → true compares with an absent bound, which is false
    if (max !== undefined && v.length > max) {
      issues.push({ path, message: `must have at most ${max} items (has ${v.length})` });
      // Stryker disable next-line all: a guard against validating a huge array's items one by one; the body is refused either way
      if (v.length > 10_000) return [];
    }
    // Stryker disable next-line StringLiteral: an item's path names it in an issue only (free: part 7)
    const out = v.map((x, i) => item(x, `${path}[${i}]`, issues, reading, shift));
    // Stryker disable next-line all: the document does not ask for distinct items; accepting repeats is conformant (the suite sends none)
    if (o.unique && new Set(out.map((x) => JSON.stringify(x))).size !== out.length) issues.push({ path, message: 'items must be unique' });
    return out;
  };
}

/** A property of an object schema: required, optional, or optional with a default. */
export type Prop<T> = { kind: 'req'; schema: Schema<T> } | { kind: 'opt'; schema: Schema<T> } | { kind: 'def'; schema: Schema<T>; default: () => T };
export const req = <T>(schema: Schema<T>): { kind: 'req'; schema: Schema<T> } => ({ kind: 'req', schema });
export function opt<T>(schema: Schema<T>): { kind: 'opt'; schema: Schema<T> };
export function opt<T>(schema: Schema<T>, dflt: () => T): { kind: 'def'; schema: Schema<T>; default: () => T };
export function opt<T>(schema: Schema<T>, dflt?: () => T): Prop<T> {
  return dflt ? { kind: 'def', schema, default: dflt } : { kind: 'opt', schema };
}

type Out<P extends Record<string, Prop<any>>> = {
  [K in keyof P]: P[K] extends { kind: 'opt'; schema: Schema<infer T> } ? T | undefined : P[K] extends { schema: Schema<infer T> } ? T : never;
};

/**
 * A JSON object. `strict` refuses unknown properties (additionalProperties false);
 * otherwise unknown properties are ignored and dropped. With the reading's `nullIsAbsent`, a
 * null in an optional property the schema does not take null for counts as absent.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function obj<P extends Record<string, Prop<any>>>(props: P, o: { strict?: boolean } = {}): Schema<Out<P>> {
  const names = Object.keys(props);
  return (v, path, issues, reading = STRICT, shift) => {
    const out: Record<string, unknown> = {};
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a scalar or an array also fails as missing the required property every object schema of the API has
    const notRecord = typeof v !== 'object' || Array.isArray(v);
    if (v === null || notRecord) {
      issues.push({ path, message: `must be an object, got ${kind(v)}` });
      return out as Out<P>;
    }
    const rec = v as Record<string, unknown>;
    if (o.strict) {
      for (const k of Object.keys(rec)) if (!Object.hasOwn(props, k)) issues.push({ path: `${path}.${k}`, message: 'is not an accepted property' });
    }
    for (const name of names) {
      const p = props[name]!;
      // Stryker disable next-line LogicalOperator,ConditionalExpression: a parsed JSON body holds no undefined: an own property is never undefined
      const absent = !Object.hasOwn(rec, name) || rec[name] === undefined;
      if (absent || nullAsAbsent(p, rec[name], reading)) {
        if (p.kind === 'req') issues.push({ path: `${path}.${name}`, message: 'is required' });
        else if (p.kind === 'def') out[name] = p.default();
        continue;
      }
      // Stryker disable next-line StringLiteral: a property's path names it in an issue only (free: part 7)
      out[name] = p.schema(rec[name], `${path}.${name}`, issues, reading, shift);
    }
    return out as Out<P>;
  };
}

/**
 * The lenient variant's reading of null in an optional property that does not take null: as
 * if the property were absent. The strict reading (refusing it) is conformant too, and so
 * are mutants that turn this reading off.
 */
// Stryker disable all: the lenient variant's null-as-absent reading; the strict reading the mutants fall back to is conformant as well
function nullAsAbsent(p: Prop<unknown>, value: unknown, reading: Reading): boolean {
  return value === null && p.kind !== 'req' && reading.nullIsAbsent && !takesNull(p.schema, reading);
}

/** True when the schema accepts null as a value of its own (e.g. "boolean or null"). */
function takesNull(schema: Schema<unknown>, reading: Reading): boolean {
  const found: Issue[] = [];
  schema(null, '', found, reading);
  return found.length === 0;
}
// Stryker restore all

/**
 * What named faults change in a route's validation: a filter of issues to let through, and the
 * bounds a generated bounds fault moves. Undefined without such faults.
 */
export type Relax = (((issue: Issue) => boolean) & { readonly bounds?: BoundShift }) | undefined;

/**
 * Runs `schema` on a request body, as the variant reads it (default: strictly), and throws a
 * 400 listing every issue found (an invalid request: a variant may answer it 422).
 */
// Stryker disable next-line StringLiteral: the root only prefixes issue paths (free: part 7)
export function parseBody<T>(schema: Schema<T>, value: unknown, root = 'body', relax?: Relax, reading: Reading = STRICT): T {
  const found: Issue[] = [];
  const out = schema(value, root, found, reading, relax?.bounds);
  // Stryker disable next-line all: relax is set only under a fault (inert with no fault on)
  const issues = relax ? found.filter((i) => !relax(i)) : found;
  // Stryker disable next-line StringLiteral,MethodExpression: the message and the issues listed in data are free (part 7)
  if (issues.length > 0) throw new InvalidRequest(`${issues[0]!.path} ${issues[0]!.message}`, issues.slice(0, 50));
  return out;
}
