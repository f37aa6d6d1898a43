/**
 * Definition endpoints (seed 2.1, 2.2, 3, 4.3-4.7): list, create, update, archive, merge-value.
 */
import { createHash } from 'node:crypto';
import { badRequest, conflict, notFound } from './errors.ts';
import type { Definition, DefinitionRecord, EnumValue, Workspace } from './model.ts';
import { arrayParam, boolParam, page, pageParams } from './query.ts';
import type { Ctx, Route } from './route.ts';
import { newId } from './store.ts';
import { DECISION_TRACE, DECISION_TRACE_LENIENT, recordTrace } from './trace.ts';
import { arr, bool, isUuid, num, obj, oneOf, opt, parseBody, req, str } from './validate.ts';

export const MODULE_KEYS = ['customers', 'partners', 'investors', 'recruiting', 'advisors', 'vendors'] as const;
const ENTITY_KINDS = ['account', 'contact', 'deal', 'investor'] as const;
const VALUE_TYPES = ['enum', 'text', 'number', 'boolean', 'date', 'person_ref', 'account_ref'] as const;
const CARDINALITIES = ['exclusive', 'multi'] as const;
const REFRESH = ['on_ingest', 'on_ingest_and_backfill', 'manual'] as const;
/** The state of a newly created definition. */
export const INITIAL_STATE = 'draft';

