/**
 * Operation receipts and compute runs: the seed names them and says they are polled, but does
 * not show their fields. These helpers find the identifier where a conformant server could put
 * it, read a receipt's state where a conformant server could show one, and poll with bounded
 * backoff (never a fixed sleep, never unbounded; every bound scaled by the run's --patience).
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { waitBound } from '../../src/engine/waits.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { isObject } from './json.ts';

/** Where a receipt names its id (camelCase or snake_case). */
export const RECEIPT_ID_FIELDS = ['id', 'receiptId', 'operationId', 'receipt_id', 'operation_id'] as const;
/** Where a receipt or a compute run names its id. */
const ID_FIELDS = [...RECEIPT_ID_FIELDS, 'runId', 'run_id'] as const;
const WRAPPERS = ['receipt', 'operation', 'run', 'data'] as const;

/** The object itself and its receipt/operation/run/data wrappers: where a receipt's fields may sit. */
function layers(body: unknown): Record<string, unknown>[] {
  if (!isObject(body)) return [];
  return [body, ...WRAPPERS.map((w) => body[w]).filter(isObject)];
}

/**
 * The identifier in a receipt or run object: the first string among id, receiptId, operationId,
 * runId (or their snake_case forms) at the top level or inside receipt/operation/run/data.
 */
export function idOf(body: unknown): string | undefined {
  for (const c of layers(body)) {
    for (const f of ID_FIELDS) {
      const v = c[f];
      if (typeof v === 'string' && v.length > 0 && v.length <= 200) return v;
    }
  }
  return undefined;
}

/**
 * The identifier of a receipt or run in a POST answer: {@link idOf} its body, else the last
 * path segment of a Location header (as sent when it is not valid percent-encoding: a hostile
 * header must not crash the check). Undefined when none is found.
 */
export function findResourceId(ex: Exchange): string | undefined {
  const fromBody = idOf(ex.response?.json);
  if (fromBody !== undefined) return fromBody;
  const location = ex.response?.headers['location'];
  if (location) {
    const segment = location.split('?')[0]!.split('/').filter(Boolean).pop();
    if (segment) {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    }
  }
  return undefined;
}

/** Fields that may name a receipt's state (the seed shows none). */
const STATE_FIELDS = ['status', 'state', 'phase', 'outcome', 'result_status', 'resultStatus'] as const;
/** Values read as "not finished yet". */
const PENDING = new Set([
  'queued',
  'pending',
  'running',
  'in_progress',
  'inprogress',
  'processing',
  'submitted',
  'accepted',
  'started',
  'waiting',
  'scheduled',
  'created',
  'active',
  'open',
  'new',
  'executing',
]);
/** Values read as "finished" (3 names partial and needs_review as agent results). */
const TERMINAL = new Set([
  'succeeded',
  'success',
  'successful',
  'completed',
  'complete',
  'done',
  'finished',
  'ok',
  'applied',
  'failed',
  'failure',
  'error',
  'errored',
  'rejected',
  'refused',
  'denied',
  'invalid',
  'cancelled',
  'canceled',
  'aborted',
  'expired',
  'timed_out',
  'timeout',
  'stopped',
  'partial',
  'needs_review',
  'skipped',
]);
/** Fields that, when set, say the work finished. */
const FINISHED_AT = ['completedAt', 'completed_at', 'finishedAt', 'finished_at', 'finished', 'endedAt', 'ended_at'] as const;
const ERROR_FIELDS = ['error', 'errors', 'problem', 'failure'] as const;

/**
 * What a receipt (or compute run) body says of its progress, read from the names a server
 * would use, since the seed shows no receipt states: "pending" when a state field names
 * unfinished work (that wins: a pending receipt may carry a null finish time), "terminal" when
 * a state names finished work, a finish time or an error is set, else "unknown".
 */
