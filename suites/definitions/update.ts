/**
 * Updating definitions (generated PATCH bodies against a definition whose every field differs
 * from the PATCH, so an ignored field shows) and merging enum values.
 */
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { Finding, NotObservable, type Evidence } from '../../src/engine/finding.ts';
import { bodyArbitraries } from '../../src/generators/index.ts';
import { validateSchema } from '../../src/spec/validate.ts';
import { is2xx, uniqueName, type DefinitionView } from '../_shared/definitions.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import type { LoadedSpec } from '../../src/spec/load.ts';
import { brief, isObject } from '../_shared/json.ts';
import { enumValueEvidence, shapeEvidence } from './shape.ts';
import { SIMPLE_FIELDS, untouchedEvidence } from './untouched.ts';
import { ADMIN, TWO_VALUES, apiSpec, distinctEnumValues, forEachGenerated, replay, sameValue, setupDefinition, shown, slugsOf, snake, timeOf, withoutTrace } from './support.ts';
import { PAGE_LIMIT, WALK_PAGES, expectListedAsAnswered, listDefinitions, walkMaxCredits } from './listing.ts';
import { pagesFor } from '../_shared/paging-walk.ts';
import { allowedReflection, cappedAdditions, enumValuesMax, nullableFields, orderedPatch, thresholdsBefore } from './valid-bodies.ts';

/**
 * Create-body values that differ from the PATCH's, so that every PATCHed field must visibly
 * change. Enum members come from the create schema; the rest only need to differ. Thresholds
 * are ordered (auto-apply ≥ review) before and after the PATCH (thresholdsBefore).
 */
export function oppositeOf(patch: Record<string, unknown>, refreshPolicies: readonly unknown[]): Record<string, unknown> {
  const other = (v: unknown, a: string, b: string): string => (v === a ? b : a);
  const out: Record<string, unknown> = { description: other(patch.description, 'wgc-before', 'wgc-before-2'), instruction: other(patch.instruction, 'wgc-before', 'wgc-before-2') };
  if (typeof patch.captureEnabled === 'boolean') out.captureEnabled = !patch.captureEnabled;
  if (typeof patch.chatVisible === 'boolean') out.chatVisible = !patch.chatVisible;
  Object.assign(out, thresholdsBefore(patch));
  if (patch.refreshPolicy !== undefined) out.refreshPolicy = refreshPolicies.find((p) => p !== patch.refreshPolicy);
  return out;
}

/** What judgePatch reads from the API document, read from it. */
export function patchFrame(spec: LoadedSpec): PatchFrame {
  const createSchema = spec.operation('createDefinition').requestBodySchema ?? {};
  return { spec, policies: createSchema.properties?.refreshPolicy?.enum ?? [], nullable: nullableFields(spec.componentSchema('Definition')), maxValues: enumValuesMax(createSchema) };
}

/** What judgePatch reads from the API document. */
export interface PatchFrame {
  spec: LoadedSpec;
  policies: readonly unknown[];
  /** The Definition's nullable fields ("" may come back as null there). */
  nullable: ReadonlySet<string>;
  /** The most enum values a definition holds (the create table's maxItems). */
  maxValues: number;
}

/**
 * PATCHes a fresh definition whose every field differs from `patch` (so that an ignored field
 * shows) and judges the answer: given fields (DEF-017), added values (DEF-018), archived slugs
 * (DEF-019), updated_at (DEF-020).
 */
async function judgePatch(
  ctx: CheckContext,
  given: Record<string, unknown>,
  frame: PatchFrame,
  replayOf: (sent: unknown) => Pick<Evidence, 'seed' | 'path' | 'counterexample'>,
  answers: Map<string, Record<string, unknown>>,
): Promise<void> {
  const key = ctx.key(ADMIN);
  const { definition: before, exchange: made } = await setupDefinition(ctx, key, { ...TWO_VALUES, ...oppositeOf(given, frame.policies) });
  const slugs = slugsOf(before, 2, made);
  // No more values than a definition may hold, and no label it has already.
  const patch = cappedAdditions(
    given,
    TWO_VALUES.enumValues.map((v) => v.label),
    frame.maxValues,
  );
  // Generated slugs name no value of this definition: archive as many real ones instead.
  if (Array.isArray(patch.archiveEnumValueSlugs)) patch.archiveEnumValueSlugs = slugs.slice(0, Math.min(2, patch.archiveEnumValueSlugs.length));
  const ex = await ctx.api.send({ method: 'PATCH', path: `/definitions/${encodeURIComponent(before.id)}`, key, body: patch });
  const at = { ...replayOf(patch), context: [made] };
  if (!is2xx(ex) || !isObject(ex.response?.json)) {
    ctx.softFail({ clause: 'DEF-017', message: 'a valid PATCH was not accepted with the Definition', expected: '2xx with the updated Definition', received: shown(ex), exchange: ex, ...at });
    return;
  }
  answers.set(before.id, ex.response.json);
  judgePatched(ctx, patch, before, slugs, ex, frame, at);
}

