/**
 * Whether one answer of a collection listing agrees with two others of the same request sent
 * just before and just after it, in a workspace others may be writing to meanwhile. Only what
 * holds whatever else appears or disappears is compared:
 *
 * - an item both surrounding answers list alike was there throughout, unchanged (every change
 *   moves updated_at): the middle answer must list it, alike, wherever its page reaches (up to
 *   its last id when more pages follow);
 * - any other item (created, edited or archived meanwhile, perhaps more than once) proves
 *   nothing.
 *
 * Used where a check compares two ways of asking the same thing (AUTH-002: X-Api-Key against
 * Bearer), never to judge the listing itself.
 */
import { documentedBody } from '../_shared/documented.ts';
import { canonical, compareIds, isObject } from '../_shared/json.ts';

interface Envelope {
  items: Record<string, unknown>[];
  nextCursor: unknown;
}

function envelopeOf(v: unknown): Envelope | undefined {
  if (!isObject(v) || !Array.isArray(v.items) || !v.items.every((i) => isObject(i) && typeof i.id === 'string')) return undefined;
  return { items: v.items as Record<string, unknown>[], nextCursor: v.nextCursor };
}

/** Items by id, each as canonical JSON of what the document defines of it (a Definition's 2.1 fields). */
const byId = (e: Envelope): Map<string, string> => new Map(e.items.map((i) => [String(i.id).toLowerCase(), canonical(documentedBody(i))]));

/**
 * Undefined when `middle` agrees with `before` and `after` (three answers to one listing
 * request, in that order) under the rules above, otherwise what disagrees. Null when the
 * three are not all collection envelopes of items with ids: the rules do not apply.
 */
export function listingDisagreement(middle: unknown, before: unknown, after: unknown): string | undefined | null {
  const m = envelopeOf(middle);
  const b = envelopeOf(before);
  const a = envelopeOf(after);
  if (!m || !b || !a) return null;
  const mine = byId(m);
  const first = byId(b);
  const last = byId(a);
  const ids = m.items.map((i) => String(i.id).toLowerCase());
  const ascending = ids.every((id, i) => i === 0 || compareIds(ids[i - 1]!, id) < 0);
  // How far the middle page reaches: everything when it is the last page, else up to its last
  // id (ascending order, seed part 8); an unordered page is only compared item by item.
  const reach = m.nextCursor === null || m.nextCursor === undefined ? undefined : ascending ? ids.at(-1) : null;
  for (const [id, item] of first) {
    if (last.get(id) !== item) continue;
    if (reach === null ? !mine.has(id) : reach !== undefined && compareIds(id, reach) > 0) continue;
    if (!mine.has(id)) return `item ${id}, listed alike before and after, is missing`;
    if (mine.get(id) !== item) return `item ${id}, listed alike before and after, is listed differently`;
  }
  return undefined;
}
