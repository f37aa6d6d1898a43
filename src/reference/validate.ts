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
  if (how === undefined) return value;
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
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** True for a uuid in its canonical 8-4-4-4-12 hex form (any case, any version). */
export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID_RE.test(s);
}

/**
 * The lowercase 8-4-4-4-12 form of a uuid written in a form the reading accepts (any case; with
 * `plain`, also 32 hex digits without hyphens), else undefined.
 */
export function canonicalUuid(s: unknown, plain: boolean): string | undefined {
  if (typeof s !== 'string') return undefined;
  if (UUID_RE.test(s)) return s.toLowerCase();
  if (!plain || !PLAIN_UUID_RE.test(s)) return undefined;
  const h = s.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
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
  if (mo! < 1 || mo! > 12 || d! < 1 || h! > 23 || mi! > 59 || se! > 60) return false;
  const leap = (y! % 4 === 0 && y! % 100 !== 0) || y! % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo! - 1]!;
  if (d! > days) return false;
  if (m[8] && m[8] !== 'Z' && m[8] !== 'z' && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  return true;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** A string with code-point bounds and an optional pattern or format. */
export function str(o: { min?: number; max?: number; pattern?: RegExp; format?: 'uuid' | 'date-time'; patternName?: string } = {}): Schema<string> {
  return (v, path, issues, reading = STRICT, shift) => {
    if (typeof v !== 'string') {
      issues.push({ path, message: `must be a string, got ${kind(v)}` });
      return '';
    }
    if (o.min !== undefined || o.max !== undefined) {
      const n = v.length === 0 ? 0 : codePoints(v);
      const min = o.min === undefined ? undefined : shifted(shift, path, 'min', o.min);
      const max = o.max === undefined ? undefined : shifted(shift, path, 'max', o.max);
      if (min !== undefined && n < min) issues.push({ path, message: `must have at least ${min} characters (has ${n})` });
      if (max !== undefined && n > max) issues.push({ path, message: `must have at most ${max} characters (has ${n})` });
    }
    if (o.pattern && !o.pattern.test(v)) issues.push({ path, message: `must match ${o.patternName ?? String(o.pattern)}` });
    if (o.format === 'uuid') {
      const id = canonicalUuid(v, reading.plainUuids);
      if (id === undefined) issues.push({ path, message: 'must be a uuid' });
      return id ?? v.toLowerCase();
    }
    if (o.format === 'date-time' && !isDateTime(v)) issues.push({ path, message: 'must be an RFC 3339 date-time' });
    return v;
  };
}

/** A JSON number (integer when `int`), with inclusive or exclusive bounds. */
export function num(o: { min?: number; max?: number; exclusiveMin?: number; int?: boolean } = {}): Schema<number> {
  return (raw, path, issues, reading = STRICT, shift) => {
    const v = reading.coerceScalars && typeof raw === 'string' && NUMERAL_RE.test(raw) ? Number(raw) : raw;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      issues.push({ path, message: `must be a ${o.int ? 'integer' : 'number'}, got ${kind(v)}` });
      return 0;
    }
    if (o.int && !Number.isInteger(v)) issues.push({ path, message: 'must be an integer' });
    // Under a bounds fault: tighten makes the bound exclusive, loosen lets one step past it
    // through (1 for an integer, a thousandth otherwise).
    const step = o.int ? 1 : 0.001;
    const low = shift?.(path, 'min');
    const high = shift?.(path, 'max');
    if (o.min !== undefined && (low === 'tighten' ? v <= o.min : low === 'loosen' ? v < o.min - step : v < o.min)) issues.push({ path, message: `must be at least ${o.min}` });
    if (o.max !== undefined && (high === 'tighten' ? v >= o.max : high === 'loosen' ? v > o.max + step : v > o.max)) issues.push({ path, message: `must be at most ${o.max}` });
    if (o.exclusiveMin !== undefined && (low === 'tighten' ? v <= o.exclusiveMin + step : low === 'loosen' ? v < o.exclusiveMin : v <= o.exclusiveMin))
      issues.push({ path, message: `must be greater than ${o.exclusiveMin}` });
    return v;
  };
}

/** A JSON boolean. */
export const bool =
  (): Schema<boolean> =>
  (raw, path, issues, reading = STRICT) => {
    const v = reading.coerceScalars && (raw === 'true' || raw === 'false') ? raw === 'true' : raw;
    if (typeof v !== 'boolean') issues.push({ path, message: `must be a boolean, got ${kind(v)}` });
    return v === true;
  };

/** One of the listed strings. */
export function oneOf<const T extends string>(values: readonly T[]): Schema<T> {
  const set = new Set<string>(values);
  return (v, path, issues) => {
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
      return [];
    }
    const min = o.min === undefined ? undefined : shifted(shift, path, 'min', o.min);
    const max = o.max === undefined ? undefined : shifted(shift, path, 'max', o.max);
    if (min !== undefined && v.length < min) issues.push({ path, message: `must have at least ${min} items (has ${v.length})` });
    if (max !== undefined && v.length > max) {
      issues.push({ path, message: `must have at most ${max} items (has ${v.length})` });
      if (v.length > 10_000) return [];
    }
    const out = v.map((x, i) => item(x, `${path}[${i}]`, issues, reading, shift));
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
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      issues.push({ path, message: `must be an object, got ${kind(v)}` });
      return out as Out<P>;
    }
    const rec = v as Record<string, unknown>;
    if (o.strict) {
      for (const k of Object.keys(rec)) if (!Object.hasOwn(props, k)) issues.push({ path: `${path}.${k}`, message: 'is not an accepted property' });
    }
    for (const name of names) {
      const p = props[name]!;
      if (!Object.hasOwn(rec, name) || rec[name] === undefined || (rec[name] === null && p.kind !== 'req' && reading.nullIsAbsent && !takesNull(p.schema, reading))) {
        if (p.kind === 'req') issues.push({ path: `${path}.${name}`, message: 'is required' });
        else if (p.kind === 'def') out[name] = p.default();
        continue;
      }
      out[name] = p.schema(rec[name], `${path}.${name}`, issues, reading, shift);
    }
    return out as Out<P>;
  };
}

/** True when the schema accepts null as a value of its own (e.g. "boolean or null"). */
function takesNull(schema: Schema<unknown>, reading: Reading): boolean {
  const found: Issue[] = [];
  schema(null, '', found, reading);
  return found.length === 0;
}

/**
 * What named faults change in a route's validation: a filter of issues to let through, and the
 * bounds a generated bounds fault moves. Undefined without such faults.
 */
export type Relax = (((issue: Issue) => boolean) & { readonly bounds?: BoundShift }) | undefined;

/**
 * Runs `schema` on a request body, as the variant reads it (default: strictly), and throws a
 * 400 listing every issue found (an invalid request: a variant may answer it 422).
 */
export function parseBody<T>(schema: Schema<T>, value: unknown, root = 'body', relax?: Relax, reading: Reading = STRICT): T {
  const found: Issue[] = [];
  const out = schema(value, root, found, reading, relax?.bounds);
  const issues = relax ? found.filter((i) => !relax(i)) : found;
  if (issues.length > 0) throw new InvalidRequest(`${issues[0]!.path} ${issues[0]!.message}`, issues.slice(0, 50));
  return out;
}