/**
 * Judges the 2xx answer `ex` to the valid PATCH `patch` of the definition `before` (whose enum
 * value slugs were `slugs`): given fields (DEF-017), added values (DEF-018), archived slugs
 * (DEF-019), updated_at (DEF-020).
 */
export function judgePatched(
  ctx: CheckContext,
  patch: Record<string, unknown>,
  before: DefinitionView,
  slugs: readonly string[],
  ex: Exchange,
  frame: PatchFrame,
  at: Pick<Evidence, 'seed' | 'path' | 'counterexample' | 'context'>,
): void {
  const after = ex.response?.json;
  if (!isObject(after)) return;
  for (const e of [...shapeEvidence(frame.spec, after, ex, 'the PATCH answer'), ...untouchedEvidence(patch, before as unknown as Record<string, unknown>, after, ex)]) ctx.softFail({ ...e, ...at });
  for (const name of SIMPLE_FIELDS) {
    if (patch[name] === undefined) continue;
    ctx.judged('DEF-017');
    if (sameValue(patch[name], after[snake(name)]) || allowedReflection(snake(name), patch[name], after[snake(name)], frame.nullable, before.value_type)) continue;
    ctx.softFail({ clause: 'DEF-017', message: `${snake(name)} was not changed to the PATCHed ${name}`, expected: brief(patch[name]), received: brief(after[snake(name)]), exchange: ex, ...at });
  }
  const values = Array.isArray(after.enum_values) ? after.enum_values : [];
  const fresh = values.filter((v) => !(isObject(v) && slugs.includes(v.slug as string)));
  const added = Array.isArray(patch.addEnumValues) ? (patch.addEnumValues as Record<string, unknown>[]) : [];
  for (const e of enumValueEvidence('DEF-018', added, fresh, ex, 'added enum value')) ctx.softFail({ ...e, ...at });
  for (const slug of (patch.archiveEnumValueSlugs as string[] | undefined) ?? []) {
    const v = values.find((x) => isObject(x) && x.slug === slug);
    ctx.judged('DEF-019');
    if (isObject(v) && v.archived === true) continue;
    ctx.softFail({
      clause: 'DEF-019',
      message: `the enum value ${JSON.stringify(slug)} is not archived after archiveEnumValueSlugs named it`,
      expected: 'archived true',
      received: brief(v ?? values),
      exchange: ex,
      ...at,
    });
  }
  const [was, now, created] = [timeOf(before.updated_at), timeOf(after.updated_at), timeOf(after.created_at)];
  if (was === undefined || now === undefined || created === undefined) {
    throw new NotObservable(`updated_at cannot be compared: the timestamps do not parse (before ${brief(before.updated_at)}, after ${brief(after.updated_at)}, created ${brief(after.created_at)})`);
  }
  ctx.judged('DEF-020');
  if (now < was || now < created) {
    ctx.softFail({
      clause: 'DEF-020',
      message: `updated_at went back to ${String(after.updated_at)}`,
      expected: `not before ${before.updated_at} (previous) nor ${String(after.created_at)} (created)`,
      received: String(after.updated_at),
      exchange: ex,
      ...at,
    });
  }
}

