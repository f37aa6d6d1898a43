/**
 * Operation receipts and compute runs: the seed names them and says they are polled, but does
 * not show their fields. These helpers find the identifier where a conformant server could put
 * it, and poll with bounded backoff (never a fixed sleep, never unbounded).
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { isObject } from './json.ts';

const ID_FIELDS = ['id', 'receiptId', 'operationId', 'runId', 'receipt_id', 'operation_id', 'run_id'] as const;
const WRAPPERS = ['receipt', 'operation', 'run', 'data'] as const;

/**
 * The identifier of a receipt or run in a POST answer: the first string among id, receiptId,
 * operationId, runId (or their snake_case forms) at the top level or inside
 * receipt/operation/run/data, else the last path segment of a Location header (as sent when it
 * is not valid percent-encoding: a hostile header must not crash the check). Undefined when
 * none is found.
 */
export function findResourceId(ex: Exchange): string | undefined {
  const body = ex.response?.json;
  const candidates: unknown[] = [body];
  if (isObject(body)) for (const w of WRAPPERS) candidates.push(body[w]);
  for (const c of candidates) {
    if (!isObject(c)) continue;
    for (const f of ID_FIELDS) {
      const v = c[f];
      if (typeof v === 'string' && v.length > 0 && v.length <= 200) return v;
    }
  }
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

/**
 * Polls `path` until `done(exchange)` holds or the time budget runs out; returns every poll.
 * Backoff starts at 5 ms and doubles up to `maxWaitMs` (200 ms unless given).
 */
export async function pollUntil(
  ctx: CheckContext,
  key: KeyHandle,
  path: string,
  done: (ex: Exchange) => boolean,
  budgetMs = 3_000,
  maxWaitMs = 200,
): Promise<{ last: Exchange; polls: Exchange[]; satisfied: boolean }> {
  const polls: Exchange[] = [];
  const deadline = Date.now() + budgetMs;
  let wait = 5;
  for (;;) {
    const ex = await ctx.api.send({ method: 'GET', path, key });
    polls.push(ex);
    if (done(ex)) return { last: ex, polls, satisfied: true };
    if (Date.now() + wait > deadline || ex.error) return { last: ex, polls, satisfied: false };
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, maxWaitMs);
  }
}
