/**
 * Small readers for response bodies whose shape the seed does not show (receipts, quotes,
 * catalogs): they search instead of assuming one layout, so a conformant server that chose
 * another layout is not failed.
 */

/** True when the value is a plain JSON object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Depth-first search of a JSON value for objects that satisfy the predicate (bounded depth and count). */
export function findObjects(root: unknown, predicate: (o: Record<string, unknown>) => boolean, limits: { maxDepth?: number; maxNodes?: number } = {}): Record<string, unknown>[] {
  const maxDepth = limits.maxDepth ?? 12;
  let budget = limits.maxNodes ?? 20_000;
  const found: Record<string, unknown>[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > maxDepth || budget-- <= 0) return;
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (isObject(v)) {
      if (predicate(v)) found.push(v);
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(root, 0);
  return found;
}

/** True when the string occurs as a string value (or key) anywhere in the JSON value. */
export function containsString(root: unknown, needle: string, maxNodes = 50_000): boolean {
  let budget = maxNodes;
  const walk = (v: unknown): boolean => {
    if (budget-- <= 0) return false;
    if (typeof v === 'string') return v === needle;
    if (Array.isArray(v)) return v.some(walk);
    if (isObject(v)) return Object.entries(v).some(([k, x]) => k === needle || walk(x));
    return false;
  };
  return walk(root);
}

/** Compact JSON for evidence text, cut to a readable length. */
export function brief(v: unknown, max = 300): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    // Too deep or cyclic for JSON; String() would recurse just as deep on nested arrays.
    s = Array.isArray(v) ? `[array of ${v.length}, too deeply nested to show]` : typeof v === 'object' && v !== null ? '{object too deeply nested to show}' : String(v);
  }
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

/** Lower-case uuid comparison: the seed orders collections ascending by uuid. */
export function compareIds(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** JSON with object keys sorted, so two renderings of the same value compare equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
