/**
 * The edges of every bound of the four definition writes, sent every run (src/generators/edges.ts),
 * on each write that carries the field (the decision trace on all four):
 *
 * - the first invalid value on each side of each bound, alone in an otherwise minimal body,
 *   must be refused as invalid (400, or 422) and store or change nothing, exactly as the
 *   generated violations are judged (violations.ts);
 * - the last valid values, packed into a few bodies (bundleEdges), must be accepted, and the
 *   answer is judged as the generated valid writes are (create.ts, update.ts). A bundle refused
 *   as invalid is split: each of its edges is sent alone, and each one refused is a finding on
 *   the clause of its bound.
 *
 * fast-check keeps generating the interior and the mixes (violations.ts, create.ts, update.ts).
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { NotObservable, type Evidence } from '../../src/engine/finding.ts';
import { bundleEdges, edges, type Edge } from '../../src/generators/edges.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import type { LoadedSpec } from '../../src/spec/load.ts';
import { is2xx, uniqueName } from '../_shared/definitions.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';
import { judgeCreated } from './create.ts';
import { shapeEvidence } from './shape.ts';
import { ADMIN, TWO_VALUES, apiSpec, refusalEvidence, setupDefinition, shown, slugsOf, type Created } from './support.ts';
import { judgePatched, oppositeOf, patchFrame } from './update.ts';
import { consistentTrace } from './valid-bodies.ts';
import { TRACE_CLAUSES, WRITES, clauseOf, type Write } from './violation-map.ts';
import { runViolations, send, type Scenario } from './violations.ts';

/**
 * Valid edges whose value a server may refuse for another reason than the bound: slugs in
 * archiveEnumValueSlugs, fromSlug and intoSlug must name values of the definition (the edge
 * bodies' own slugs name none; the check puts real ones in their place), and definition
 * references come from POST /graph/decision-inputs (2.6), so made-up ones may be refused
 * (traces.ts sends real ones). Their invalid edges are sent all the same.
 */
export const VALID_ELSEWHERE: Readonly<Record<Write, readonly string[]>> = {
  create: ['/decision_trace/definition_refs'],
  update: ['/archiveEnumValueSlugs/0', '/decision_trace/definition_refs'],
  archive: ['/decision_trace/definition_refs'],
  merge: ['/fromSlug', '/intoSlug', '/decision_trace/definition_refs'],
};

/** The edges of one write's body, as the checks send them (docs/coverage.md is generated from them). */
export function edgesOf(spec: LoadedSpec, write: Write): Edge[] {
  const op = spec.operation(WRITES[write].operationId);
  return edges(op.requestBodySchema ?? {}, { schemaPath: `#/paths/${op.path}/${op.method.toLowerCase()}/requestBody` });
}

/** The one invalid edge whose value must name what the server issued: one slug more than archiveEnumValueSlugs takes. */
const isTooManySlugs = (write: Write, e: Edge): boolean => write === 'update' && !e.valid && e.path === '/archiveEnumValueSlugs' && e.keyword === 'maxItems';

/**
 * The invalid edges as the scenarios of runViolations (those that must repeat an item are the
 * generated violations' concern; too many slugs goes out with real ones, tooManySlugs).
 */
function invalidScenarios(write: Write, all: readonly Edge[]): Scenario[] {
  return all
    .filter((e) => !e.valid && !e.repeatsItems && !isTooManySlugs(write, e))
    .map((e, index) => {
      const violation = { scenario: e.scenario, path: e.path, keyword: e.keyword, value: fc.constant(e.value) };
      return { violation, index, clause: clauseOf(write, violation) };
    });
}

/** The valid edges of one write, packed. */
function validBundles(write: Write, all: readonly Edge[]): { value: Record<string, unknown>; edges: Edge[] }[] {
  const elsewhere = VALID_ELSEWHERE[write];
  const valid = all.filter((e) => e.valid && !elsewhere.some((p) => e.path === p || e.path.startsWith(`${p}/`)));
  return bundleEdges(valid).map((b) => ({ value: b.value as Record<string, unknown>, edges: b.edges }));
}

/** A run-unique name of exactly `length` characters where that is long enough to be unique; else the edge's own. */
function nameOfLength(ctx: CheckContext, length: number, own: string): string {
  const unique = uniqueName(ctx, 'edge');
  return unique.length <= length ? unique.padEnd(length, 'x') : own;
}

