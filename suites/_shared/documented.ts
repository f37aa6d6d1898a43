/**
 * The parts of an answer the API document defines, and nothing else. A conformant server may
 * add fields of its own to any answer (a revision counter, a request id, a served-at clock) and
 * change them as it likes; a check that compares answers (before and after a write, a replay
 * with its original, the same request sent two ways) compares these projections only. The field
 * lists follow seed 2.1 (Definition), 2.2 (enum value), 2.3 (collection envelope), 2.4 (GET /me),
 * 2.5 (merge result) and part 7 (error envelope); test/spec/documented.test.ts keeps them equal
 * to the schemas of specs/openapi.yaml.
 */
import { isObject } from './json.ts';

/** Seed 2.1: every field a Definition always has. */
export const DEFINITION_FIELDS: readonly string[] = [
  'id',
  'workspace_id',
  'name',
  'slug',
  'description',
  'module_key',
  'entity_kinds',
  'value_type',
  'cardinality',
  'enum_values',
  'instruction',
  'refresh_policy',
  'capture_enabled',
  'auto_apply_threshold',
  'review_threshold',
  'chat_visible',
  'state',
  'est_credits_low',
  'est_credits_high',
  'last_run_credits',
  'created_by',
  'reason',
  'created_at',
  'updated_at',
  'archived_at',
];

/** Seed 2.2: the fields of an enum value object. */
export const ENUM_VALUE_FIELDS: readonly string[] = ['label', 'slug', 'description', 'color', 'archived'];

/** Seed 2.3: the collection envelope. */
export const LIST_FIELDS: readonly string[] = ['items', 'nextCursor'];

/** Seed 2.4: the key introspection object, and the members of its capabilities object. */
export const ME_FIELDS: readonly string[] = ['workspaceId', 'userId', 'role', 'scopes', 'beta', 'capabilities'];
export const CAPABILITY_FIELDS: readonly string[] = [
  'definitions',
  'graphReads',
  'graphEdits',
  'context',
  'research',
  'enrichment',
  'crm',
  'workflows',
  'automaticCapture',
  'relationEditing',
  'graphCompute',
  'operationCatalog',
  'moduleVisibility',
];

/** Seed 2.5: the merge result. */
export const MERGE_RESULT_FIELDS: readonly string[] = ['rewritten'];

/**
 * Part 7: the error envelope. `data` is optional and its content "not shown" (rule 4): its
 * presence is the server's choice, so it is not compared either.
 */
export const ERROR_FIELDS: readonly string[] = ['defined', 'code', 'status', 'message'];

/** The named fields of `o` that it has (absent ones stay absent, so a dropped field still shows). */
export function pick(o: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.hasOwn(o, f)) out[f] = o[f];
  return out;
}

/** An enum value as seed 2.2 defines it; anything but an object is kept as it is. */
export function documentedEnumValue(v: unknown): unknown {
  return isObject(v) ? pick(v, ENUM_VALUE_FIELDS) : v;
}

/** A Definition as seed 2.1 defines it: its 25 fields, enum values as 2.2 defines them. */
export function documentedDefinition(d: Record<string, unknown>): Record<string, unknown> {
  const out = pick(d, DEFINITION_FIELDS);
  if (Array.isArray(out.enum_values)) out.enum_values = out.enum_values.map(documentedEnumValue);
  return out;
}

/** GET /me's answer as seed 2.4 defines it. */
export function documentedMe(m: Record<string, unknown>): Record<string, unknown> {
  const out = pick(m, ME_FIELDS);
  if (isObject(out.capabilities)) out.capabilities = pick(out.capabilities, CAPABILITY_FIELDS);
  return out;
}

/** True when the object looks like an error envelope (part 7's four required members). */
const isErrorEnvelope = (o: Record<string, unknown>): boolean => ERROR_FIELDS.every((f) => Object.hasOwn(o, f));
/** True when the object looks like a collection envelope (2.3). */
const isListEnvelope = (o: Record<string, unknown>): boolean => Array.isArray(o.items) && Object.hasOwn(o, 'nextCursor');
/** True when the object looks like a Definition (2.1: an id, a workspace_id and enum values). */
const isDefinition = (o: Record<string, unknown>): boolean => typeof o.id === 'string' && Object.hasOwn(o, 'workspace_id') && Object.hasOwn(o, 'enum_values');
/** True when the object looks like GET /me's answer (2.4). */
const isMe = (o: Record<string, unknown>): boolean => Object.hasOwn(o, 'workspaceId') && Object.hasOwn(o, 'scopes') && Object.hasOwn(o, 'capabilities');

/**
 * The documented part of an answer body whose shape the document shows: an error envelope, a
 * collection envelope (its Definition items projected too), a Definition, GET /me, a merge
 * result. A body of a shape the document does not show (receipts, the catalog, /data) is
 * returned as it is: callers that compare such bodies must tolerate what varies per request.
 */
export function documentedBody(body: unknown): unknown {
  if (!isObject(body)) return body;
  if (isErrorEnvelope(body)) return pick(body, ERROR_FIELDS);
  if (isListEnvelope(body)) {
    const out = pick(body, LIST_FIELDS);
    out.items = (body.items as unknown[]).map((i) => (isObject(i) && isDefinition(i) ? documentedDefinition(i) : i));
    return out;
  }
  if (isDefinition(body)) return documentedDefinition(body);
  if (isMe(body)) return documentedMe(body);
  if (Object.hasOwn(body, 'rewritten') && typeof body.rewritten === 'number') return pick(body, MERGE_RESULT_FIELDS);
  return body;
}
