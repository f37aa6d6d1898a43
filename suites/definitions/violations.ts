/**
 * Single-bound violations of the four definition writes, derived from the OpenAPI document
 * (src/generators violations): every scenario is sent once per run (deterministic sample from
 * the run's seed; trace scenarios spread over the four writes, see scenariosFor), must be
 * refused as invalid (INVALID_STATUSES: 400, or 422 outside the table) with the error envelope,
 * and must store or change nothing (DEF-011).
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { counterexampleJson } from '../../src/engine/property.ts';
import { bodyArbitraries, type Violation } from '../../src/generators/index.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx, uniqueName } from '../_shared/definitions.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';
import { isObject } from '../_shared/json.ts';
import { SMALL_WALK_CREDITS, WALK_MAX_CREDITS, listDefinitions, walkMaxCredits } from './listing.ts';
import { ADMIN, TWO_VALUES, apiSpec, archive, canonical, distinctEnumValues, refusalEvidence, setupDefinition, slugsOf, withoutTrace, type Created } from './support.ts';
import { TRACE_CLAUSES, WRITES, changedFields, scenariosFor, under, type Write } from './violation-map.ts';

/** One bad body to send: its violation, its index (the sample's seed offset) and the clause it breaks. */
export interface Scenario {
  violation: Violation;
  index: number;
  clause: string;
}

/** The request a scenario's body goes out with, against the current target definition. */
export function send(ctx: CheckContext, write: Write, targetId: string | undefined, body: unknown): Promise<Exchange> {
  const key = ctx.key(ADMIN);
  const id = encodeURIComponent(targetId ?? '');
  switch (write) {
    case 'create':
      return ctx.api.send({ method: 'POST', path: '/definitions', key, body });
    case 'update':
      return ctx.api.send({ method: 'PATCH', path: `/definitions/${id}`, key, body });
    case 'archive':
      return ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body });
    case 'merge':
      return ctx.api.send({ method: 'POST', path: `/definitions/${id}/merge-value`, key, body });
  }
}

/**
 * Makes a generated body fit this target while keeping its one broken bound, and leaves out
 * what a server could refuse for another reason than that bound (which would hide a missed
 * one): names carry the run prefix; the trace and duplicate enum values are dropped; PATCH
 * drops generated archiveEnumValueSlugs (unknown slugs) and merge uses the target's real
 * slugs. Nothing is touched where the broken bound sits.
 */
export function fit(write: Write, v: Violation, sample: unknown, ctx: CheckContext, slugs: readonly string[]): { body: unknown; name?: string } {
  if (!isObject(sample)) return { body: sample };
  let body: Record<string, unknown> = under(v.path, 'decision_trace') ? { ...sample } : withoutTrace(sample);
  for (const field of ['enumValues', 'addEnumValues']) if (!under(v.path, field)) body = distinctEnumValues(body, field);
  let name: string | undefined;
  if (write === 'create' && !under(v.path, 'name')) {
    name = uniqueName(ctx, 'bad');
    body.name = name;
  }
  if (write === 'update' && Object.hasOwn(body, 'name') && !under(v.path, 'name')) body.name = uniqueName(ctx, 'bad');
  if (write === 'update' && !under(v.path, 'archiveEnumValueSlugs')) delete body.archiveEnumValueSlugs;
  if (write === 'merge') {
    if (Object.hasOwn(body, 'fromSlug') && !under(v.path, 'fromSlug')) body.fromSlug = slugs[0];
    if (Object.hasOwn(body, 'intoSlug') && !under(v.path, 'intoSlug')) body.intoSlug = slugs[1];
  }
  return name !== undefined ? { body, name } : { body };
}

interface Target {
  created: Created;
  slugs: string[];
  /** The target as listed before any violation reached it (what DEF-011 compares with). */
  baseline?: Record<string, unknown>;
  /** Writes to it refused as invalid so far (what DEF-011 then judges). */
  refused: number;
}

/**
 * A definition (with two enum values) for the violations to address. For the writes to an
 * existing definition it is read back through the listing first: the listing, not the create
 * answer, is what the final read-back is compared with.
 */
