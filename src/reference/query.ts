/**
 * Query-string parsing and the collection paging rules (seed 2.3 and part 8): limit 1..200
 * (default 50), cursor a uuid boundary, items ascending by id, filters applied before the limit.
 */
import type { Choices } from './choices.ts';
import { badRequest, invalid } from './errors.ts';
import type { FaultSet } from './faults.ts';
import { canonicalUuid, shifted, type BoundShift } from './validate.ts';

/** Decoded query pairs in order; repeated names keep every value. */
export type Query = readonly (readonly [string, string])[];

/** Decodes a raw query string; malformed percent-encoding is a 400. */
export function parseQuery(raw: string): Query {
  if (raw === '') return [];
  const out: [string, string][] = [];
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const k = eq < 0 ? part : part.slice(0, eq);
    const v = eq < 0 ? '' : part.slice(eq + 1);
    try {
      out.push([decodeURIComponent(k.replace(/\+/g, ' ')), decodeURIComponent(v.replace(/\+/g, ' '))]);
    } catch {
      throw badRequest('The query string has malformed percent-encoding');
    }
  }
  return out;
}

/** The single value of a query parameter; repeating a scalar parameter is a 400. */
export function single(q: Query, name: string): string | undefined {
  let found: string | undefined;
  for (const [k, v] of q) {
    if (k !== name) continue;
    if (found !== undefined) throw invalid(`query.${name} must be given once`);
    found = v;
  }
  return found;
}

const LENIENT_TRUE = new Set(['true', 'yes', 'on', '1']);
const LENIENT_FALSE = new Set(['false', 'no', 'off', '0']);

/**
 * An optional boolean query parameter: "true" or "false", or (a variant's choice) also yes/no,
 * on/off, 1/0, in any case.
 */
export function boolParam(q: Query, name: string, forms: Choices['queryBooleans'] = 'true-false'): boolean | undefined {
  const v = single(q, name);
  if (v === undefined) return undefined;
  if (forms === 'lenient') {
    const lower = v.toLowerCase();
    if (LENIENT_TRUE.has(lower)) return true;
    if (LENIENT_FALSE.has(lower)) return false;
    throw invalid(`query.${name} must be a boolean (true, false, yes, no, on, off, 1 or 0)`);
  }
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalid(`query.${name} must be true or false`);
}

/**
 * Values of an exploded array parameter. Accepted wire forms: `name=a&name=b`,
 * `name[]=a&name[]=b` and `name[0]=a&name[1]=b` (any mix); with `forms` 'repeated' only the
 * first, and a bracketed name is a 400; with 'brackets-last-wins' (Rails, PHP) the bracketed
 * forms, and a plain name is a scalar whose last value wins (ignored when brackets are given).
 */
export function arrayParam(q: Query, name: string, forms: Choices['paging']['moduleKeysForms'] = 'all'): string[] | undefined {
  const re = new RegExp(`^${name}(\\[\\d*\\])?$`);
  if (forms === 'repeated' && q.some(([k]) => k !== name && re.test(k))) throw invalid(`query.${name}: repeat the parameter (${name}=a&${name}=b); bracketed names are not accepted`);
  if (forms === 'brackets-last-wins') {
    const bracketed = q.filter(([k]) => k !== name && re.test(k)).map(([, v]) => v);
    if (bracketed.length > 0) return bracketed;
    const plain = q.filter(([k]) => k === name);
    return plain.length > 0 ? [plain[plain.length - 1]![1]] : undefined;
  }
  const values = q.filter(([k]) => re.test(k)).map(([, v]) => v);
  return values.length > 0 ? values : undefined;
}

/** Parsed paging parameters. */
export interface PageParams {
  limit: number;
  cursor: string | null;
}

/** Reads and validates `limit` and `cursor` (a uuid in the forms the variant reads). */
export function pageParams(q: Query, faults: FaultSet, choices?: Pick<Choices, 'uuids'>, shift?: BoundShift): PageParams {
  const rawLimit = single(q, 'limit');
  let limit = faults.has('default-page-size-20') ? 20 : 50;
  // The range as a generated bounds fault may move it (query.limit).
  const [min, max] = [shifted(shift, 'query.limit', 'min', 1), shifted(shift, 'query.limit', 'max', 200)];
  if (rawLimit !== undefined) {
    const n = /^[0-9]{1,4}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (faults.has('limit-unchecked')) limit = Number.isNaN(n) ? limit : Math.min(200, Math.max(1, n));
    else if (Number.isNaN(n) || n < min || n > max) throw invalid('query.limit must be an integer from 1 to 200');
    else limit = n;
    if (limit === 1 && faults.has('limit-one-refused')) throw badRequest('query.limit must be at least 2');
  }
  const raw = single(q, 'cursor');
  const cursor = raw === undefined ? undefined : canonicalUuid(raw, choices?.uuids === 'hyphenated-or-plain');
  if (raw !== undefined && cursor === undefined && !faults.has('cursor-unchecked')) throw invalid('query.cursor must be a uuid (a nextCursor value)');
  return { limit, cursor: cursor ?? null };
}

/** The collection envelope of seed 2.3. */
export interface Envelope<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * One page of already-filtered records: ascending by id, strictly after the cursor, at most
 * `limit` items; nextCursor is the last id when more records follow, else null. With a
 * trailing cursor (a variant's choice) it is the last id of every non-empty page, so a walk
 * ends with an empty page. With an inclusive cursor (a variant's choice) the page starts at
 * the cursor and nextCursor is the id of the next page's first item.
 */
export function page<T extends { id: string }>(records: Iterable<T>, p: PageParams, faults: FaultSet, choices?: Choices): Envelope<T> {
  const sorted = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const cursor = p.cursor;
  const inclusive = choices?.paging.cursor === 'inclusive';
  const restart = cursor !== null && faults.has('unknown-cursor-restarts') && !sorted.some((r) => r.id === cursor);
  const after = cursor === null || restart ? sorted : sorted.filter((r) => (faults.has('page-repeats-boundary') || inclusive ? r.id >= cursor : r.id > cursor));
  const limit = Math.min(p.limit, faults.has('page-size-capped-100') ? 100 : faults.has('page-size-capped-199') ? 199 : p.limit);
  // A limit of 0 (only under a fault that lets it through) is an empty last page.
  if (limit <= 0) return { items: [], nextCursor: null };
  const items = after.slice(0, limit);
  const more = after.length > limit;
  let nextCursor = more || (choices?.paging.trailingCursor && items.length > 0) ? items[items.length - 1]!.id : null;
  if (more && inclusive) nextCursor = after[limit]!.id;
  if (more && faults.has('page-skips-item')) nextCursor = after[limit]!.id;
  if (faults.has('page-reversed-within-page')) items.reverse();
  return { items, nextCursor };
}
