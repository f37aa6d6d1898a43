/**
 * Valid decision traces (generated from components/schemas/DecisionTrace, made internally
 * consistent by consistentTrace) are accepted on every definition write: create, update,
 * merge-value and archive. Their definition references are real ones, as 2.6 says they are
 * obtained: returned by POST /graph/decision-inputs for a definition of the check's (in the
 * request shapes ops-shapes.ts tries, the seed not showing them); where no shape is accepted
 * the traces carry none.
 */
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { validValue } from '../../src/generators/index.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { findObjects } from '../_shared/json.ts';
import { decisionInputShapes, tryShapes } from '../_shared/ops-shapes.ts';
import { ADMIN, TWO_VALUES, apiSpec, archive, forEachGenerated, replay, setupDefinition, shown, slugsOf, tryCreate } from './support.ts';
import { consistentTrace } from './valid-bodies.ts';

/** One generated trace per write of the sequence, or none. */
type Traces = readonly [unknown, unknown, unknown, unknown] | undefined;

/** A write of the sequence that was not accepted. */
interface Refused {
  write: string;
  exchange: Exchange;
}

/**
 * Create (with two enum values), update, merge-value and archive one definition, each carrying
 * its trace when `traces` is given. Returns the refused writes; a refused create ends the sequence.
 */
async function writeSequence(ctx: CheckContext, traces: Traces): Promise<Refused[]> {
  const key = ctx.key(ADMIN);
  const withTrace = (i: number, body: Record<string, unknown>): Record<string, unknown> => (traces ? { ...body, decision_trace: traces[i] } : body);
  const created = await tryCreate(ctx, key, withTrace(0, { ...TWO_VALUES }));
  // Each write sent with a trace is a look at whether a valid trace is accepted (TRACE-001).
  if (traces) ctx.judged('TRACE-001');
  if (!created.definition) return [{ write: 'create', exchange: created.exchange }];
  const id = encodeURIComponent(created.definition.id);
  const [fromSlug, intoSlug] = slugsOf(created.definition, 2, created.exchange);
  const refused: Refused[] = [];
  const steps: [string, () => Promise<Exchange>][] = [
    ['update', () => ctx.api.send({ method: 'PATCH', path: `/definitions/${id}`, key, body: withTrace(1, { reason: 'conformance check: traced update', description: 'traced' }) })],
    ['merge-value', () => ctx.api.send({ method: 'POST', path: `/definitions/${id}/merge-value`, key, body: withTrace(2, { fromSlug, intoSlug, reason: 'conformance check: traced merge' }) })],
    ['archive', () => archive(ctx, key, created.definition.id, 'conformance check: traced archive', traces ? { decision_trace: traces[3] } : {})],
  ];
  for (const [write, step] of steps) {
    const ex = await step();
    if (traces) ctx.judged('TRACE-001');
    if (!is2xx(ex)) refused.push({ write, exchange: ex });
    else if (write === 'archive') created.archived();
  }
  return refused;
}

/** A definition reference as 2.6 shows it: entity_kind, entity_id, revision, content_hash. */
const isReference = (o: Record<string, unknown>): boolean =>
  typeof o.entity_kind === 'string' && typeof o.entity_id === 'string' && typeof o.revision === 'number' && typeof o.content_hash === 'string';

/**
 * Definition references prepared by POST /graph/decision-inputs for a fresh definition: those of
 * the first request shape answered 2xx (an empty list when none is, or none carries any).
 */
async function preparedReferences(ctx: CheckContext): Promise<Record<string, unknown>[]> {
  const key = ctx.key(ADMIN);
  const { definition } = await setupDefinition(ctx, key);
  const { accepted } = await tryShapes(ctx, key, decisionInputShapes(definition.id));
  if (!accepted) return [];
  const refs = findObjects(accepted.response?.json, isReference).map((r) => ({ entity_kind: r.entity_kind, entity_id: r.entity_id, revision: r.revision, content_hash: r.content_hash }));
  return refs.slice(0, 30);
}

/** Generated valid traces on create, PATCH, merge-value and archive are all accepted. */
export const validTraces: CheckDef = {
  id: 'definitions/valid-traces',
  title: 'a valid decision trace is accepted on create, update, merge-value and archive',
  clauses: ['TRACE-001'],
  needs: { mutation: true },
  // The untraced baseline sequence and one traced sequence per run: four writes each; the
  // definition references: a definition, its clean-up archive and the decision-inputs call.
  credits: (numRuns) => 4 + 4 * numRuns + 3,
  async run(ctx) {
    const spec = await apiSpec();
    // Without a trace the same writes must go through; otherwise a refusal with one proves nothing.
    const baseline = await writeSequence(ctx, undefined);
    if (baseline.length > 0) {
      throw new NotObservable(`the writes are refused even without a trace: ${baseline.map((r) => `${r.write} answered ${shown(r.exchange)}`).join('; ')}`);
    }
    const schema = spec.componentSchema('DecisionTrace');
    const maxEvidence = schema.properties?.evidence?.maxItems;
    if (typeof maxEvidence !== 'number') throw new Error('openapi.yaml: DecisionTrace gives evidence no maxItems');
    // A trace a server has no reason of its own to refuse: no made-up definition references
    // (2.6: they come from POST /graph/decision-inputs), factor evidence ids among the trace's
    // own evidence, no date ahead. Every other bound is still reached.
    const refs = await preparedReferences(ctx);
    const trace = validValue(schema, { schemaPath: '#/components/schemas/DecisionTrace' })
      .map((t) => consistentTrace(t, maxEvidence))
      .map((t) => (refs.length > 0 ? { ...(t as Record<string, unknown>), definition_refs: refs } : t));
    // One generated trace per run, sent on all four writes (generating large traces is the
    // costly part of this check; what varies between writes is the endpoint, not the trace).
    const same = trace.map((t) => [t, t, t, t] as const);
    await forEachGenerated(ctx, 'TRACE-001', same, async (traces, path, ctx) => {
      for (const r of await writeSequence(ctx, traces)) {
        const i = ['create', 'update', 'merge-value', 'archive'].indexOf(r.write);
        ctx.softFail({
          clause: 'TRACE-001',
          message: `a valid decision trace on ${r.write} was refused`,
          expected: '2xx',
          received: shown(r.exchange),
          exchange: r.exchange,
          ...replay(ctx, traces[i], path),
        });
      }
    });
  },
};
