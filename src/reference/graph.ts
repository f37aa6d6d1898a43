/**
 * POST /graph/decision-inputs (definition references for a graph edit) and GET /graph/traces
 * (the decision trail of a record, newest first, paged by next_before_revision). A trace read
 * changes nothing. Label decisions made against a definition that has since changed (or whose
 * value was archived or merged away) carry the changed_or_deleted marker.
 */
import { invalid, notFound } from './errors.ts';
import { contentHash } from './definitions.ts';
import type { TraceEvent, Workspace } from './model.ts';
import { single, type Query } from './query.ts';
import type { Ctx, Route } from './route.ts';
import { TRACE_KINDS, type TraceKind } from './trace.ts';
import { arr, lookupId, obj, parseBody, req, str, type Schema } from './validate.ts';

const definitionIds = req(arr(str({ format: 'uuid' }), { min: 1, max: 30, unique: true }));
/** The body by the variant's name of the id list. */
const INPUTS_BODY: Record<'definitionIds' | 'definition_ids', Schema<Record<string, string[]>>> = { definitionIds: obj({ definitionIds }), definition_ids: obj({ definition_ids: definitionIds }) };

function decisionInputs(ctx: Ctx) {
  const field = ctx.store.choices.decisionInputsField;
  // Stryker disable next-line StringLiteral: the path an issue names is free (7 rule 4)
  const b = parseBody(INPUTS_BODY[field], ctx.body, 'body', ctx.relax, ctx.store.reading);
  // Stryker disable next-line BlockStatement: neither the request nor the answer of POST /graph/decision-inputs is shown (TRACE-015 is not observable): an answer without recognisable references leaves TRACE-020 with nothing to judge
  const refs = b[field]!.map((id) => {
    const rec = ctx.ws.definitions.get(id);
    // Stryker disable next-line ConditionalExpression: what an unknown definition id gets is not shown (TRACE-015); the checks name definitions they made
    if (!rec) throw notFound(`No definition ${id} in this workspace`);
    const revision = ctx.faults.has('decision-inputs-revision-from-zero') ? rec.revision - 1 : rec.revision;
    // Stryker disable next-line ObjectLiteral: a reference with no fields is no recognisable reference: TRACE-020 judges those it finds (TRACE-015: the answer's shape is not shown)
    return { entity_kind: 'definition', entity_id: rec.def.id, revision, content_hash: contentHash(rec.def) };
  });
  return { status: 200, body: ctx.store.choices.layout.decisionInputs(refs) };
}

// Stryker disable all: the parameters and the answer of GET /graph/traces are not shown (TRACE-016 and TRACE-018 are not observable; 2.7 names next_before_revision, related_trace_refs and the markers, not where or how they read): which parameters the reference takes, how it pages, what it marks and relates are its own. What a trace read must not do (change data: TRACE-017), its scope, capability and price (GRAPH_ROUTES) stay mutated
function intParam(q: Query, name: string, min: number, max: number): number | undefined {
  const raw = single(q, name);
  if (raw === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw invalid(`query.${name} must be an integer from ${min} to ${max}`);
  return Number(raw);
}

/** Markers of an event as read now (label decisions are checked against the current definition). */
function markersNow(ws: Workspace, e: TraceEvent): string[] {
  const markers = [...e.markers];
  if (e.against) {
    const rec = ws.definitions.get(e.against.definitionId);
    const value = rec?.def.enum_values.find((v) => v.slug === e.against!.slug);
    if (!rec || rec.def.state === 'archived' || rec.revision !== e.against.revision || !value || value.archived) markers.push('changed_or_deleted');
  }
  return markers;
}

function related(ws: Workspace, kind: TraceKind, id: string): { kind: TraceKind; id: string }[] {
  const refs: { kind: TraceKind; id: string }[] = [];
  const subjects = new Set([id]);
  if (kind === 'account') {
    for (const ap of ws.accountPeople.values()) if (ap.accountId === id) (subjects.add(ap.id), refs.push({ kind: 'person', id: ap.id }));
  } else if (kind === 'person' && ws.people.has(id)) {
    for (const ap of ws.accountPeople.values()) if (ap.personId === id) (subjects.add(ap.id), refs.push({ kind: 'person', id: ap.id }));
  }
  if (kind === 'account' || kind === 'person') {
    for (const [key, trail] of ws.traces) {
      if (key.startsWith('label_decision:') && trail[0]?.against && subjects.has(trail[0].against.entityId)) refs.push({ kind: 'label_decision', id: key.slice('label_decision:'.length) });
    }
  }
  return refs;
}

function traces(ctx: Ctx) {
  const names = ctx.store.choices.traceParams;
  const kind = single(ctx.query, names.kind);
  const id = single(ctx.query, names.id);
  if (kind === undefined || !(TRACE_KINDS as readonly string[]).includes(kind)) throw invalid(`query.${names.kind} must be one of ${TRACE_KINDS.join(', ')}`);
  if (id === undefined || id === '') throw invalid(`query.${names.id} is required`);
  const before = intParam(ctx.query, 'before_revision', 1, 1e9);
  const limit = intParam(ctx.query, 'limit', 1, 200) ?? 20;
  const subject = lookupId(id, ctx.store.reading);
  const trail = ctx.ws.traces.get(`${kind}:${subject}`);
  if (!trail) throw notFound(`No trace for ${kind} ${id} in this workspace`);
  if (ctx.faults.has('trace-read-touches-definitions')) for (const r of ctx.ws.definitions.values()) r.def.updated_at = ctx.store.now();
  const older = trail.filter((e) => before === undefined || e.revision < before).reverse();
  const events = older.slice(0, limit).map((e) => ({
    revision: e.revision,
    at: e.at,
    action: e.action,
    actor: e.actor,
    markers: markersNow(ctx.ws, e),
    ...e.trace,
    ...(e.against ? { definition_ref: { entity_kind: 'definition', entity_id: e.against.definitionId, revision: e.against.revision } } : {}),
  }));
  const next = older.length > limit ? events[events.length - 1]!.revision : null;
  const markers = [...new Set(events.flatMap((e) => e.markers))];
  return { status: 200, body: ctx.store.choices.layout.trace({ kind, id: subject, events, next_before_revision: next, related_trace_refs: related(ctx.ws, kind as TraceKind, subject), markers }) };
}

// Stryker restore all

const read = { billable: true, scopes: ['graph:read'] as const, capability: 'graphReads' as const };

export const GRAPH_ROUTES: readonly Route[] = [
  { method: 'POST', pattern: '/graph/decision-inputs', surface: 'api:graph.decision_inputs', ...read, body: true, handle: decisionInputs },
  { method: 'GET', pattern: '/graph/traces', surface: 'api:graph.traces', ...read, handle: traces },
];
