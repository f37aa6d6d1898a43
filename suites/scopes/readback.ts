/**
 * Reading back after refused calls (a refused call changes nothing): a definition found by id in
 * the listing, the fields a refused write could have touched, and the receipt ids GET
 * /operations shows (its shape is not shown, so ids are searched, never assumed).
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import type { DefinitionView } from '../_shared/definitions.ts';
import { is2xx } from '../_shared/definitions.ts';
import { compareIds, isObject } from '../_shared/json.ts';
import { walkCollection } from '../_shared/paging.ts';
import { RECEIPT_ID_FIELDS } from '../_shared/receipts.ts';
import { documentedEnumValue } from '../_shared/documented.ts';

const isFinding = (e: unknown): e is Finding => e instanceof Finding || (e instanceof Error && e.name === 'Finding' && 'evidence' in e);

/**
 * The definition with this id as the listing shows it (archived ones included), or undefined
 * when it is not listed. A listing that cannot be walked makes the caller's clause not
 * observable: reading back is the suite's setup, not the clause under test.
 */
export async function readDefinition(ctx: CheckContext, key: KeyHandle, id: string): Promise<DefinitionView | undefined> {
  try {
    // Ids ascend (part 8): a page that lists the id, or ends past it, ends the walk, so records
    // others insert meanwhile (a busy shared workspace) cannot keep it going.
    const past = (items: readonly Record<string, unknown>[]): boolean =>
      items.some((d) => String(d.id).toLowerCase() === id.toLowerCase()) || (items.length > 0 && compareIds(String(items.at(-1)!.id), id) > 0);
    const { items } = await walkCollection(ctx, key, { path: '/definitions', query: { includeArchived: true, limit: 200 }, clause: 'setup', maxPages: 20, until: past });
    return items.find((d) => d.id === id) as DefinitionView | undefined;
  } catch (e) {
    if (isFinding(e)) throw new NotObservable(`could not read the definitions back to see what changed: ${e.evidence.message}`);
    throw e;
  }
}

/** Name → id of every listed definition (archived ones included); same failure rule as readDefinition. */
export async function listedNames(ctx: CheckContext, key: KeyHandle): Promise<Map<string, string>> {
  try {
    const { items } = await walkCollection(ctx, key, { path: '/definitions', query: { includeArchived: true, limit: 200 }, clause: 'setup', maxPages: 20 });
    return new Map(items.map((d) => [String(d.name), String(d.id)]));
  } catch (e) {
    if (isFinding(e)) throw new NotObservable(`could not list the definitions to see what was stored: ${e.evidence.message}`);
    throw e;
  }
}

/**
 * The parts of a Definition that a definition write can change. `state` and `updated_at` are
 * left out on purpose: transitions other than archiving are not shown (a target may move a
 * definition between draft, backfilling and live on its own), only "archived or not" counts.
 */
export function writable(d: DefinitionView): Record<string, unknown> {
  return {
    name: d.name,
    description: d.description,
    instruction: d.instruction,
    // Seed 2.2's fields only: a field of the server's own (a clock) may move with every read.
    enum_values: Array.isArray(d.enum_values) ? d.enum_values.map(documentedEnumValue) : d.enum_values,
    refresh_policy: d.refresh_policy,
    capture_enabled: d.capture_enabled,
    auto_apply_threshold: d.auto_apply_threshold,
    review_threshold: d.review_threshold,
    chat_visible: d.chat_visible,
    reason: d.reason,
    archived: d.state === 'archived',
    archived_at: d.archived_at,
  };
}

const MAX_PAGES = 20;

/**
 * Receipt ids of a list body: string values of id, receiptId or operationId (or their
 * snake_case forms) on the body and on
 * the items of its arrays, two levels deep at most. Deeper ids (inside results) are left out:
 * an earlier receipt completing meanwhile would add them without anything being created.
 */
function idsIn(body: unknown, into: Set<string>): void {
  const walk = (v: unknown, depth: number): void => {
    if (depth > 2) return;
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (isObject(v)) {
      for (const f of RECEIPT_ID_FIELDS) if (typeof v[f] === 'string') into.add(v[f] as string);
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(body, 0);
}

/**
 * The receipt ids GET /operations lists (free), following nextCursor when the answer has one
 * (bounded, loop-safe). Undefined when the list cannot be read: nothing can be compared then.
 */
export async function receiptIds(ctx: CheckContext, key: KeyHandle): Promise<{ ids: Set<string>; exchanges: Exchange[] } | undefined> {
  const ids = new Set<string>();
  const exchanges: Exchange[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const ex = await ctx.api.send({ method: 'GET', path: '/operations', key, ...(cursor ? { query: { cursor } } : {}) });
    exchanges.push(ex);
    if (!is2xx(ex) || !ex.response?.isJson) return undefined;
    const body = ex.response.json;
    idsIn(body, ids);
    const next = isObject(body) ? body.nextCursor : undefined;
    if (typeof next !== 'string' || next === '' || seen.has(next)) return { ids, exchanges };
    seen.add(next);
    cursor = next;
  }
  return { ids, exchanges };
}