const enumValueIn = obj({
  label: req(str({ min: 1, max: 80 })),
  slug: opt(str()),
  description: opt(str({ max: 500 })),
  color: opt(str({ pattern: /^#[0-9a-fA-F]{6}$/, patternName: '# and six hexadecimal digits' })),
  archived: opt(bool(), () => false),
});
const reason = req(str({ min: 1, max: 500 }));
const unit = () => num({ min: 0, max: 1 });

const createBody = obj({
  name: req(str({ min: 1, max: 80 })),
  description: opt(str({ max: 1000 })),
  moduleKey: req(oneOf(MODULE_KEYS)),
  entityKinds: req(arr(oneOf(ENTITY_KINDS), { min: 1, max: 4 })),
  valueType: req(oneOf(VALUE_TYPES)),
  cardinality: opt(oneOf(CARDINALITIES)),
  enumValues: opt(arr(enumValueIn, { max: 200 }), () => []),
  instruction: opt(str({ max: 2000 })),
  refreshPolicy: opt(oneOf(REFRESH), () => 'on_ingest' as const),
  captureEnabled: opt(bool(), () => false),
  autoApplyThreshold: opt(unit(), () => 0.85),
  reviewThreshold: opt(unit(), () => 0.6),
  chatVisible: opt(bool(), () => true),
  reason,
});
const patchBody = obj({
  reason,
  name: opt(str({ min: 1, max: 80 })),
  description: opt(str({ max: 1000 })),
  instruction: opt(str({ max: 2000 })),
  addEnumValues: opt(arr(enumValueIn, { max: 200 })),
  archiveEnumValueSlugs: opt(arr(str({ min: 1, max: 64 }), { max: 200 })),
  refreshPolicy: opt(oneOf(REFRESH)),
  captureEnabled: opt(bool()),
  autoApplyThreshold: opt(unit()),
  reviewThreshold: opt(unit()),
  chatVisible: opt(bool()),
});
const archiveBody = obj({ reason });
const mergeBody = obj({ fromSlug: req(str({ min: 1 })), intoSlug: req(str({ min: 1 })), reason });

/** A slug from free text: lowercase ASCII letters, digits and underscores, at most 60 characters. */
export function slugify(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60)
    .replace(/_+$/g, '');
  return s === '' ? 'value' : s;
}

/** `base`, or `base_2`, `base_3`... whichever is not taken yet (and then takes it). */
function uniqueSlug(base: string, taken: Set<string>): string {
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}_${n}`;
  taken.add(slug);
  return slug;
}

type EnumIn = { label: string; slug?: string; description?: string; color?: string; archived: boolean };

function toEnumValues(input: EnumIn[], taken: Set<string>): EnumValue[] {
  return input.map((v) => {
    const out: EnumValue = { label: v.label, slug: uniqueSlug(slugify(v.slug ?? v.label), taken), archived: v.archived };
    if (v.description !== undefined) out.description = v.description;
    if (v.color !== undefined) out.color = v.color;
    return out;
  });
}

/** The Definition as returned by the API: all 25 fields, enum values with slug and archived. */
export function definitionOut(d: Definition): Definition {
  return { ...d, entity_kinds: [...d.entity_kinds], enum_values: d.enum_values.map((v) => ({ ...v })) };
}

/** A stable content hash of a definition (what a decision-input reference pins). */
export function contentHash(d: Definition): string {
  const { updated_at: _u, ...content } = d;
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

function traceOf(ctx: Ctx, body: unknown): Record<string, unknown> | undefined {
  const raw = (body as Record<string, unknown>).decision_trace;
  if (raw === undefined) return undefined;
  const schema = ctx.faults.has('trace-accepts-unknown-properties') ? DECISION_TRACE_LENIENT : DECISION_TRACE;
  return parseBody(schema, raw, 'body.decision_trace');
}

/** The definition named by the path, in the caller's workspace. Malformed ids are a 400. */
function target(ctx: Ctx): DefinitionRecord {
  const id = ctx.params.definitionId!;
  if (!isUuid(id)) throw badRequest('definitionId must be a uuid');
  const rec = ctx.ws.definitions.get(id.toLowerCase());
  if (!rec) throw notFound('No such definition in this workspace');
  return rec;
}

function writable(ctx: Ctx): DefinitionRecord {
  const rec = target(ctx);
  if (rec.def.state === 'archived') throw conflict('The definition is archived');
  return rec;
}

function touch(ctx: Ctx, rec: DefinitionRecord, reasonText: string): void {
  rec.def.updated_at = ctx.store.now();
  rec.def.reason = reasonText;
  rec.revision++;
}

function list(ctx: Ctx) {
  const p = pageParams(ctx.query);
  const includeArchived = boolParam(ctx.query, 'includeArchived') ?? false;
  const modules = arrayParam(ctx.query, 'moduleKeys');
  if (modules) for (const m of modules) if (!(MODULE_KEYS as readonly string[]).includes(m)) throw badRequest(`query.moduleKeys: "${m}" is not a module key`);
  const visible = [...ctx.ws.definitions.values()]
    .map((r) => r.def)
    .filter((d) => (includeArchived || d.state !== 'archived') && (!modules || modules.includes(d.module_key)));
  const env = page(visible, p, ctx.faults);
  return { status: 200, body: { items: env.items.map(definitionOut), nextCursor: env.nextCursor } };
}

function create(ctx: Ctx) {
  const b = parseBody(createBody, ctx.body);
  const trace = traceOf(ctx, ctx.body);
  const ws: Workspace = ctx.ws;
  const now = ctx.store.now();
  const taken = new Set([...ws.definitions.values()].map((r) => r.def.slug));
  const def: Definition = {
    id: newId(),
    workspace_id: ws.id,
    name: b.name,
    slug: uniqueSlug(slugify(b.name), taken),
    description: b.description ?? null,
    module_key: b.moduleKey,
    entity_kinds: b.entityKinds,
    value_type: b.valueType,
    cardinality: b.cardinality ?? null,
    enum_values: toEnumValues(b.enumValues, new Set()),
    instruction: b.instruction ?? null,
    refresh_policy: b.refreshPolicy,
    capture_enabled: b.captureEnabled,
    auto_apply_threshold: b.autoApplyThreshold,
    review_threshold: b.reviewThreshold,
    chat_visible: b.chatVisible,
    state: INITIAL_STATE,
    est_credits_low: null,
    est_credits_high: null,
    last_run_credits: null,
    created_by: ctx.p.member.userId,
    reason: b.reason,
    created_at: now,
    updated_at: now,
    archived_at: null,
  };
  ws.definitions.set(def.id, { def, revision: 1 });
  recordTrace(ws, 'definition', def.id, { at: now, action: 'create', actor: ctx.p.member.userId, trace });
  return { status: 201, body: definitionOut(def) };
}

function update(ctx: Ctx) {
  const rec = writable(ctx);
  const b = parseBody(patchBody, ctx.body);
  const trace = traceOf(ctx, ctx.body);
  const d = rec.def;
  const slugs = new Set(d.enum_values.map((v) => v.slug));
  for (const s of b.archiveEnumValueSlugs ?? []) if (!slugs.has(s)) throw badRequest(`body.archiveEnumValueSlugs: no enum value has the slug "${s}"`);
  if (b.name !== undefined) d.name = b.name;
  if (b.description !== undefined) d.description = b.description;
  if (b.instruction !== undefined) d.instruction = b.instruction;
  if (b.refreshPolicy !== undefined) d.refresh_policy = b.refreshPolicy;
  if (b.captureEnabled !== undefined) d.capture_enabled = b.captureEnabled;
  if (b.autoApplyThreshold !== undefined) d.auto_apply_threshold = b.autoApplyThreshold;
  if (b.reviewThreshold !== undefined) d.review_threshold = b.reviewThreshold;
  if (b.chatVisible !== undefined) d.chat_visible = b.chatVisible;
  const archive = new Set(b.archiveEnumValueSlugs ?? []);
  for (const v of d.enum_values) if (archive.has(v.slug)) v.archived = true;
  d.enum_values.push(...toEnumValues(b.addEnumValues ?? [], slugs));
  touch(ctx, rec, b.reason);
  recordTrace(ctx.ws, 'definition', d.id, { at: d.updated_at, action: 'update', actor: ctx.p.member.userId, trace });
  return { status: 200, body: definitionOut(d) };
}

function archive(ctx: Ctx) {
  const rec = writable(ctx);
  const b = parseBody(archiveBody, ctx.body);
  const trace = traceOf(ctx, ctx.body);
  touch(ctx, rec, b.reason);
  rec.def.state = 'archived';
  rec.def.archived_at = rec.def.updated_at;
  recordTrace(ctx.ws, 'definition', rec.def.id, { at: rec.def.updated_at, action: 'archive', actor: ctx.p.member.userId, trace });
  return { status: 200, body: definitionOut(rec.def) };
}

function mergeValue(ctx: Ctx) {
  const rec = writable(ctx);
  const b = parseBody(mergeBody, ctx.body);
  const trace = traceOf(ctx, ctx.body);
  const d = rec.def;
  const from = d.enum_values.find((v) => v.slug === b.fromSlug);
  const into = d.enum_values.find((v) => v.slug === b.intoSlug);
  if (!from) throw badRequest(`body.fromSlug: no enum value has the slug "${b.fromSlug}"`);
  if (!into) throw badRequest(`body.intoSlug: no enum value has the slug "${b.intoSlug}"`);
  if (from === into) throw badRequest('body.intoSlug must differ from fromSlug');
  if (into.archived) throw badRequest('body.intoSlug names an archived enum value');
  let rewritten = 0;
  const holders = new Set<string>();
  for (const l of ctx.ws.labels.values()) if (l.definitionId === d.id && l.slug === into.slug) holders.add(`${l.entityKind}:${l.entityId}`);
  for (const [id, l] of ctx.ws.labels) {
    if (l.definitionId !== d.id || l.slug !== from.slug) continue;
    rewritten++;
    // An entity that already carries the target value keeps one label, not two.
    if (holders.has(`${l.entityKind}:${l.entityId}`)) ctx.ws.labels.delete(id);
    else l.slug = into.slug;
  }
  from.archived = true;
  touch(ctx, rec, b.reason);
  recordTrace(ctx.ws, 'definition', d.id, { at: d.updated_at, action: 'merge-value', actor: ctx.p.member.userId, trace });
  return { status: 200, body: { rewritten } };
}

const admin = { scopes: ['admin'] as const, capability: 'definitions' as const, billable: true, body: true, idempotent: true };

/** The definition routes. */
export const DEFINITION_ROUTES: readonly Route[] = [
  { method: 'GET', pattern: '/definitions', surface: 'api:definitions.list', billable: true, scopes: ['graph:read'], capability: 'definitions', handle: list },
  { method: 'POST', pattern: '/definitions', surface: 'api:definitions.create', ...admin, handle: create },
  { method: 'PATCH', pattern: '/definitions/:definitionId', surface: 'api:definitions.update', ...admin, handle: update },
  { method: 'POST', pattern: '/definitions/:definitionId/archive', surface: 'api:definitions.archive', ...admin, handle: archive },
  { method: 'POST', pattern: '/definitions/:definitionId/merge-value', surface: 'api:definitions.merge_value', ...admin, handle: mergeValue },
];