async function newTarget(ctx: CheckContext, write: Write): Promise<Target> {
  const created = await setupDefinition(ctx, ctx.key(ADMIN), { ...TWO_VALUES });
  const target: Target = { created, slugs: slugsOf(created.definition, 2, created.exchange), refused: 0 };
  if (write !== 'create') {
    const item = (await listDefinitions(ctx, ctx.key(ADMIN), 'true', { ids: [created.definition.id] })).byId.get(created.definition.id);
    if (item) target.baseline = item;
  }
  return target;
}

/** Sends every violation scenario of one write, then verifies that the refused ones stored or changed nothing. */
export async function runViolations(ctx: CheckContext, write: Write, declared: readonly string[], scenarios?: readonly Scenario[]): Promise<void> {
  const spec = await apiSpec();
  const key = ctx.key(ADMIN);
  // A create target first also proves a valid create goes through, so the refusals below mean something.
  let target = await newTarget(ctx, write);
  const refusedCreates = new Map<string, Exchange>();
  const all = scenarios ?? scenariosFor(write, bodyArbitraries(spec, WRITES[write].operationId).violations);
  for (const { violation: v, clause } of all) if (!declared.includes(clause)) throw new Error(`violation "${v.scenario}" maps to ${clause}, which ${write} violations do not declare`);
  // Sent CHECK_PARALLEL at a time against the current target and judged in order. A write to an
  // existing definition accepted by mistake changes its target: the scenarios after it in the
  // batch are sent again against a fresh one (only a faulty target costs those requests), so
  // each scenario meets the target it would have met one at a time.
  for (let pos = 0; pos < all.length;) {
    const t = target;
    const batch = all.slice(pos, pos + CHECK_PARALLEL).map(({ violation: v, index: i, clause }) => {
      const [sample] = fc.sample(v.value, { seed: (ctx.run.seed + i) | 0, numRuns: 1 });
      return { v, clause, ...fit(write, v, sample, ctx, t.slugs) };
    });
    const answers = await inParallel(batch, CHECK_PARALLEL, (b) => send(ctx, write, t.created.definition.id, b.body));
    for (const [j, { v, clause, body, name }] of batch.entries()) {
      pos++;
      const ex = answers[j]!;
      if (judgeViolation(ctx, write, key, { v, clause, body, name }, ex, refusedCreates)) {
        target = await newTarget(ctx, write);
        break;
      }
      if (ex.response && INVALID_STATUSES.includes(ex.response.status)) t.refused++;
    }
  }
  await verifyNothingStored(ctx, write, target, refusedCreates);
}

/** Judges one violation's answer; true when it changed the target (a fresh one is needed). */
function judgeViolation(
  ctx: CheckContext,
  write: Write,
  key: KeyHandle,
  s: { v: Violation; clause: string; body: unknown; name?: string | undefined },
  ex: Exchange,
  refusedCreates: Map<string, Exchange>,
): boolean {
  const { v, clause, body, name } = s;
  const evidence = refusalEvidence(clause, ex, INVALID_STATUSES);
  if (evidence) {
    ctx.softFail({ ...evidence, message: `${v.scenario}: ${evidence.message}`, scenario: `${v.scenario} at ${v.path || '(body)'}`, seed: ctx.run.seed, counterexample: counterexampleJson(body) });
  } else if (name !== undefined) {
    refusedCreates.set(name, ex);
  }
  if (is2xx(ex)) {
    // Accepted by mistake (already a finding): keep the record clean-up-able, and judge
    // DEF-011 on a fresh target that only refused writes touched.
    const made = ex.response?.json;
    if (write === 'create' && isObject(made) && typeof made.id === 'string') {
      const id = made.id;
      ctx.cleanup(async () => void (await archive(ctx, key, id, 'conformance run clean-up')));
    }
    if (write !== 'create') return true;
  }
  return false;
}