export function receiptProgress(body: unknown): 'pending' | 'terminal' | 'unknown' {
  let terminal = false;
  for (const o of layers(body)) {
    for (const f of STATE_FIELDS) {
      const v = o[f];
      if (typeof v !== 'string') continue;
      const s = v
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_');
      if (PENDING.has(s)) return 'pending';
      if (TERMINAL.has(s)) terminal = true;
    }
    if (FINISHED_AT.some((f) => o[f] === true || (typeof o[f] === 'string' && (o[f] as string).length > 0))) terminal = true;
    if (ERROR_FIELDS.some((f) => isObject(o[f]) || (typeof o[f] === 'string' && (o[f] as string).length > 0) || (Array.isArray(o[f]) && (o[f] as unknown[]).length > 0))) terminal = true;
  }
  return terminal ? 'terminal' : 'unknown';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when the id is a uuid in its usual hyphenated form. */
export const isUuid = (id: string): boolean => UUID.test(id);

/**
 * An id of the same shape as `issued` (an id the server gave out) that names nothing: a fresh
 * uuid for a uuid (in the same case); for a number, a far larger number (sequential ids near
 * it may exist); otherwise `issued` with its last (up to) six letters and digits redrawn, each
 * from the characters of its own class that `issued` uses, so a prefix, a length, separators
 * and an alphabet such as Crockford base32 are kept.
 */
export function unknownIdLike(issued: string): string {
  if (isUuid(issued)) return issued === issued.toUpperCase() ? randomUUID().toUpperCase() : randomUUID();
  if (/^\d{1,30}$/.test(issued)) return `${issued}${String(randomInt(100_000, 1_000_000))}`;
  const classOf = (c: string) => (/\d/.test(c) ? 'd' : /[a-z]/.test(c) ? 'l' : /[A-Z]/.test(c) ? 'u' : undefined);
  const pool: Record<string, string[]> = { d: [], l: [], u: [] };
  for (const c of issued) {
    const k = classOf(c);
    if (k && !pool[k]!.includes(c)) pool[k]!.push(c);
  }
  const fallback: Record<string, string> = { d: '0123456789', l: 'abcdefghijklmnopqrstuvwxyz', u: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' };
  for (let attempt = 0; attempt < 20; attempt++) {
    const chars = [...issued];
    let redrawn = 0;
    for (let i = chars.length - 1; i >= 0 && redrawn < 6; i--) {
      const k = classOf(chars[i]!);
      if (!k) continue;
      const from = pool[k]!.length > 1 ? pool[k]! : [...fallback[k]!];
      chars[i] = from[randomInt(from.length)]!;
      redrawn++;
    }
    const made = chars.join('');
    if (made !== issued) return made;
  }
  return `${issued}0`;
}

/**
 * Polls `path` until `done(exchange)` holds or the time runs out; returns every poll. The time
 * is `boundMs`, the suite's assumed bound for the effect waited on, under the run's --patience
 * (waitBound); the wait between polls starts at 5 ms and doubles up to `maxWaitMs` (200 ms
 * unless given). The effect is only late once a poll sent after the bound has not seen it: a
 * target far away (each poll a slow round trip) is given that poll, so its latency alone never
 * makes an effect look late.
 */
export async function pollUntil(
  ctx: CheckContext,
  key: KeyHandle,
  path: string,
  done: (ex: Exchange) => boolean,
  boundMs = 3_000,
  maxWaitMs = 200,
): Promise<{ last: Exchange; polls: Exchange[]; satisfied: boolean }> {
  const polls: Exchange[] = [];
  const deadline = Date.now() + waitBound(ctx.run, boundMs);
  let wait = 5;
  for (;;) {
    const sentAt = Date.now();
    const ex = await ctx.api.send({ method: 'GET', path, key });
    polls.push(ex);
    if (done(ex)) return { last: ex, polls, satisfied: true };
    if (sentAt >= deadline || ex.error) return { last: ex, polls, satisfied: false };
    // The last poll goes out at the bound, not later.
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(wait, deadline - Date.now()))));
    wait = Math.min(wait * 2, maxWaitMs);
  }
}

/** How long a submitted operation's receipt may take to answer 2xx or to be listed (the suite's bound; --patience multiplies it). */
export const RECEIPT_BOUND_MS = 3_000;

/** Receipt ids a page of GET /operations lists (its shape is not shown: an items array, or a bare array). */
export function listedReceiptIds(list: Exchange): string[] {
  const body = list.response?.json;
  const items = isObject(body) && Array.isArray(body.items) ? body.items : Array.isArray(body) ? body : [];
  return items.map(idOf).filter((id): id is string => id !== undefined);
}

/**
 * GET /operations followed through nextCursor (free), at most `maxPages` pages, until `stop`
 * holds for a page. `ended`: the list ended (a refused page, one without a cursor, or one
 * handing back the cursor it was fetched with) rather than `stop` or the page cap.
 */
export async function receiptListPages(ctx: CheckContext, key: KeyHandle, maxPages: number, stop: (page: Exchange) => boolean = () => false): Promise<{ pages: Exchange[]; ended: boolean }> {
  const pages: Exchange[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const ex = await ctx.api.send({ method: 'GET', path: '/operations', key, ...(cursor ? { query: { cursor } } : {}) });
    pages.push(ex);
    if (stop(ex)) return { pages, ended: false };
    const next = isObject(ex.response?.json) ? ex.response.json.nextCursor : undefined;
    const ok = ex.response !== undefined && ex.response.status >= 200 && ex.response.status < 300;
    if (!ok || typeof next !== 'string' || next === cursor) return { pages, ended: true };
    cursor = next;
  }
  return { pages, ended: false };
}

/**
 * Every receipt id GET /operations lists (lower-case), walked through its cursors (free), with the
 * pages read; undefined when the listing cannot be walked to its end within `maxPages`.
 */
export async function allReceiptIds(ctx: CheckContext, key: KeyHandle, maxPages: number): Promise<{ ids: Set<string>; pages: Exchange[] } | undefined> {
  const { pages, ended } = await receiptListPages(ctx, key, maxPages);
  const last = pages.at(-1)!.response;
  if (!ended || last === undefined || last.status < 200 || last.status >= 300) return undefined;
  return { ids: new Set(pages.flatMap(listedReceiptIds).map((id) => id.toLowerCase())), pages };
}
