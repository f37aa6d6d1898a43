/**
 * Which clause a generated violation of a definition write breaks, read from the JSON path
 * of its bad value: inside the decision trace, the TRACE clause of that sub-object; inside
 * an enum value object, DEF-007; otherwise the write's own clause. And the fields a refused
 * write must leave as they were (DEF-011).
 */
import type { Violation } from '../../src/generators/index.ts';
import { canonical } from './support.ts';
import { comparableRenderings } from '../_shared/definitions.ts';

/** The four definition writes. */
export type Write = 'create' | 'update' | 'archive' | 'merge';

/** Each write's operation in specs/openapi.yaml and the clause of its own table's bounds. */
export const WRITES: Readonly<Record<Write, { operationId: string; own: string }>> = {
  create: { operationId: 'createDefinition', own: 'DEF-006' },
  update: { operationId: 'updateDefinition', own: 'DEF-008' },
  archive: { operationId: 'archiveDefinition', own: 'DEF-009' },
  merge: { operationId: 'mergeDefinitionValue', own: 'DEF-010' },
};

/** Every clause a decision-trace violation can break. */
export const TRACE_CLAUSES = ['TRACE-002', 'TRACE-003', 'TRACE-004', 'TRACE-005', 'TRACE-006', 'TRACE-007', 'TRACE-008', 'TRACE-009', 'TRACE-010', 'TRACE-011', 'TRACE-012'] as const;

/** Trace arrays of objects: the array's item count is TRACE-004, a bound of an item its own clause. */
const TRACE_OBJECT_ARRAYS: Readonly<Record<string, string>> = {
  factors: 'TRACE-007',
  evidence: 'TRACE-008',
  definition_refs: 'TRACE-009',
  observations: 'TRACE-010',
};
const TRACE_FIELDS: Readonly<Record<string, string>> = {
  reason: 'TRACE-002',
  basis: 'TRACE-003',
  intent: 'TRACE-003',
  alternatives: 'TRACE-005',
  unknowns: 'TRACE-005',
  event_at: 'TRACE-006',
  reported_origin: 'TRACE-011',
};

/** True when the JSON pointer is the field itself or lies under it ("/name", "/name/0"). */
export function under(path: string, field: string): boolean {
  return path === `/${field}` || path.startsWith(`/${field}/`);
}

function traceClause(rest: readonly string[], v: Pick<Violation, 'path' | 'keyword' | 'scenario'>): string {
  if (v.keyword === 'additionalProperties') return 'TRACE-012';
  const [field, index] = rest;
  // A trace that is not an object at all has no reason.
  if (field === undefined) return 'TRACE-002';
  const arrayClause = TRACE_OBJECT_ARRAYS[field];
  if (arrayClause) return index === undefined ? 'TRACE-004' : arrayClause;
  const clause = TRACE_FIELDS[field];
  // A trace field this map does not know means specs/openapi.yaml grew: the map must follow.
  if (!clause) throw new Error(`violation "${v.scenario}" is in a trace field (${field}) that no TRACE clause is mapped to`);
  return clause;
}

/** The clause `v` breaks on `write`. */
export function clauseOf(write: Write, v: Pick<Violation, 'path' | 'keyword' | 'scenario'>): string {
  const segments = v.path.split('/').slice(1);
  if (segments[0] === 'decision_trace') return traceClause(segments.slice(1), v);
  // The objects inside enumValues / addEnumValues are enum value objects (DEF-007); the array
  // itself (type, item count) is a bound of the write's own table.
  if ((segments[0] === 'enumValues' || segments[0] === 'addEnumValues') && segments.length > 1) return 'DEF-007';
  return WRITES[write].own;
}

/** Definition fields a write can change: a refused write must leave each as it was. */
const WRITABLE = [
  'name',
  'description',
  'instruction',
  'refresh_policy',
  'capture_enabled',
  'auto_apply_threshold',
  'review_threshold',
  'chat_visible',
  'enum_values',
  'reason',
  'updated_at',
  'archived_at',
] as const;

/**
 * The writable fields that differ between two renderings of one definition, plus "state" when
 * it moved into or out of archived. Fields a service may fill in the background (credit
 * estimates, other state transitions, which the seed does not show) are left out, and so is
 * updated_at when the state moved between non-archived states (comparableRenderings).
 */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const [x, y] = comparableRenderings(before, after);
  const out: string[] = WRITABLE.filter((f) => canonical(x[f]) !== canonical(y[f]));
  if (x.state !== y.state) out.push('state');
  return out;
}

const WRITE_ORDER: readonly Write[] = ['create', 'update', 'archive', 'merge'];

/**
 * The scenarios one write sends. Its own table's violations all; the decision trace is the
 * same object on every write, so its scenarios are spread over the four writes (the i-th
 * scenario of each TRACE clause goes to write i mod 4), every write still getting at least
 * one scenario of every TRACE clause. Every scenario is thus sent once in a run, every write
 * meets every TRACE clause, and the run stays a few hundred requests.
 */
export function scenariosFor(write: Write, all: readonly Violation[]): { violation: Violation; index: number; clause: string }[] {
  const w = WRITE_ORDER.indexOf(write);
  const byClause = new Map<string, number[]>();
  all.forEach((v, index) => {
    const clause = clauseOf(write, v);
    if (clause.startsWith('TRACE-')) byClause.set(clause, [...(byClause.get(clause) ?? []), index]);
  });
  const chosen = new Set<number>();
  for (const indexes of byClause.values()) {
    const mine = indexes.filter((_, i) => i % WRITE_ORDER.length === w);
    for (const index of mine.length > 0 ? mine : [indexes[w % indexes.length]!]) chosen.add(index);
  }
  return all.map((violation, index) => ({ violation, index, clause: clauseOf(write, violation) })).filter((s) => !s.clause.startsWith('TRACE-') || chosen.has(s.index));
}
