/**
 * Walks a collection by following nextCursor, bounded: a page cap and cursor-loop detection
 * turn a never-ending or cycling cursor into a finding instead of a hang.
 */
import type { ApiRequest, CheckContext, KeyHandle } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { Finding } from '../../src/engine/finding.ts';
import { brief, isObject } from './json.ts';

export interface Page {
  items: Record<string, unknown>[];
  nextCursor: string | null;
  exchange: Exchange;
}

export interface WalkResult {
  items: Record<string, unknown>[];
  pages: Page[];
}

/** Reads the collection envelope; anything else is a finding on `clause`. */
export function pageOf(clause: string, ex: Exchange): Page {
  const r = ex.response;
  const body = r?.json;
  if (!r || r.status < 200 || r.status >= 300) {
    throw new Finding({
      clause,
      message: 'the listing did not succeed',
      expected: '2xx with the collection envelope',
      received: r ? `${r.status} ${brief(body ?? r.text)}` : `no response (${ex.error?.kind}: ${ex.error?.message})`,
      exchange: ex,
    });
  }
  if (!isObject(body) || !Array.isArray(body.items) || !('nextCursor' in body) || !(body.nextCursor === null || typeof body.nextCursor === 'string')) {
    throw new Finding({ clause, message: 'the answer is not a collection envelope', expected: '{ items: [...], nextCursor: uuid | null }', received: brief(body ?? r.text), exchange: ex });
  }
  return { items: body.items as Record<string, unknown>[], nextCursor: body.nextCursor as string | null, exchange: ex };
}

/**
 * Follows nextCursor from the first page until it is null, or until `until` holds for a page's
 * items (a walk that has seen what it looks for). `clause` receives the finding when the walk
 * does not end (more than maxPages pages) or a cursor repeats.
 */
export async function walkCollection(
  ctx: CheckContext,
  key: KeyHandle,
  opts: {
    path: string;
    query?: Record<string, string | number | boolean | undefined>;
    rawQuery?: string;
    clause: string;
    envelopeClause?: string;
    maxPages?: number;
    until?: (items: readonly Record<string, unknown>[]) => boolean;
  },
): Promise<WalkResult> {
  const maxPages = opts.maxPages ?? 100;
  const pages: Page[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (;;) {
    const query: ApiRequest['query'] =
      opts.rawQuery !== undefined ? [opts.rawQuery, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&') : { ...opts.query, ...(cursor ? { cursor } : {}) };
    const ex = await ctx.api.send({ method: 'GET', path: opts.path, key, query });
    const page = pageOf(opts.envelopeClause ?? opts.clause, ex);
    pages.push(page);
    if (page.nextCursor === null || opts.until?.(page.items as Record<string, unknown>[])) break;
    if (seen.has(page.nextCursor)) {
      throw new Finding({ clause: opts.clause, message: `nextCursor ${page.nextCursor} repeats: the walk would never end`, expected: 'a new cursor or null', received: page.nextCursor, exchange: ex });
    }
    if (pages.length >= maxPages) {
      throw new Finding({ clause: opts.clause, message: `nextCursor still not null after ${maxPages} pages`, expected: 'null once every item was listed', received: page.nextCursor, exchange: ex });
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
  return { items: pages.flatMap((p) => p.items), pages };
}
