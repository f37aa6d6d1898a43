/**
 * Valid write bodies a real server has no reason of its own to refuse or to store otherwise,
 * made from the generated ones (src/generators) without losing the bounds they reach:
 * - thresholds ordered: the auto-apply threshold is never below the review threshold (as the
 *   defaults 0.85 and 0.6), counting the defaults and the stored pair a PATCH leaves in place;
 *   generated values are kept (swapped, or the missing one set equal), so 0 and 1 are still sent;
 * - a definition never holds more than the create table's 200 enum values after a PATCH;
 * - a decision trace is internally consistent: no definition references the check could not
 *   have obtained (2.6: they come from POST /graph/decision-inputs), factor evidence ids among
 *   the trace's own evidence source ids, dates in the past;
 * and the readings of how a server may store what it was given: "" as null for a field the
 * Definition makes "string or null" (2.1), and enum settings (cardinality, enum values) dropped
 * or nulled for a definition whose value type is not enum.
 */
import type { JsonSchema } from '../../src/spec/load.ts';
import { isObject } from '../_shared/json.ts';

const AUTO = 'autoApplyThreshold';
const REVIEW = 'reviewThreshold';

/** The thresholds a create leaves out take (the create schema's defaults). */
export interface ThresholdDefaults {
  auto: number;
  review: number;
}

/** The create schema's threshold defaults; throws when openapi.yaml lost them. */
export function thresholdDefaults(createSchema: JsonSchema): ThresholdDefaults {
  const auto = createSchema.properties?.[AUTO]?.default;
  const review = createSchema.properties?.[REVIEW]?.default;
  if (typeof auto !== 'number' || typeof review !== 'number') throw new Error('openapi.yaml: the create schema gives the thresholds no numeric default');
  return { auto, review };
}

/**
 * A create body whose effective thresholds are ordered (auto-apply ≥ review): a pair given the
 * wrong way round is swapped; a lone threshold on the wrong side of the other's default brings
 * the other along, equal to it. Every generated value is still sent.
 */
export function orderedCreate(body: Record<string, unknown>, defaults: ThresholdDefaults): Record<string, unknown> {
  const out = { ...body };
  const a = typeof out[AUTO] === 'number' ? (out[AUTO] as number) : undefined;
  const r = typeof out[REVIEW] === 'number' ? (out[REVIEW] as number) : undefined;
  if (a !== undefined && r !== undefined) {
    if (a < r) [out[AUTO], out[REVIEW]] = [r, a];
  } else if (a !== undefined && a < defaults.review) {
    out[REVIEW] = a;
  } else if (r !== undefined && r > defaults.auto) {
    out[AUTO] = r;
  }
  return out;
}

/** A PATCH body whose given threshold pair is ordered (swapped when given the wrong way round). */
export function orderedPatch(patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...patch };
  const a = out[AUTO];
  const r = out[REVIEW];
  if (typeof a === 'number' && typeof r === 'number' && a < r) [out[AUTO], out[REVIEW]] = [r, a];
  return out;
}

const PAIRS_AUTO = [0.75, 0.5, 1, 0.25, 0];
const PAIRS_REVIEW = [0.25, 0.5, 0, 0.75, 1];

/**
 * Thresholds for the definition a PATCH is sent to: each differs from the PATCHed one (so that
 * an ignored field shows), the pair is ordered, and so is the pair the PATCH leaves (its own
 * values, the others kept). Empty when the PATCH sets no threshold (the create's defaults stay).
 */
export function thresholdsBefore(patch: Record<string, unknown>): Record<string, number> {
  const pa = typeof patch[AUTO] === 'number' ? (patch[AUTO] as number) : undefined;
  const pr = typeof patch[REVIEW] === 'number' ? (patch[REVIEW] as number) : undefined;
  if (pa === undefined && pr === undefined) return {};
  for (const ca of PAIRS_AUTO) {
    for (const cr of PAIRS_REVIEW) {
      if (ca < cr || ca === pa || cr === pr) continue;
      if ((pa ?? ca) < (pr ?? cr)) continue;
      return { [AUTO]: ca, [REVIEW]: cr };
    }
  }
  throw new Error(`no ordered threshold pair differs from the PATCH's ${JSON.stringify({ pa, pr })}`);
}

/**
 * The PATCH with addEnumValues cut so that the definition holds at most `max` values after it
 * (`existing` are its values' labels), and without labels it already has (in any case): the
 * create table caps enum values at 200, and a server may keep that as an invariant or refuse a
 * label twice.
 */
