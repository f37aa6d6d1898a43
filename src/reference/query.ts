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
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut: the empty query splits into one empty pair, skipped below
  if (raw === '') return [];
  const out: [string, string][] = [];
  for (const part of raw.split('&')) {
    // Stryker disable next-line all: an empty pair (a=1&&b=2) names no parameter: skipping it or reading an unnamed one (ignored, or refused by a variant) are both left open; the suite sends none
    if (part === '') continue;
    const eq = part.indexOf('=');
    // Stryker disable next-line all: a bare name without "=" (?includeArchived) or an empty name (?=x): reading it as empty or ignoring it are both left open; the suite sends none
    const k = eq < 0 ? part : part.slice(0, eq);
    // Stryker disable next-line all: a bare name without "=" (?includeArchived) or an empty name (?=x): reading it as empty or ignoring it are both left open; the suite sends none
    const v = eq < 0 ? '' : part.slice(eq + 1);
    // Stryker disable BlockStatement: malformed percent-encoding: refusing it or reading it leniently are both left open; the suite sends none
    try {
      // Stryker disable next-line Regex,StringLiteral: "+" as a space (form encoding) or as itself (RFC 3986): both readings are left open; the suite's queries hold no "+"
      out.push([decodeURIComponent(k.replace(/\+/g, ' ')), decodeURIComponent(v.replace(/\+/g, ' '))]);
    } catch {
      throw badRequest('The query string has malformed percent-encoding');
    }
    // Stryker restore BlockStatement
  }
  return out;
}

/** The single value of a query parameter; repeating a scalar parameter is a 400. */
export function single(q: Query, name: string): string | undefined {
  let found: string | undefined;
  for (const [k, v] of q) {
    if (k !== name) continue;
    // Stryker disable next-line ConditionalExpression: a repeated scalar parameter: refusing it, or the first or the last value winning, are all left open; the suite sends none
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
// Stryker disable next-line StringLiteral: every caller passes the variant's forms
export function boolParam(q: Query, name: string, forms: Choices['queryBooleans'] = 'true-false'): boolean | undefined {
  const v = single(q, name);
  if (v === undefined) return undefined;
  // Stryker disable next-line all: which spellings of a boolean a variant reads (true/false only, or also yes/no, on/off, 1/0): both pass, since the suite sends only true and false as valid (clause PAGE-009's reading)
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
// Stryker disable next-line StringLiteral: every caller passes the variant's forms
export function arrayParam(q: Query, name: string, forms: Choices['paging']['moduleKeysForms'] = 'all'): string[] | undefined {
  const re = new RegExp(`^${name}(\\[\\d*\\])?$`);
  // Stryker disable next-line all: which wire forms of moduleKeys a variant reads: a form read, refused, ignored or read as its last value all pass, so long as one form filters (clause DEF-023's reading of the deepObject form)
  if (forms === 'repeated' && q.some(([k]) => k !== name && re.test(k))) throw invalid(`query.${name}: repeat the parameter (${name}=a&${name}=b); bracketed names are not accepted`);
  // Stryker disable all: which wire forms of moduleKeys a variant reads: a form read, refused, ignored or read as its last value all pass, so long as one form filters (clause DEF-023's reading of the deepObject form)
  if (forms === 'brackets-last-wins') {
    const bracketed = q.filter(([k]) => k !== name && re.test(k)).map(([, v]) => v);
    if (bracketed.length > 0) return bracketed;
    const plain = q.filter(([k]) => k === name);
    return plain.length > 0 ? [plain[plain.length - 1]![1]] : undefined;
  }
  // Stryker restore all
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
  // Stryker disable next-line ConditionalExpression,EqualityOperator,OptionalChaining,StringLiteral: the plain-uuid reading of a variant; the suite's cursors are the target's own nextCursor values
  const plain = choices?.uuids === 'hyphenated-or-plain';
  // Stryker disable next-line ConditionalExpression: → false reads an absent cursor as absent all the same (canonicalUuid of undefined)
  const cursor = raw === undefined ? undefined : canonicalUuid(raw, plain);
  if (raw !== undefined && cursor === undefined && !faults.has('cursor-unchecked')) throw invalid('query.cursor must be a uuid (a nextCursor value)');
  return { limit, cursor: cursor ?? null };
}

/** Ascending by id. */
function byId(a: { id: string }, b: { id: string }): number {
  // Stryker disable next-line EqualityOperator: ids are distinct, so < and <= agree
  if (a.id < b.id) return -1;
  // Stryker disable next-line all: ids are distinct, and V8's sort reads only whether a comparison is negative, so 1 and 0 agree here
  return a.id > b.id ? 1 : 0;
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
  const sorted = [...records].sort(byId);
  const cursor = p.cursor;
  // Stryker disable next-line ConditionalExpression,OptionalChaining,StringLiteral: the inclusive-cursor reading of a variant; the exclusive reading the mutants fall back to is conformant too
  const inclusive = choices?.paging.cursor === 'inclusive';
  // Stryker disable next-line all: only under the fault unknown-cursor-restarts (inert with no fault on)
  const restart = cursor !== null && faults.has('unknown-cursor-restarts') && !sorted.some((r) => r.id === cursor);
  const after = cursor === null || restart ? sorted : sorted.filter((r) => (faults.has('page-repeats-boundary') || inclusive ? r.id >= cursor : r.id > cursor));
  // Stryker disable next-line MethodExpression: with no fault on both operands are the limit itself
  const limit = Math.min(p.limit, faults.has('page-size-capped-100') ? 100 : faults.has('page-size-capped-199') ? 199 : p.limit);
  // A limit of 0 (only under a fault that lets it through) is an empty last page.
  // Stryker disable next-line all: a limit of 0 or less passes only under a fault (inert with no fault on)
  if (limit <= 0) return { items: [], nextCursor: null };
  const items = after.slice(0, limit);
  // Stryker disable next-line EqualityOperator: with >= a full last page gets a cursor to an empty page: the trailing-cursor reading, which passes too
  const more = after.length > limit;
  // Stryker disable next-line ConditionalExpression,OptionalChaining: the trailing-cursor reading of a variant; the mutants fall back to the plain reading, which passes too
  let nextCursor = more || (choices?.paging.trailingCursor && items.length > 0) ? items[items.length - 1]!.id : null;
  if (more && inclusive) nextCursor = after[limit]!.id;
  if (more && faults.has('page-skips-item')) nextCursor = after[limit]!.id;
  if (faults.has('page-reversed-within-page')) items.reverse();
  return { items, nextCursor };
}
