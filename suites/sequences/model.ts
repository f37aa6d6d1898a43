/**
 * A model of what the API document fixes about a workspace's definitions, as a plain value:
 * the definitions a sequence made (their 2.1 fields that a write sets, archived or not, their
 * enum values by slug), the receipts of its catalog submissions, the Idempotency-Keys it used
 * and the answers they stored, and the readings the server showed where the document leaves a
 * choice. Commands (commands.ts) change the model as the document says their calls change the
 * service, and compare what the server answers with it; a reading is accepted on first sight
 * and held from then on.
 */
import { isObject } from '../_shared/json.ts';

/** One enum value as the model knows it. */
export interface ModelValue {
  label: string;
  slug: string;
  archived: boolean;
  /** Merged away by merge-value: archived, removed or kept as it was (DEF-022's readings). */
  mergedAway?: true;
}

/** One definition as the model knows it: the 2.1 fields a write sets, and whether it is archived. */
export interface ModelDef {
  id: string;
  /** Fields compared as sent (snake_case, as in 2.1). */
  fields: Record<string, unknown>;
  entityKinds: string[];
  /** The reason given at creation and the latest write's (DEF-017's reading: either may show). */
  reasons: { creation: string; latest: string };
  archived: boolean;
  values: ModelValue[];
  /** Fields a PATCH has named since the create (a listed copy differing elsewhere is not what the create answered: DEF-003). */
  written: Set<string>;
}

/** A keyed create and what it answered first. */
export interface ModelKey {
  key: string;
  body: Record<string, unknown>;
  status: number;
  id: string;
  /** The documented part of the first answer, canonical JSON. */
  answer: string;
}

/** Readings held once seen (the document allows each). */
export interface Readings {
  /** What merge-value did to the value merged away. */
  mergedAway?: 'archived' | 'removed' | 'kept';
}

/** A keyed PATCH: its key, body and definition (another definition's path under the key is another input). */
export interface ModelPatchKey {
  key: string;
  body: Record<string, unknown>;
  id: string;
}

/** A keyed catalog submission (POST /operations) and what it answered first. */
export interface ModelOpKey {
  key: string;
  body: Record<string, unknown>;
  /** The receipt id it answered. */
  receipt: string;
  /** The first answer, compared whole (in what the document defines) with a replay's. */
  answer: { status: number; json: unknown; text: string };
}

export interface Model {
  defs: ModelDef[];
  keys: ModelKey[];
  patchKeys: ModelPatchKey[];
  /** Receipt ids of the sequence's accepted submissions, in order. */
  receipts: string[];
  opKeys: ModelOpKey[];
  /** Ids of the compute runs the sequence started, in order. */
  computeRuns: string[];
  readings: Readings;
}

export const emptyModel = (): Model => ({ defs: [], keys: [], patchKeys: [], receipts: [], opKeys: [], computeRuns: [], readings: {} });

/** The definitions not archived, in creation order (the targets of writes). */
export const liveDefs = (m: Model): ModelDef[] => m.defs.filter((d) => !d.archived);

/** The values of a definition a write may name: live and not merged away. */
export const liveValues = (d: ModelDef): ModelValue[] => d.values.filter((v) => !v.archived && !v.mergedAway);

/** The definitions a listing shows: all, or the live ones (DEF-015). */
export const visibleDefs = (m: Model, includeArchived: boolean): ModelDef[] => m.defs.filter((d) => includeArchived || !d.archived);

/** Fields typed "string or null" (2.1) that a write sets. */
const TEXT_FIELDS = new Set(['description', 'instruction']);

const same = (a: unknown, b: unknown): boolean => (typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) <= 1e-9 : JSON.stringify(a) === JSON.stringify(b));

/**
 * What differs between the model's definition and one the server showed, in words: the fields a
 * write sets, archived or not, the reason (creation's or latest's), entity kinds as a set, and the
 * enum values by slug. `merged` holds the server to the merged-away reading it showed first (and
 * records it, the first time).
 */
export function differences(def: ModelDef, shown: Record<string, unknown>, readings: Readings): string[] {
  const out: string[] = [];
  for (const [f, want] of Object.entries(def.fields)) {
    // "" for description or instruction ("string or null", 2.1) may be stored as null (DEF-017's reading).
    if (same(shown[f], want) || (want === '' && shown[f] === null && TEXT_FIELDS.has(f))) continue;
    out.push(`${f} is ${JSON.stringify(shown[f])}, not ${JSON.stringify(want)}`);
  }
  const kinds = Array.isArray(shown.entity_kinds) ? [...new Set(shown.entity_kinds.map(String))].sort() : shown.entity_kinds;
  if (!same(kinds, [...def.entityKinds].sort())) out.push(`entity_kinds is ${JSON.stringify(shown.entity_kinds)}, not ${JSON.stringify(def.entityKinds)}`);
  const archived = shown.state === 'archived';
  if (archived !== def.archived) out.push(`state is ${JSON.stringify(shown.state)} where the definition is ${def.archived ? '' : 'not '}archived`);
  if ((shown.archived_at !== null && shown.archived_at !== undefined) !== def.archived)
    out.push(`archived_at is ${JSON.stringify(shown.archived_at)} where the definition is ${def.archived ? '' : 'not '}archived`);
  if (shown.reason !== def.reasons.creation && shown.reason !== def.reasons.latest) out.push(`reason is ${JSON.stringify(shown.reason)}, neither the creation's nor the latest write's`);
  const values = Array.isArray(shown.enum_values) ? shown.enum_values.filter(isObject) : [];
  const bySlug = new Map(values.map((v) => [v.slug, v]));
  for (const v of def.values) {
    const got = bySlug.get(v.slug);
    bySlug.delete(v.slug);
    if (v.mergedAway) {
      const now = got === undefined ? 'removed' : got.archived === true && got.label === v.label ? 'archived' : got.archived === v.archived && got.label === v.label ? 'kept' : undefined;
      if (now === undefined) out.push(`the value merged away (${v.slug}) shows as ${JSON.stringify(got)}`);
      else if (readings.mergedAway === undefined) readings.mergedAway = now;
      else if (readings.mergedAway !== now && !(now === 'archived' && v.archived)) out.push(`the value merged away (${v.slug}) is ${now} where an earlier merge left it ${readings.mergedAway}`);
      continue;
    }
    if (got === undefined) out.push(`the enum value ${v.slug} (${v.label}) is missing`);
    else if (got.label !== v.label || got.archived !== v.archived)
      out.push(`the enum value ${v.slug} is ${JSON.stringify({ label: got.label, archived: got.archived })}, not ${JSON.stringify({ label: v.label, archived: v.archived })}`);
  }
  for (const slug of bySlug.keys()) out.push(`an enum value ${JSON.stringify(slug)} appeared`);
  return out;
}

/** The model's values of a fresh definition, from the server's answer (slugs are the server's), matched to the labels sent. */
export function valuesFromAnswer(labels: readonly string[], shown: Record<string, unknown>): ModelValue[] | undefined {
  const values = Array.isArray(shown.enum_values) ? shown.enum_values.filter(isObject) : [];
  const out: ModelValue[] = [];
  for (const label of labels) {
    const v = values.find((x) => x.label === label);
    if (!v || typeof v.slug !== 'string') return undefined;
    out.push({ label, slug: v.slug, archived: false });
  }
  return out;
}