export function cappedAdditions(patch: Record<string, unknown>, existing: readonly string[], max: number): Record<string, unknown> {
  const added = patch.addEnumValues;
  if (!Array.isArray(added)) return { ...patch };
  const taken = new Set(existing.map((l) => l.toLowerCase()));
  const kept = added.filter((v) => !(isObject(v) && typeof v.label === 'string' && taken.has(v.label.toLowerCase())));
  return { ...patch, addEnumValues: kept.slice(0, Math.max(0, max - existing.length)) };
}

/** The maxItems of the create table's enumValues (200). */
export function enumValuesMax(createSchema: JsonSchema): number {
  const max = createSchema.properties?.enumValues?.maxItems;
  if (typeof max !== 'number') throw new Error('openapi.yaml: the create schema gives enumValues no maxItems');
  return max;
}

/** Definition fields whose type includes null (2.1 "string or null", ...). */
export function nullableFields(definitionSchema: JsonSchema): Set<string> {
  const out = new Set<string>();
  for (const [name, s] of Object.entries(definitionSchema.properties ?? {})) {
    const t = s.type;
    if ((Array.isArray(t) && t.includes('null')) || (Array.isArray(s.enum) && s.enum.includes(null))) out.add(name);
  }
  return out;
}

/**
 * The stored value `got` reflects the sent `given` in a way the seed allows besides equality:
 * "" stored as null in a field the Definition makes nullable (description, instruction), or an
 * enum setting (cardinality) nulled on a definition whose value type is not enum.
 */
export function allowedReflection(field: string, given: unknown, got: unknown, nullable: ReadonlySet<string>, valueType: unknown): boolean {
  if (got !== null || !nullable.has(field)) return false;
  if (given === '') return true;
  return field === 'cardinality' && valueType !== undefined && valueType !== 'enum';
}

/** Enum values sent with a definition whose value type is not enum may be dropped (none stored). */
export function enumValuesDropped(body: Record<string, unknown>, output: unknown): boolean {
  return body.valueType !== undefined && body.valueType !== 'enum' && Array.isArray(output) && output.length === 0;
}

/** A date-time of the past, for a generated one that lies ahead (any server may refuse a future event). */
const PAST = '2020-01-01T00:00:00Z';
const past = (v: unknown): unknown => (typeof v === 'string' && Date.parse(v) > Date.now() ? PAST : v);

/**
 * A generated valid trace made internally consistent, its other bounds kept: definition_refs
 * emptied (the check has no references from POST /graph/decision-inputs, and made-up revisions
 * and content hashes may be checked); every factor's evidence_ids drawn from the trace's own
 * evidence source ids, evidence items being added for a factor's ids while the evidence array
 * stays within `maxEvidence` (so a factor keeps as many ids as it can, up to 30 still); event_at
 * and observed_at in the past.
 */
export function consistentTrace(trace: unknown, maxEvidence: number): unknown {
  if (!isObject(trace)) return trace;
  const out: Record<string, unknown> = structuredClone(trace);
  if (Object.hasOwn(out, 'definition_refs')) out.definition_refs = [];
  const evidence = Array.isArray(out.evidence) ? out.evidence : [];
  const pool = [
    ...new Set(
      evidence
        .filter(isObject)
        .map((e) => e.source_id)
        .filter((id): id is string => typeof id === 'string'),
    ),
  ];
  const factors = (Array.isArray(out.factors) ? out.factors : []).filter(isObject);
  for (const f of factors) {
    if (!Array.isArray(f.evidence_ids)) continue;
    for (const id of f.evidence_ids) {
      if (typeof id !== 'string' || pool.includes(id) || evidence.length >= maxEvidence) continue;
      evidence.push({ source_id: id });
      pool.push(id);
    }
  }
  for (const f of factors) {
    if (!Array.isArray(f.evidence_ids)) continue;
    const want = f.evidence_ids.length;
    const own = [...new Set(f.evidence_ids.filter((id): id is string => typeof id === 'string' && pool.includes(id)))];
    f.evidence_ids = [...own, ...pool.filter((id) => !own.includes(id))].slice(0, Math.min(want, pool.length));
  }
  if (evidence.length > 0 || Object.hasOwn(out, 'evidence')) out.evidence = evidence;
  if (Object.hasOwn(out, 'event_at')) out.event_at = past(out.event_at);
  if (Array.isArray(out.observations)) for (const o of out.observations) if (isObject(o) && Object.hasOwn(o, 'observed_at')) o.observed_at = past(o.observed_at);
  return out;
}
