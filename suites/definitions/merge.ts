/**
 * merge-value at its edges (DEF-022's readings, DEF-030). On one definition with four values,
 * merge a value into itself, merge from an unknown slug, merge into an unknown slug, merge two
 * live values, and merge into an archived value. Each answer must be one of the readings the
 * catalog accepts for that call, and the definition, read back (after the three calls that must
 * change nothing together, after each merge on its own) and compared by slug, must show no
 * change those readings do not allow: only the value merged away may change (archived, removed
 * or kept), and a refusal or a no-op changes nothing.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable, type Evidence } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { validateSchema } from '../../src/spec/validate.ts';
import { is2xx } from '../_shared/definitions.ts';
import { ENUM_VALUE_FIELDS, pick } from '../_shared/documented.ts';
import { brief, canonical, isObject } from '../_shared/json.ts';
import { readBack, walkMaxCredits } from './listing.ts';
import { ADMIN, apiSpec, refusalEvidence, setupDefinition, shown, slugsOf } from './support.ts';
import { changedFields } from './violation-map.ts';

/** Refusals 7 rule 4 leaves open for a merge-value the definition cannot carry out. */
const REFUSALS = [400, 404, 409, 422] as const;

/** Readings of a merge-value answer: refused, a 2xx that changes nothing, a 2xx that merges. */
type Reading = 'refused' | 'no-op' | 'merged';

/** One merge-value call of the check and the readings the catalog accepts for it (DEF-022). */
interface Step {
  what: string;
  fromSlug: string;
  intoSlug: string;
  /** How a 2xx answer is read: a no-op, or a merge; undefined when only a refusal is allowed. */
  on2xx?: 'no-op' | 'merged';
  /** Whether a refusal is allowed (a merge of two live values must go through). */
  mayRefuse: boolean;
}

const FOUR_VALUES = { valueType: 'enum', enumValues: [{ label: 'Alpha' }, { label: 'Beta' }, { label: 'Gamma' }, { label: 'Delta' }] } as const;
/**
 * Reads of the definition: before; after the three calls that must change nothing, after the
 * merge, after the archiving PATCH and after the merge into the archived value; and a second
 * read after each of the two groups that may be all refusals.
 */
const MAX_READS = 7;

/** merge-value's edges: each answer a reading DEF-022 accepts, and no change DEF-030 does not allow. */
export const mergeValueSlugs: CheckDef = {
  id: 'definitions/merge-value-slugs',
  title: 'merge-value of a value into itself, from or into an unknown slug, or into an archived value answers as allowed, and a merge changes only the value merged away',
  clauses: ['DEF-022', 'DEF-030'],
  needs: { mutation: true },
  // A create, five merge-values, the archiving PATCH, the clean-up archive and the reads, whatever the readings.
  maxCredits: 8 + MAX_READS * walkMaxCredits(1),
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const created = await setupDefinition(ctx, key, { ...FOUR_VALUES });
    const id = created.definition.id;
    const [a, b, c, d] = slugsOf(created.definition, 4, created.exchange) as [string, string, string, string];
    let unknown = 'wgc-no-such-value';
    while ([a, b, c, d].includes(unknown)) unknown += '-x';
    let before = await readOne(ctx, key, id);
    const steps: Step[] = [
      { what: 'merging a value into itself', fromSlug: a, intoSlug: a, on2xx: 'no-op', mayRefuse: true },
      { what: 'merging from a slug no value has', fromSlug: unknown, intoSlug: b, on2xx: 'no-op', mayRefuse: true },
      { what: 'merging into a slug no value has', fromSlug: b, intoSlug: unknown, mayRefuse: true },
      { what: 'merging two live values', fromSlug: b, intoSlug: c, on2xx: 'merged', mayRefuse: false },
    ];
    // The calls that must change nothing share one read; the merge gets its own.
    before = (await mergeSteps(ctx, key, id, steps.slice(0, 3), before)) ?? before;
    await mergeSteps(ctx, key, id, steps.slice(3), before);
    // Into an archived value: archived by a PATCH first (DEF-019 judges that PATCH).
    const patch = await ctx.api.send({ method: 'PATCH', path: `/definitions/${encodeURIComponent(id)}`, key, body: { reason: 'conformance check: archive a value', archiveEnumValueSlugs: [d] } });
    before = await readOne(ctx, key, id);
    if (is2xx(patch) && valuesBySlug(before.item).get(d)?.archived === true) {
      await mergeSteps(ctx, key, id, [{ what: 'merging into an archived value', fromSlug: a, intoSlug: d, on2xx: 'merged', mayRefuse: true }], before);
    }
  },
};

/** A definition as listed (includeArchived=true), and the page that showed it. */
interface Read {
  item: Record<string, unknown>;
  page: Exchange;
}

async function readOne(ctx: CheckContext, key: KeyHandle, id: string): Promise<Read> {
  const { found, listing } = await readBack(ctx, key, [id]);
  const item = found.get(id);
  // Listing it is DEF-015's and DEF-029's concern; without it nothing here can be compared.
  if (!item) throw new NotObservable(`the definition ${id} is not listed with includeArchived=true, so what merge-value changed cannot be read`);
  return { item, page: listing.exchanges.at(-1)! };
}

/** A merge-value sent and how its answer reads. */
interface Sent {
  step: Step;
  ex: Exchange;
  reading: Reading;
}

const READING_WORDS: Record<Reading, string> = { refused: 'refused', 'no-op': 'answered as a no-op', merged: 'merged' };

