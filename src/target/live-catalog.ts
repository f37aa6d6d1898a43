/**
 * The live catalog a run saw (part 9 rule 2: catalog operations and allowed change kinds are
 * read live from GET /capabilities), in whatever layout the target serves it: the document does
 * not show the catalog's shape, so it is searched, never parsed by a fixed layout.
 *
 * - Operations: the names of 4.8 and 4.9 found as strings anywhere in the body; and, where the
 *   catalog lists operations as an array of objects, the same field of every other element (an
 *   operation of the server's own, listed beside the documented ones).
 * - Change kinds: per operation found, the list under a key spelt like "change kinds"
 *   (changeKinds, change_kinds, allowedChangeKinds...), else the array under its entry that
 *   names person_field (the one kind 4.8 shows), of strings or of objects naming one; null when
 *   no operation lists any.
 *
 * `wgc diff` compares the live catalogs of two runs (catalogDrift): an operation or a change
 * kind that disappeared is a regression, one that appeared is news.
 */
import type { LiveCatalog } from './live-catalog-schema.ts';

/** What a run keeps of the live catalog (declared in live-catalog-schema.ts). */
export type { LiveCatalog };

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const CHANGE_KINDS_KEY = /change_?kinds?$/i;
const MAX_DEPTH = 12;

/** The key of `o` whose string value is one of `names`, if any. */
function namingKey(o: Record<string, Json>, names: ReadonlySet<string>): string | undefined {
  return Object.keys(o).find((k) => typeof o[k] === 'string' && names.has(o[k]));
}

/** The one change kind the document shows (4.8): the list that holds it is the change kinds list, whatever its key. */
const SHOWN_KIND = 'person_field';

/** The kind an element of a change kinds list names: the string, or an object's first string. */
const kindName = (x: Json): string | undefined => (typeof x === 'string' ? x : isObject(x) ? Object.values(x).find((s): s is string => typeof s === 'string') : undefined);

/**
 * The change kinds list under an operation's entry: the array under a key spelt like "change
 * kinds", else any array (bounded depth) that names the kind 4.8 shows among its elements.
 */
function kindsListOf(o: Record<string, Json>): Json[] | undefined {
  for (const [k, v] of Object.entries(o)) if (CHANGE_KINDS_KEY.test(k) && Array.isArray(v)) return v;
  let found: Json[] | undefined;
  const visit = (v: Json, depth: number): void => {
    if (found || depth > 4) return;
    if (Array.isArray(v)) {
      if (v.some((x) => kindName(x) === SHOWN_KIND || (isObject(x) && Object.values(x).includes(SHOWN_KIND)))) found = v;
      else for (const x of v) visit(x, depth + 1);
    } else if (isObject(v)) for (const x of Object.values(v)) visit(x, depth + 1);
  };
  visit(o, 0);
  return found;
}

/** The change kinds an operation object lists, or undefined. */
function changeKindsOf(o: Record<string, Json>): string[] | undefined {
  const list = kindsListOf(o);
  if (!list) return undefined;
  const kinds = list.flatMap((x) => kindName(x) ?? []);
  return [...new Set(kinds)].sort();
}

/**
 * Every place the catalog body shows one of `names`: a string anywhere (no entry), the elements of
 * an array of objects where one names a documented operation (the same field names each element,
 * an operation of the server's own included), and the value under a key that is a name. `found`
 * is called for each, in document order, with the entry object where there is one.
 */
function eachOperation(body: Json, names: ReadonlySet<string>, found: (name: string, entry: Record<string, Json> | undefined) => void): void {
  const visit = (v: Json, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof v === 'string') {
      if (names.has(v)) found(v, undefined);
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
          found(name, o);
        }
      }
      for (const x of v) visit(x, depth + 1);
      return;
    }
    if (isObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        // A catalog keyed by operation name: { "graph.apply_update": { changeKinds: [...] } }.
        if (names.has(k)) found(k, isObject(x) ? x : undefined);
        visit(x, depth + 1);
      }
    }
  };
  visit(body, 0);
}

/** What the catalog body shows, searched for the documented operation names `known`. */
export function readLiveCatalog(body: Json, known: readonly string[], observedBy: string): LiveCatalog {
  const operations = new Set<string>();
  const kinds = new Map<string, string[]>();
  eachOperation(body, new Set(known), (name, entry) => {
    operations.add(name);
    const k = entry ? changeKindsOf(entry) : undefined;
    if (k) kinds.set(name, k);
  });
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

/** One change kind of an operation as the live catalog lists it. */
export interface ChangeKindEntry {
  /** The kind's name (a string of the list, or the first string of an object of it). */
  kind: string;
  /** The fields it lists (the first array of strings under a key spelt like "fields"), or null. */
  fields: string[] | null;
  /** Identifiers (snake_case or camelCase) in the entry's text: the argument names its notes mention. */
  words: string[];
}

const FIELDS_KEY = /fields?$/i;
const IDENTIFIER = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b/g;

/** Every string under `v` (bounded). */
function stringsUnder(v: Json, depth = 0, out: string[] = []): string[] {
  if (depth > 6 || out.length > 200) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsUnder(x, depth + 1, out);
  else if (isObject(v)) for (const x of Object.values(v)) stringsUnder(x, depth + 1, out);
  return out;
}

function entryOf(x: Json): ChangeKindEntry | undefined {
  const kind = kindName(x);
  if (kind === undefined) return undefined;
  if (!isObject(x)) return { kind, fields: null, words: [] };
  const listed = Object.entries(x).find(([k, v]) => FIELDS_KEY.test(k) && Array.isArray(v) && v.every((s) => typeof s === 'string'));
  const words = [...new Set(stringsUnder(x).flatMap((s) => s.match(IDENTIFIER) ?? []))];
  return { kind, fields: listed ? (listed[1] as string[]) : null, words };
}

/**
 * The change kinds the live catalog lists for `operation`, with their fields and the argument
 * names their notes mention, in whatever layout the catalog has: the operation's entry is an
 * element of an array naming it or the value under its name (eachOperation, as readLiveCatalog
 * finds it), and its change kinds list is kindsListOf's. Empty when the catalog lists none for it.
 */
export function changeKindEntries(body: Json, operation: string): ChangeKindEntry[] {
  let list: Json[] | undefined;
  eachOperation(body, new Set([operation]), (name, entry) => {
    if (list === undefined && name === operation && entry) list = kindsListOf(entry);
  });
  return list ? list.flatMap((x) => entryOf(x) ?? []) : [];
}
