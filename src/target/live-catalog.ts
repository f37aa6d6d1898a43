/**
 * The live catalog a run saw (part 9 rule 2: catalog operations and allowed change kinds are
 * read live from GET /capabilities), in whatever layout the target serves it: the document does
 * not show the catalog's shape, so it is searched, never parsed by a fixed layout.
 *
 * - Operations: the names of 4.8 and 4.9 found as strings anywhere in the body; and, where the
 *   catalog lists operations as an array of objects, the same field of every other element (an
 *   operation of the server's own, listed beside the documented ones).
 * - Change kinds: per operation found in such an array, the strings under a key spelt like
 *   "change kinds" (changeKinds, change_kinds, allowedChangeKinds...), as an array of strings
 *   or of objects naming one; null when no operation lists any.
 *
 * `wgc diff` compares the live catalogs of two runs (catalogDrift): an operation or a change
 * kind that disappeared is a regression, one that appeared is news.
 */
import { z } from 'zod';

export const LiveCatalogSchema = z
  .object({
    /** Operation names found, sorted. */
    operations: z.array(z.string()),
    /** Per operation, its change kinds, sorted; null when the catalog lists none anywhere. */
    changeKinds: z.record(z.string(), z.array(z.string())).nullable(),
    /** The check whose GET /capabilities answer this was read from. */
    observedBy: z.string(),
  })
  .strict();
export type LiveCatalog = z.infer<typeof LiveCatalogSchema>;

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const CHANGE_KINDS_KEY = /change_?kinds?$/i;
const MAX_DEPTH = 12;

/** The key of `o` whose string value is one of `names`, if any. */
function namingKey(o: Record<string, Json>, names: ReadonlySet<string>): string | undefined {
  return Object.keys(o).find((k) => typeof o[k] === 'string' && names.has(o[k]));
}

/** The change kinds an operation object lists, or undefined. */
function changeKindsOf(o: Record<string, Json>): string[] | undefined {
  for (const [k, v] of Object.entries(o)) {
    if (!CHANGE_KINDS_KEY.test(k) || !Array.isArray(v)) continue;
    const kinds = v.flatMap((x) =>
      typeof x === 'string'
        ? [x]
        : isObject(x)
          ? Object.values(x)
              .filter((s): s is string => typeof s === 'string')
              .slice(0, 1)
          : [],
    );
    return [...new Set(kinds)].sort();
  }
  return undefined;
}

/** What the catalog body shows, searched for the documented operation names `known`. */
export function readLiveCatalog(body: Json, known: readonly string[], observedBy: string): LiveCatalog {
  const names = new Set(known);
  const operations = new Set<string>();
  const kinds = new Map<string, string[]>();
  const visit = (v: Json, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof v === 'string') {
      if (names.has(v)) operations.add(v);
      return;
    }
    if (Array.isArray(v)) {
      // An array of operation objects: the field naming a documented one names every element.
      const objects = v.filter(isObject);
      const key = objects.map((o) => namingKey(o, names)).find((k) => k !== undefined);
      if (key !== undefined) {
        for (const o of objects) {
          const name = o[key];
          if (typeof name !== 'string' || name.length === 0 || name.length > 200) continue;
          operations.add(name);
          const k = changeKindsOf(o);
          if (k) kinds.set(name, k);
        }
      }
      for (const x of v) visit(x, depth + 1);
      return;
    }
    if (isObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        // A catalog keyed by operation name: { "graph.apply_update": { changeKinds: [...] } }.
        if (names.has(k)) {
          operations.add(k);
          const ck = isObject(x) ? changeKindsOf(x) : undefined;
          if (ck) kinds.set(k, ck);
        }
        visit(x, depth + 1);
      }
    }
  };
  visit(body, 0);
  const sortedKinds = [...kinds].sort(([a], [b]) => a.localeCompare(b));
  return { operations: [...operations].sort(), changeKinds: sortedKinds.length > 0 ? Object.fromEntries(sortedKinds) : null, observedBy };
}

/** What changed in the live catalog from `base` to `head`. */
export interface CatalogDrift {
  /** False when either run has no live catalog on record: nothing could be compared. */
  comparable: boolean;
  removedOperations: string[];
  addedOperations: string[];
  /** "operation: kind" for change kinds gone from an operation both runs list. */
  removedChangeKinds: string[];
  addedChangeKinds: string[];
}

/** The drift between two runs' live catalogs (either may be missing: not comparable). */
export function catalogDrift(base: LiveCatalog | null | undefined, head: LiveCatalog | null | undefined): CatalogDrift {
  if (!base || !head) return { comparable: false, removedOperations: [], addedOperations: [], removedChangeKinds: [], addedChangeKinds: [] };
  const minus = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x)).sort();
  const both = base.operations.filter((o) => head.operations.includes(o));
  const kindsOf = (c: LiveCatalog, op: string): string[] => c.changeKinds?.[op] ?? [];
  // Change kinds compare only where both runs' catalogs list change kinds at all.
  const kindsComparable = base.changeKinds !== null && head.changeKinds !== null;
  return {
    comparable: true,
    removedOperations: minus(base.operations, head.operations),
    addedOperations: minus(head.operations, base.operations),
    removedChangeKinds: kindsComparable ? both.flatMap((op) => minus(kindsOf(base, op), kindsOf(head, op)).map((k) => `${op}: ${k}`)) : [],
    addedChangeKinds: kindsComparable ? both.flatMap((op) => minus(kindsOf(head, op), kindsOf(base, op)).map((k) => `${op}: ${k}`)) : [],
  };
}