/**
 * The body a valid bundle goes out with: run-unique names (of the edge's length where the name
 * is an edge), and a trace whose factors cite evidence the trace carries (consistentTrace).
 */
function named(ctx: CheckContext, spec: LoadedSpec, write: Write, value: Record<string, unknown>, carried: readonly Edge[]): Record<string, unknown> {
  const body = structuredClone(value);
  const maxEvidence = spec.componentSchema('DecisionTrace').properties?.evidence?.maxItems ?? 0;
  if (body.decision_trace !== undefined) body.decision_trace = consistentTrace(body.decision_trace, maxEvidence);
  const nameEdge = carried.find((e) => e.path === '/name');
  if (nameEdge && typeof body.name === 'string') body.name = nameOfLength(ctx, body.name.length, body.name);
  else if (write === 'create' || body.name !== undefined) body.name = uniqueName(ctx, 'edge');
  return body;
}

/** What one valid body did: accepted (and judged), refused as invalid, or answered otherwise. */
type Sent = { kind: 'accepted' } | { kind: 'refused'; exchange: Exchange } | { kind: 'other'; exchange: Exchange };

/** Sends one valid body of `write` against a fresh target where the write needs one, and judges an accepted answer. */
async function sendValid(ctx: CheckContext, spec: LoadedSpec, write: Write, body: Record<string, unknown>): Promise<Sent> {
  const key = ctx.key(ADMIN);
  const at = { counterexample: JSON.stringify(body).slice(0, 4000) };
  const outcome = (ex: Exchange): Sent =>
    is2xx(ex) ? { kind: 'accepted' } : ex.response && INVALID_STATUSES.includes(ex.response.status) ? { kind: 'refused', exchange: ex } : { kind: 'other', exchange: ex };
  switch (write) {
    case 'create': {
      const ex = await send(ctx, write, undefined, body);
      if (is2xx(ex)) judgeCreated(ctx, spec, body, ex, at);
      return outcome(ex);
    }
    case 'update': {
      const frame = patchFrame(spec);
      const slugCount = Array.isArray(body.archiveEnumValueSlugs) ? body.archiveEnumValueSlugs.length : 0;
      const adding = Array.isArray(body.addEnumValues) ? body.addEnumValues.length : 0;
      // No more values in all than a definition is created with (a server may hold it to that,
      // update.ts cappedAdditions): the target of the most values added has none of its own.
      const own = slugCount > 0 ? slugCount : adding + 2 > frame.maxValues ? 0 : 2;
      const target = await targetWith(ctx, key, own, oppositeOf(body, frame.policies));
      const slugs = own > 0 ? slugsOf(target.definition, own, target.exchange) : [];
      if (slugCount > 0) body.archiveEnumValueSlugs = slugs.slice(0, slugCount);
      const ex = await send(ctx, write, target.definition.id, body);
      if (is2xx(ex)) judgePatched(ctx, body, target.definition, slugs, ex, frame, { ...at, context: [target.exchange] });
      return outcome(ex);
    }
    case 'archive': {
      // With enum values, so the archive answer shows enum value objects to judge (DEF-005).
      const target = await setupDefinition(ctx, key, { ...TWO_VALUES });
      const ex = await send(ctx, write, target.definition.id, body);
      if (is2xx(ex)) {
        target.archived();
        for (const e of shapeEvidence(spec, ex.response?.json, ex, 'the archive answer')) ctx.softFail({ ...e, ...at });
      }
      return outcome(ex);
    }
    case 'merge': {
      const target = await setupDefinition(ctx, key, { ...TWO_VALUES });
      const [from, into] = slugsOf(target.definition, 2, target.exchange);
      const ex = await send(ctx, write, target.definition.id, { ...body, fromSlug: from, intoSlug: into });
      return outcome(ex);
    }
  }
}

/** A definition with `values` enum values whose every judged field differs from the PATCH's (update.ts oppositeOf). */
function targetWith(ctx: CheckContext, key: KeyHandle, values: number, opposite: Record<string, unknown>): Promise<Created> {
  const enumValues = values === 0 ? [] : values <= 2 ? TWO_VALUES.enumValues : Array.from({ length: values }, (_, i) => ({ label: `Value ${i + 1}` }));
  return setupDefinition(ctx, key, { ...opposite, valueType: 'enum', enumValues });
}

