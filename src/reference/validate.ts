/**
 * A small, exact validator for request bodies. Lengths are counted in Unicode code points
 * (as JSON Schema's minLength/maxLength count them), numbers must be JSON numbers, and
 * every bound is inclusive unless named otherwise. A schema returns the normalised value
 * (defaults filled in) or records issues; {@link parseBody} throws one 400 listing them all.
 */
import { badRequest, type Issue } from './errors.ts';

/** Marker for "the property was absent" (distinct from null). */
export const ABSENT: unique symbol = Symbol('absent');

/** A validator: checks `value` at `path`, pushes issues, returns the normalised value. */
export type Schema<T> = (value: unknown, path: string, issues: Issue[]) => T;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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
  return (v, path, issues) => {
    if (typeof v !== 'string') {
      issues.push({ path, message: `must be a string, got ${kind(v)}` });
      return '';
    }
    if (o.min !== undefined || o.max !== undefined) {
      const n = v.length === 0 ? 0 : codePoints(v);
      if (o.min !== undefined && n < o.min) issues.push({ path, message: `must have at least ${o.min} characters (has ${n})` });
      if (o.max !== undefined && n > o.max) issues.push({ path, message: `must have at most ${o.max} characters (has ${n})` });
    }
    if (o.pattern && !o.pattern.test(v)) issues.push({ path, message: `must match ${o.patternName ?? String(o.pattern)}` });
    if (o.format === 'uuid' && !UUID_RE.test(v)) issues.push({ path, message: 'must be a uuid' });
    if (o.format === 'date-time' && !isDateTime(v)) issues.push({ path, message: 'must be an RFC 3339 date-time' });
    return o.format === 'uuid' ? v.toLowerCase() : v;
  };
}

/** A JSON number (integer when `int`), with inclusive or exclusive bounds. */
export function num(o: { min?: number; max?: number; exclusiveMin?: number; int?: boolean } = {}): Schema<number> {
  return (v, path, issues) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      issues.push({ path, message: `must be a ${o.int ? 'integer' : 'number'}, got ${kind(v)}` });
      return 0;
    }
    if (o.int && !Number.isInteger(v)) issues.push({ path, message: 'must be an integer' });
    if (o.min !== undefined && v < o.min) issues.push({ path, message: `must be at least ${o.min}` });
    if (o.max !== undefined && v > o.max) issues.push({ path, message: `must be at most ${o.max}` });
    if (o.exclusiveMin !== undefined && v <= o.exclusiveMin) issues.push({ path, message: `must be greater than ${o.exclusiveMin}` });
    return v;
  };
}

/** A JSON boolean. */
export const bool = (): Schema<boolean> => (v, path, issues) => {
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
  return (v, path, issues) => (v === null ? null : inner(v, path, issues));
}

/** Any JSON value (for free-form fields such as a change's new value). */
export const any = (): Schema<unknown> => (v) => v;

/** An array with item-count bounds. */
export function arr<T>(item: Schema<T>, o: { min?: number; max?: number; unique?: boolean } = {}): Schema<T[]> {
  return (v, path, issues) => {
    if (!Array.isArray(v)) {
      issues.push({ path, message: `must be an array, got ${kind(v)}` });
      return [];
    }
    if (o.min !== undefined && v.length < o.min) issues.push({ path, message: `must have at least ${o.min} items (has ${v.length})` });
    if (o.max !== undefined && v.length > o.max) {
      issues.push({ path, message: `must have at most ${o.max} items (has ${v.length})` });
      if (v.length > 10_000) return [];
    }
    const out = v.map((x, i) => item(x, `${path}[${i}]`, issues));
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
 * otherwise unknown properties are ignored and dropped.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function obj<P extends Record<string, Prop<any>>>(props: P, o: { strict?: boolean } = {}): Schema<Out<P>> {
  const names = Object.keys(props);
  return (v, path, issues) => {
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
      if (!Object.hasOwn(rec, name) || rec[name] === undefined) {
        if (p.kind === 'req') issues.push({ path: `${path}.${name}`, message: 'is required' });
        else if (p.kind === 'def') out[name] = p.default();
        continue;
      }
      out[name] = p.schema(rec[name], `${path}.${name}`, issues);
    }
    return out as Out<P>;
  };
}

/** A filter of issues to let through (only named faults set one). */
export type Relax = ((issue: Issue) => boolean) | undefined;

/** Runs `schema` on a request body and throws a 400 listing every issue found. */
export function parseBody<T>(schema: Schema<T>, value: unknown, root = 'body', relax?: Relax): T {
  const found: Issue[] = [];
  const out = schema(value, root, found);
  const issues = relax ? found.filter((i) => !relax(i)) : found;
  if (issues.length > 0) throw badRequest(`${issues[0]!.path} ${issues[0]!.message}`, issues.slice(0, 50));
  return out;
}