/** DEF-011: no refused create is listed; the target definition is as it was listed before. */
async function verifyNothingStored(ctx: CheckContext, write: Write, target: Target, refusedCreates: Map<string, Exchange>): Promise<void> {
  // A refused create stored anyway would be live: the live listing is searched for its name
  // (the smaller one on a workspace holding earlier runs' archived definitions).
  const listing = write === 'create' ? await listDefinitions(ctx, ctx.key(ADMIN), 'absent') : await listDefinitions(ctx, ctx.key(ADMIN), 'true', { ids: [target.created.definition.id] });
  const page = listing.exchanges.at(-1)!;
  if (write === 'create') {
    // Each refused create is looked for among the listed definitions.
    if (refusedCreates.size > 0) ctx.judged('DEF-011', refusedCreates.size);
    for (const item of listing.byId.values()) {
      const refused = typeof item.name === 'string' ? refusedCreates.get(item.name) : undefined;
      if (refused) {
        ctx.softFail({
          clause: 'DEF-011',
          message: `a create refused as invalid was stored anyway (listed as ${String(item.id)})`,
          expected: 'nothing stored',
          received: JSON.stringify(item).slice(0, 300),
          exchange: page,
          context: [refused],
        });
      }
    }
    return;
  }
  // A target the listing does not show cannot be compared (the listing's own clauses judge that).
  const before = target.baseline;
  const after = listing.byId.get(target.created.definition.id);
  if (!before || !after) return;
  // The comparison judges the writes refused as invalid that reached this target (none: nothing to judge).
  if (target.refused > 0) ctx.judged('DEF-011');
  let changed = changedFields(before, after);
  if (changed.includes('updated_at')) {
    // Only updated_at may have moved because the listing itself touches what it lists
    // (SVC-005's finding): a second walk with no write in between tells the two apart.
    const again = (await listDefinitions(ctx, ctx.key(ADMIN), 'true', { ids: [target.created.definition.id] })).byId.get(target.created.definition.id);
    if (again && canonical(again.updated_at) !== canonical(after.updated_at)) changed = changed.filter((f) => f !== 'updated_at');
  }
  if (changed.length > 0) {
    ctx.softFail({
      clause: 'DEF-011',
      message: `${write} writes refused as invalid changed the definition (${changed.join(', ')})`,
      expected: JSON.stringify(Object.fromEntries(changed.map((f) => [f, before[f]]))).slice(0, 600),
      received: JSON.stringify(Object.fromEntries(changed.map((f) => [f, after[f]]))).slice(0, 600),
      exchange: page,
      context: [target.created.exchange],
    });
  }
}

const violationCheck = (write: Write, title: string, own: readonly string[]): CheckDef => {
  const clauses = [...own, 'DEF-011', ...TRACE_CLAUSES];
  return {
    id: `definitions/${write}-violations`,
    title,
    clauses,
    needs: { mutation: true },
    // The target's create and clean-up archive and the final walk; for writes to an existing
    // definition also the baseline walk. Refused writes are free.
    credits: 2 + (write === 'create' ? 1 : 2) * SMALL_WALK_CREDITS,
    // Walks over a workspace holding more; a second final walk when updated_at moved.
    maxCredits: 2 + (write === 'create' ? WALK_MAX_CREDITS : 3 * walkMaxCredits(1)),
    run: (ctx) => runViolations(ctx, write, clauses),
  };
};

/** POST /definitions: each single-bound violation of the create table, enum values and trace. */
export const createViolations = violationCheck('create', 'every single-bound violation of a create body is refused as invalid (400 or 422) and stores nothing', ['DEF-006', 'DEF-007']);
/** PATCH /definitions/{id}: each single-bound violation of the update table, enum values and trace. */
export const updateViolations = violationCheck('update', 'every single-bound violation of an update body is refused as invalid (400 or 422) and changes nothing', ['DEF-007', 'DEF-008']);
/** POST /definitions/{id}/archive: reason and trace violations. */
export const archiveViolations = violationCheck('archive', 'every single-bound violation of an archive body is refused as invalid (400 or 422) and changes nothing', ['DEF-009']);
/** POST /definitions/{id}/merge-value: slug, reason and trace violations. */
export const mergeViolations = violationCheck('merge', 'every single-bound violation of a merge-value body is refused as invalid (400 or 422) and changes nothing', ['DEF-010']);
