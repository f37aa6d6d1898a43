/**
 * The collections a stored record's relatedData links to (seed 4.9): the links' layout is not
 * shown, so every string under a relatedData member is a candidate, and one counts as a link
 * only when it is a path or URL of the target's own origin under the API prefix (keys go only
 * to the target). Shared by the checks that hold linked collections to the rules of every read:
 * their envelope and paging (operations/related-collections), their price
 * (billing/billed-calls-cost-one) and their isolation (auth/foreign-ids-refused).
 */
import type { Exchange } from '../../src/http/exchange.ts';
import { findObjects, isObject } from './json.ts';

/** Every string value under a relatedData member of `body` (bounded). */
export function linkTexts(body: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 4 || out.length >= 50) return;
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (isObject(v)) for (const x of Object.values(v)) walk(x, depth + 1);
  };
  for (const holder of findObjects(body, (o) => 'relatedData' in o, { maxDepth: 3 })) walk(holder.relatedData, 0);
  return out;
}

/**
 * The API path (relative to the API prefix) a link names, resolved against the read that showed
 * it; undefined for text that is no link, or a link to another origin or outside the API.
 */
export function apiPathOf(link: string, read: Exchange, readPath: string): string | undefined {
  if (!/^(\/|https?:\/\/)/i.test(link)) return undefined;
  let url: URL;
  let at: URL;
  try {
    at = new URL(read.request.url);
    url = new URL(link, at);
  } catch {
    return undefined;
  }
  if (url.origin !== at.origin) return undefined;
  // The API prefix is what the read's own URL has before the path the check asked for.
  const prefix = at.pathname.endsWith(readPath) ? at.pathname.slice(0, at.pathname.length - readPath.length) : undefined;
  if (prefix === undefined || !url.pathname.startsWith(`${prefix}/`)) return undefined;
  return url.pathname.slice(prefix.length);
}

/** The API paths of the links in a read's answer (`readPath`: the path the read asked for), at most `most`. */
export function linkedPaths(read: Exchange, readPath: string, most: number): string[] {
  const out: string[] = [];
  for (const text of linkTexts(read.response?.json)) {
    const p = apiPathOf(text, read, readPath);
    if (p !== undefined && !out.includes(p) && out.length < most) out.push(p);
  }
  return out;
}

/**
 * Whether a stored record's read carries relatedData links (4.9): a relatedData member holding
 * at least one path or URL of the target's own origin under the API prefix (whatever the
 * layout around it).
 */
export function carriesLinks(read: Exchange, readPath: string): boolean {
  return linkedPaths(read, readPath, 1).length > 0;
}