/**
 * Sends the merge-values of `steps` in order, judges each answer (DEF-022), then reads the
 * definition back once and judges what they changed together (DEF-030): one read per group
 * keeps the check's credits low, and each finding names every call of its group with its answer.
 * Returns the read after them.
 */
async function mergeSteps(ctx: CheckContext, key: KeyHandle, id: string, steps: readonly Step[], before: Read): Promise<Read | undefined> {
  const sent: Sent[] = [];
  for (const step of steps) {
    const body = { fromSlug: step.fromSlug, intoSlug: step.intoSlug, reason: 'conformance check: merge edge' };
    const ex = await ctx.api.send({ method: 'POST', path: `/definitions/${encodeURIComponent(id)}/merge-value`, key, body });
    const reading = await judgeAnswer(ctx, step, ex);
    if (reading !== undefined) sent.push({ step, ex, reading });
  }
  if (sent.length === 0) return undefined;
  const after = await readOne(ctx, key, id);
  const evidence = changeEvidence(sent, before.item, after.item);
  ctx.judged('DEF-030');
  if (sent.every((s) => s.reading === 'refused') && changedFields(before.item, after.item).includes('updated_at')) {
    // Told apart from a listing that touches what it lists (SVC-005's) by a read with no write in between.
    const again = await readOne(ctx, key, id);
    if (canonical(again.item.updated_at) === canonical(after.item.updated_at)) evidence.push(`updated_at moved from ${brief(before.item.updated_at)} to ${brief(after.item.updated_at)}`);
  }
  const merged = sent.some((s) => s.reading === 'merged');
  for (const message of evidence) {
    ctx.softFail({
      clause: 'DEF-030',
      message: `${sent.map((s) => `${s.step.what} (${READING_WORDS[s.reading]})`).join(', then ')}: ${message}`,
      expected: merged ? 'only the value merged away changed (archived, removed or as it was)' : 'the definition as it was',
      received: brief(after.item.enum_values),
      exchange: after.page,
      context: [...sent.map((s) => s.ex), before.page],
    });
  }
  return after;
}

/** The reading of the answer, or undefined after a finding that leaves nothing to compare. */
async function judgeAnswer(ctx: CheckContext, step: Step, ex: Exchange): Promise<Reading | undefined> {
  if (is2xx(ex)) {
    if (step.on2xx === undefined) {
      ctx.softFail({ clause: 'DEF-022', message: `${step.what} was accepted`, expected: `a refusal (${REFUSALS.join(', ')})`, received: shown(ex), exchange: ex });
      return 'merged';
    }
    const issues = validateSchema(await apiSpec(), 'MergeResult', ex.response?.json);
    ctx.judged('DEF-022');
    if (issues.length > 0) {
      ctx.softFail({
        clause: 'DEF-022',
        message: `${step.what}: the answer is not a merge result: ${issues.map((i) => i.message).join('; ')}`,
        expected: '{ rewritten: integer ≥ 0 }',
        received: shown(ex),
        exchange: ex,
      });
    }
    return step.on2xx;
  }
  if (!step.mayRefuse) {
    ctx.softFail({ clause: 'DEF-022', message: `${step.what} was not accepted`, expected: '2xx with { rewritten }', received: shown(ex), exchange: ex });
    return undefined;
  }
  const e: Evidence | undefined = refusalEvidence('DEF-022', ex, REFUSALS);
  if (e) ctx.softFail({ ...e, message: `${step.what}: ${e.message}`, expected: `a refusal (${REFUSALS.join(', ')}) with the error envelope${step.on2xx ? `, or 2xx with a merge result` : ''}` });
  // A transport failure or a 5xx leaves nothing it can be said to have refused cleanly; still compared.
  return 'refused';
}

/**
 * The enum values of a listed definition by slug, each with the fields of 2.2 only: others a
 * server adds are its own, and may move when a value is removed (a position, say).
 */
function valuesBySlug(item: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const values = Array.isArray(item.enum_values) ? item.enum_values.filter(isObject) : [];
  return new Map(values.filter((v) => typeof v.slug === 'string').map((v) => [v.slug as string, pick(v, ENUM_VALUE_FIELDS)]));
}

/** What changed that the readings of the calls do not allow, in words. */
function changeEvidence(sent: readonly Sent[], before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const out: string[] = [];
  const mergedAway = new Set(sent.filter((s) => s.reading === 'merged').map((s) => s.step.fromSlug));
  const into = new Set(sent.map((s) => s.step.intoSlug));
  const may = new Set(['enum_values', 'updated_at']);
  if (sent.some((s) => s.reading !== 'refused')) may.add('reason');
  for (const field of changedFields(before, after)) if (!may.has(field)) out.push(`${field} changed from ${brief(before[field])} to ${brief(after[field])}`);
  const was = valuesBySlug(before);
  const now = valuesBySlug(after);
  for (const [slug, value] of was) {
    const later = now.get(slug);
    const role = into.has(slug) ? ' (a value merged into)' : '';
    if (mergedAway.has(slug)) {
      if (later === undefined || canonical(later) === canonical(value) || canonical(later) === canonical({ ...value, archived: true })) continue;
      out.push(`the value merged away (${JSON.stringify(slug)}) changed otherwise than being archived: ${brief(value)} → ${brief(later)}`);
    } else if (later === undefined) {
      out.push(`the value ${JSON.stringify(slug)}${role} is gone`);
    } else if (canonical(later) !== canonical(value)) {
      out.push(`the value ${JSON.stringify(slug)}${role} changed: ${brief(value)} → ${brief(later)}`);
    }
  }
  for (const slug of now.keys()) if (!was.has(slug)) out.push(`a value ${JSON.stringify(slug)} appeared`);
  return out;
}