/** Generated PATCH bodies: given fields changed, enum values added and archived, updated_at moved forward. */
export const patchProperty: CheckDef = {
  id: 'definitions/patch-property',
  title: 'valid PATCHes (one fixed with every field, then generated) change each given field, add and archive enum values, and never move updated_at back',
  clauses: ['DEF-001', 'DEF-002', 'DEF-005', 'DEF-017', 'DEF-018', 'DEF-019', 'DEF-020', 'DEF-028', 'DEF-029'],
  needs: { mutation: true },
  // Per PATCH (one fixed, one per run): a fresh definition, the PATCH, the clean-up archive;
  // one walk reading the PATCHed definitions back (live: the suite's earlier checks archived theirs).
  credits: (numRuns) => 3 * (numRuns + 1) + Math.min(WALK_PAGES, pagesFor(numRuns + 1, PAGE_LIMIT)),
  // The walk over a workspace holding more, or ending on an empty page.
  maxCredits: (numRuns) => 3 * (numRuns + 1) + walkMaxCredits(numRuns + 1),
  async run(ctx) {
    const spec = await apiSpec();
    const createSchema = spec.operation('createDefinition').requestBodySchema ?? {};
    const frame = patchFrame(spec);
    // Every field at once, whatever the generator happens to include.
    const full = {
      reason: 'conformance check: full patch',
      name: uniqueName(ctx, 'patched'),
      description: 'patched',
      instruction: 'patched',
      refreshPolicy: frame.policies.at(-1),
      captureEnabled: true,
      // Ordered as the defaults are (auto-apply ≥ review): a server may refuse them inverted.
      autoApplyThreshold: 0.7,
      reviewThreshold: 0.3,
      chatVisible: false,
      addEnumValues: [{ label: 'Gamma' }, { label: 'Delta', description: 'added', color: '#00aa11' }],
      archiveEnumValueSlugs: ["(one of the definition's own slugs)"],
    };
    // What each PATCH answered, by id: the listed copy must be the same (DEF-029).
    const answers = new Map<string, Record<string, unknown>>();
    await judgePatch(ctx, full, frame, (sent) => ({ counterexample: JSON.stringify(sent) }), answers);
    // Each run's answer is gathered in run order (the listing comparison reports in that order).
    const perRun = await forEachGenerated(ctx, 'DEF-017', bodyArbitraries(spec, 'updateDefinition').valid, async (generated, path, ctx) => {
      const patch = orderedPatch(withoutTrace(distinctEnumValues(generated as Record<string, unknown>, 'addEnumValues')));
      if (patch.name !== undefined) patch.name = uniqueName(ctx, 'patched');
      const mine = new Map<string, Record<string, unknown>>();
      await judgePatch(ctx, patch, frame, (sent) => replay(ctx, sent, path), mine);
      return mine;
    });
    for (const mine of perRun) for (const [id, answer] of mine) answers.set(id, answer);
    if (answers.size > 0) expectListedAsAnswered(ctx, 'DEF-029', answers, await listDefinitions(ctx, ctx.key(ADMIN), 'absent', { ids: [...answers.keys()] }), 'PATCH');
  },
};

/** merge-value of two existing values answers { rewritten: integer ≥ 0 }. */
export const mergeValue: CheckDef = {
  id: 'definitions/merge-value',
  title: 'merge-value of two existing enum values returns the merge result',
  clauses: ['DEF-022'],
  needs: { mutation: true },
  credits: 3,
  async run(ctx) {
    const spec = await apiSpec();
    const key = ctx.key(ADMIN);
    const { definition, exchange } = await setupDefinition(ctx, key, { ...TWO_VALUES });
    const [fromSlug, intoSlug] = slugsOf(definition, 2, exchange);
    const body = { fromSlug, intoSlug, reason: 'conformance check: merge' };
    const ex = await ctx.api.send({ method: 'POST', path: `/definitions/${encodeURIComponent(definition.id)}/merge-value`, key, body });
    if (!is2xx(ex))
      throw new Finding({
        clause: 'DEF-022',
        message: 'merging two existing enum values was not accepted',
        expected: '2xx with { rewritten }',
        received: shown(ex),
        exchange: ex,
        context: [exchange],
      });
    const issues = validateSchema(spec, 'MergeResult', ex.response?.json);
    ctx.judged('DEF-022');
    if (issues.length > 0) {
      throw new Finding({
        clause: 'DEF-022',
        message: `the merge result is not { rewritten: integer ≥ 0 }: ${issues.map((i) => i.message).join('; ')}`,
        expected: '{ rewritten: integer ≥ 0 }',
        received: shown(ex),
        exchange: ex,
      });
    }
  },
};
