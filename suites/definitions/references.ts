/**
 * The definition references POST /graph/decision-inputs prepares (2.6: they are returned by that
 * step) are within 2.6's bounds, for a fresh definition and again after it was written (TRACE-020).
 * The request and response shapes are not shown (4.9): the request forms of ops-shapes.ts are
 * tried in order, and every object of a 2xx answer with an entity_id and a revision or a
 * content_hash is judged as a reference (its four fields; any other field is free).
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { validateSchema } from '../../src/spec/validate.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, findObjects } from '../_shared/json.ts';
import { decisionInputShapes, statusesOf, tryShapes } from '../_shared/ops-shapes.ts';
import { ADMIN, apiSpec, setupDefinition, shown } from './support.ts';

const FIELDS = ['entity_kind', 'entity_id', 'revision', 'content_hash'] as const;

/** An object read as a definition reference: it names an entity and pins a revision or content. */
const looksLikeReference = (o: Record<string, unknown>): boolean => Object.hasOwn(o, 'entity_id') && (Object.hasOwn(o, 'revision') || Object.hasOwn(o, 'content_hash'));

/** What one preparation showed: the judged answer and its references, or why none was judged. */
type Prepared = { ex: Exchange; refs: Record<string, unknown>[]; form: number } | { why: string };

/** The references prepared for a fresh definition and after a PATCH of it are within 2.6's bounds. */
export const decisionInputReferences: CheckDef = {
  id: 'definitions/decision-input-references',
  title: "the definition references POST /graph/decision-inputs prepares are within 2.6's bounds, also after the definition was written",
  clauses: ['TRACE-020'],
  needs: { mutation: true },
  // A create, a PATCH, the clean-up archive, and at most two accepted preparations (refused forms are free).
  maxCredits: 5,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const { definition } = await setupDefinition(ctx, key);
    const first = await prepare(ctx, key, definition.id, 0, 'for a fresh definition');
    const patch = await ctx.api.send({
      method: 'PATCH',
      path: `/definitions/${encodeURIComponent(definition.id)}`,
      key,
      body: { reason: 'conformance check: a new revision', description: 'written again' },
    });
    const second = is2xx(patch)
      ? await prepare(ctx, key, definition.id, 'form' in first ? first.form : 0, 'after a PATCH of the definition', patch)
      : { why: `the PATCH was not accepted (${shown(patch)})` };
    const judged = [first, second].filter((p) => 'refs' in p && p.refs.length > 0);
    if (judged.length === 0) throw new NotObservable(`no definition reference to judge: ${[first, second].map((p) => ('why' in p ? p.why : 'a 2xx answer without references')).join('; ')}`);
  },
};

/**
 * POST /graph/decision-inputs for `id`, the form that worked before first; judges the references
 * of the first 2xx answer. No form answered 2xx and one answered 5xx (other than 503) is a
 * finding: the step 2.6 names failed, where a form the server does not take gets a 4xx.
 */
async function prepare(ctx: CheckContext, key: KeyHandle, id: string, preferred: number, when: string, context?: Exchange): Promise<Prepared> {
  const shapes = decisionInputShapes(id);
  const order = [shapes[preferred]!, ...shapes.filter((_, i) => i !== preferred)];
  const { accepted, attempts: answers } = await tryShapes(ctx, key, order);
  if (accepted) {
    const refs = findObjects(accepted.response?.json, looksLikeReference);
    for (const ref of refs) judge(ctx, await apiSpec(), ref, accepted, when, context);
    return { ex: accepted, refs, form: shapes.indexOf(order[answers.length - 1]!) };
  }
  // No form prepared anything, and one of them crashed (a 5xx other than 503, which a switched-off capability answers).
  const crashed = answers.filter((ex) => (ex.response?.status ?? 0) >= 500 && ex.response?.status !== 503);
  if (crashed.length > 0) {
    ctx.softFail({
      clause: 'TRACE-020',
      message: `POST /graph/decision-inputs ${when} answered no request form with references, and ${crashed.length} of them with a server error`,
      expected: 'the prepared references (2xx), or a refusal of a form the server does not take (4xx)',
      received: answers.map(shown).join(' | '),
      exchange: answers.at(-1)!,
      context: answers.slice(0, -1),
    });
  }
  return { why: `POST /graph/decision-inputs ${when} took none of the request forms tried: ${statusesOf(answers)}` };
}

function judge(ctx: CheckContext, spec: Awaited<ReturnType<typeof apiSpec>>, ref: Record<string, unknown>, ex: Exchange, when: string, context?: Exchange): void {
  const pinned = Object.fromEntries(FIELDS.filter((f) => Object.hasOwn(ref, f)).map((f) => [f, ref[f]]));
  const issues = validateSchema(spec, 'DefinitionRef', pinned);
  ctx.judged('TRACE-020');
  if (issues.length === 0) return;
  ctx.softFail({
    clause: 'TRACE-020',
    message: `a definition reference prepared ${when} is not within 2.6's bounds: ${issues.map((i) => i.message).join('; ')}`,
    expected: 'entity_kind 1-80 characters, entity_id 1-500, revision an integer above 0, content_hash 64 lowercase hex',
    received: brief(ref),
    exchange: ex,
    ...(context ? { context: [context] } : {}),
  });
}