/**
 * Sends every valid bundle of `write`; a bundle refused as invalid is split to name each edge
 * refused. A bundle whose set-up the target refused (a definition with 200 enum values, say)
 * is left out, and the others still go; none sent at all is not observable.
 */
async function runValidEdges(ctx: CheckContext, spec: LoadedSpec, write: Write, all: readonly Edge[]): Promise<void> {
  const bundles = validBundles(write, all);
  // The bundles are independent (each has definitions of its own): they go together, and what
  // each found is reported in bundle order, as if they had gone one after another.
  const perBundle = await inParallel(bundles, CHECK_PARALLEL, async (bundle) => {
    const found: Evidence[] = [];
    const unsent: string[] = [];
    let sentAny = false;
    const bctx = Object.create(ctx, { softFail: { value: (e: Evidence) => void found.push(e) } }) as CheckContext;
    const trySend = async (value: Record<string, unknown>, carried: readonly Edge[]): Promise<Sent | undefined> => {
      try {
        const sent = await sendValid(bctx, spec, write, named(bctx, spec, write, value, carried));
        sentAny = true;
        return sent;
      } catch (e) {
        if (!(e instanceof NotObservable)) throw e;
        unsent.push(e.reason);
        return undefined;
      }
    };
    await validBundle(bctx, write, bundle, trySend);
    return { found, unsent, sentAny };
  });
  for (const b of perBundle) for (const e of b.found) ctx.softFail(e);
  const unsent = perBundle.flatMap((b) => b.unsent);
  if (unsent.length > 0 && !perBundle.some((b) => b.sentAny)) throw new NotObservable(`no valid edge could be sent: ${unsent[0]}`);
}

/** One bundle sent; refused (or its set-up not made as a whole), each of its edges alone. */
async function validBundle(
  ctx: CheckContext,
  write: Write,
  bundle: { value: Record<string, unknown>; edges: readonly Edge[] },
  trySend: (value: Record<string, unknown>, carried: readonly Edge[]) => Promise<Sent | undefined>,
): Promise<void> {
  const sent = await trySend(bundle.value, bundle.edges);
  // Refused, or its set-up could not be made as a whole: each edge alone.
  if (sent !== undefined && sent.kind !== 'refused') return;
  if (sent === undefined && bundle.edges.length === 1) return;
  for (const edge of bundle.edges) {
    const alone = bundle.edges.length === 1 ? sent : await trySend(edge.value as Record<string, unknown>, [edge]);
    if (alone?.kind !== 'refused') continue;
    ctx.softFail({
      clause: clauseOf(write, edge),
      message: `${edge.scenario}: a value just inside the bound was refused`,
      expected: '2xx: the value is valid',
      received: shown(alone.exchange),
      exchange: alone.exchange,
      scenario: `${edge.scenario} at ${edge.path}`,
      counterexample: JSON.stringify(edge.value).slice(0, 4000),
    });
  }
}

/**
 * One slug more than archiveEnumValueSlugs takes, each naming a value of the definition (made-up
 * slugs may be refused for naming nothing, which would hide an accepted count): a definition
 * with that many values (the most a create takes, then PATCHed up), and the PATCH must be
 * refused as invalid, leaving every value unarchived.
 */
async function tooManySlugs(ctx: CheckContext, spec: LoadedSpec, all: readonly Edge[]): Promise<void> {
  const edge = all.find((e) => isTooManySlugs('update', e));
  if (!edge) return;
  const count = (edge.at as unknown[]).length;
  const createMax = spec.operation('createDefinition').requestBodySchema?.properties?.enumValues?.maxItems ?? count;
  const key = ctx.key(ADMIN);
  let target: Created;
  try {
    target = await targetWith(ctx, key, Math.min(count, createMax), {});
  } catch (e) {
    // No definition with that many values: the edge cannot be sent with real slugs (DEF-006's
    // edges judge the create that refused it).
    if (e instanceof NotObservable) return;
    throw e;
  }
  let [definition, shownBy] = [target.definition, target.exchange];
  if (count > createMax) {
    const more = Array.from({ length: count - createMax }, (_, i) => ({ label: `More ${i + 1}` }));
    const grown = await send(ctx, 'update', target.definition.id, { reason: 'conformance check: more values', addEnumValues: more });
    if (!is2xx(grown)) return;
    [definition, shownBy] = [grown.response!.json as typeof definition, grown];
  }
  let slugs: string[];
  try {
    slugs = slugsOf(definition, count, shownBy);
  } catch (e) {
    // The values did not all show (an add that replaced them, say: DEF-018's finding).
    if (e instanceof NotObservable) return;
    throw e;
  }
  const ex = await send(ctx, 'update', target.definition.id, { reason: 'conformance check: too many slugs', archiveEnumValueSlugs: slugs.slice(0, count) });
  const e = refusalEvidence('DEF-008', ex, INVALID_STATUSES);
  if (e) ctx.softFail({ ...e, message: `${edge.scenario}, each naming a value of the definition: ${e.message}`, scenario: `${edge.scenario} at ${edge.path}` });
}

