/**
 * Query-string encoding for ApiRequest.query. The object form covers the common case
 * (arrays repeat the key: `a=1&a=2`); anything else, such as deepObject-style
 * `moduleKeys[0]=x` or deliberately malformed input, is passed as a raw string by the caller.
 */
import type { ApiRequest } from './api.ts';

/** Encodes a query to the text after "?" (empty string for none). Undefined values are omitted. */
export function encodeQuery(query: ApiRequest['query']): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return query.startsWith('?') ? query.slice(1) : query;
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`);
  }
  return parts.join('&');
}