/** Bundles of valid edges per write (bundleEdges over specs/openapi.yaml; the credit-plan test holds these to it). */
const BUNDLES: Readonly<Record<Write, number>> = { create: 10, update: 10, archive: 10, merge: 10 };
/** Billed calls per valid bundle: the write and the target's create and clean-up archive, as each write needs. */
const PER_BUNDLE: Readonly<Record<Write, number>> = { create: 2, update: 3, archive: 2, merge: 3 };
/** What tooManySlugs is charged: the definition, the PATCH adding a value, the clean-up archive (the refused PATCH is free). */
const TOO_MANY_SLUGS = 3;
/** The most edges one bundle carries (create's first bundle): what splitting one costs at most, per edge. */
const LARGEST_BUNDLE = 50;

/** What a valid answer is judged for, per write (create.ts judgeCreated, update.ts judgePatched). */
const VALID_CLAUSES: Readonly<Record<Write, readonly string[]>> = {
  create: ['DEF-001', 'DEF-002', 'DEF-003', 'DEF-004', 'DEF-005', 'DEF-012'],
  update: ['DEF-001', 'DEF-002', 'DEF-005', 'DEF-017', 'DEF-018', 'DEF-019', 'DEF-020', 'DEF-028'],
  archive: ['DEF-001', 'DEF-002', 'DEF-005'],
  merge: [],
};

const edgeCheck = (write: Write, own: readonly string[]): CheckDef => {
  // The trace clauses an edge can break (an edge never adds an unknown trace property, TRACE-012: the violation checks do).
  const clauses = [...new Set([...own, 'DEF-011', ...TRACE_CLAUSES.filter((c) => c !== 'TRACE-012'), ...VALID_CLAUSES[write]])];
  return {
    id: `definitions/${write}-edges`,
    title: `both edges of every bound of a ${write} body: the last valid value accepted, the first invalid one refused as invalid (400 or 422) with nothing stored or changed`,
    clauses,
    needs: { mutation: true },
    // The valid bundles, each accepted (refused invalid edges are free); the invalid edges'
    // target create, its clean-up archive and the final read-back walk (runViolations); for
    // writes to an existing definition also the baseline read.
    credits: BUNDLES[write] * PER_BUNDLE[write] + 2 + (write === 'create' ? 1 : 2) + (write === 'update' ? TOO_MANY_SLUGS : 0),
    // A bundle another conformant server refuses for a reason of its own is split: each of its
    // edges alone; read-backs over a workspace holding more.
    maxCredits: BUNDLES[write] * PER_BUNDLE[write] + LARGEST_BUNDLE * PER_BUNDLE[write] + 2 + 3 * 6 + (write === 'update' ? TOO_MANY_SLUGS : 0),
    async run(ctx) {
      const spec = await apiSpec();
      const all = edgesOf(spec, write);
      await runValidEdges(ctx, spec, write, all);
      if (write === 'update') await tooManySlugs(ctx, spec, all);
      await runViolations(ctx, write, clauses, invalidScenarios(write, all));
    },
  };
};

/** POST /definitions: every edge of the create table, enum values and trace. */
export const createEdges = edgeCheck('create', ['DEF-006', 'DEF-007']);
/** PATCH /definitions/{id}: every edge of the update table, enum values and trace. */
export const updateEdges = edgeCheck('update', ['DEF-007', 'DEF-008']);
/** POST /definitions/{id}/archive: every edge of the reason and trace. */
export const archiveEdges = edgeCheck('archive', ['DEF-009']);
/** POST /definitions/{id}/merge-value: every edge of the slugs, reason and trace. */
export const mergeEdges = edgeCheck('merge', ['DEF-010']);
