/**
 * What merge-value does to the labels that carry the value merged away (DEF-032). Labels are set
 * through the test-control protocol's labels addition (POST and GET /workspaces/{ws}/labels): the
 * seed's way of setting one is a graph.apply_update change whose kind it does not show (4.8).
 * On a multi definition, one account carries the value merged away, a second carries it and the
 * value merged into, a third a bystander value; two labels of another definition (with the same
 * labels as the values merged) are bystanders too.
 * After the merge no label carries the value merged away, each of the first two carries the
 * value merged into once, and the bystanders are as they were.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { ControlLabel } from '../../src/control/types.ts';
import { validateSchema } from '../../src/spec/validate.ts';
import { is2xx } from '../_shared/definitions.ts';
import { ADMIN, apiSpec, setupDefinition, shown, slugsOf } from './support.ts';

/** A label as compared: which value of which definition an entity carries. */
type Triple = string;
const triple = (l: Pick<ControlLabel, 'definitionId' | 'entityId' | 'slug'>): Triple => JSON.stringify([l.definitionId, l.entityId, l.slug]);

/** merge-value rewrites the labels of the value merged away, once per entity, and nothing else. */
export const mergeValueLabels: CheckDef = {
  id: 'definitions/merge-value-labels',
  title: 'merge-value moves every label of the value merged away to the value merged into, once per entity, and touches no other label',
  clauses: ['DEF-032', 'DEF-022'],
  needs: { control: true, mutation: true },
  // Two creates, the merge, two clean-up archives (labels are set and read through the control protocol: free).
  maxCredits: 5,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const ws = ctx.workspaceId;
    const multi = { valueType: 'enum', cardinality: 'multi', entityKinds: ['account'] };
    const mine = await setupDefinition(ctx, key, { ...multi, enumValues: [{ label: 'Alpha' }, { label: 'Beta' }, { label: 'Gamma' }] });
    const other = await setupDefinition(ctx, key, { ...multi, enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] });
    const [from, into, bystander] = slugsOf(mine.definition, 3, mine.exchange) as [string, string, string];
    // The other definition's values are labelled as this one's first two: on a server whose slugs
    // follow the labels they share slugs with the values merged, so a rule that forgets to ask
    // which definition a label belongs to shows.
    const [otherFrom, otherInto] = slugsOf(other.definition, 2, other.exchange) as [string, string];
    const accounts: string[] = [];
    for (const n of [1, 2, 3]) accounts.push((await ctx.control.createAccount(ws, { name: `${ctx.run.prefix}labelled-${n}` })).accountId);
    const [e1, e2, e3] = accounts as [string, string, string];
    const d = mine.definition.id;
    const o = other.definition.id;
    const planted = [
      { definitionId: d, entityId: e1, slug: from },
      { definitionId: d, entityId: e2, slug: from },
      { definitionId: d, entityId: e2, slug: into },
      { definitionId: d, entityId: e3, slug: bystander },
      { definitionId: o, entityId: e1, slug: otherInto },
      { definitionId: o, entityId: e3, slug: otherFrom },
    ];
    for (const l of planted) await labelsCall('set labels', () => ctx.control.setLabel(ws, { ...l, entityKind: 'account' }));
    const before = ours(await labelsCall('list labels', () => ctx.control.labels(ws)), [d, o]);
    const missing = planted.map(triple).filter((t) => !before.includes(t));
    // The addition answered the plantings and does not list them: the harness is broken here, and the check says so (a target without the addition is not observable, above).
    if (missing.length > 0) throw new Error(`the test-control protocol's labels addition accepted labels it then does not list: ${missing.join(', ')}`);

    const ex = await ctx.api.send({
      method: 'POST',
      path: `/definitions/${encodeURIComponent(d)}/merge-value`,
      key,
      body: { fromSlug: from, intoSlug: into, reason: 'conformance check: merge labelled values' },
    });
    if (!is2xx(ex)) {
      ctx.softFail({ clause: 'DEF-022', message: 'merging two live values that labels carry was not accepted', expected: '2xx with { rewritten }', received: shown(ex), exchange: ex });
      return;
    }
    const issues = validateSchema(await apiSpec(), 'MergeResult', ex.response?.json);
    ctx.judged('DEF-022');
    if (issues.length > 0) {
      ctx.softFail({
        clause: 'DEF-022',
        message: `the merge result is not { rewritten: integer ≥ 0 }: ${issues.map((i) => i.message).join('; ')}`,
        expected: '{ rewritten: integer ≥ 0 }',
        received: shown(ex),
        exchange: ex,
      });
    }
    const after = ours(await labelsCall('list labels', () => ctx.control.labels(ws)), [d, o]);
    const expected = [
      { definitionId: d, entityId: e1, slug: into },
      { definitionId: d, entityId: e2, slug: into },
      { definitionId: d, entityId: e3, slug: bystander },
      { definitionId: o, entityId: e1, slug: otherInto },
      { definitionId: o, entityId: e3, slug: otherFrom },
    ]
      .map(triple)
      .sort();
    ctx.judged('DEF-032');
    if (JSON.stringify(after) !== JSON.stringify(expected)) {
      const name = new Map([
        [d, 'the definition'],
        [o, 'another definition'],
        [e1, 'account 1'],
        [e2, 'account 2'],
        [e3, 'account 3'],
      ]);
      const words = (t: Triple): string => {
        const [def, entity, slug] = JSON.parse(t) as string[];
        return `${name.get(entity!) ?? entity} carries ${JSON.stringify(slug)} of ${name.get(def!) ?? def}`;
      };
      const extra = after.filter((t, i) => after.indexOf(t) !== i || !expected.includes(t));
      const lost = expected.filter((t) => !after.includes(t));
      ctx.softFail({
        clause: 'DEF-032',
        message: `after merging ${JSON.stringify(from)} into ${JSON.stringify(into)} the labels are not as the merge leaves them:${lost.length ? ` missing: ${lost.map(words).join('; ')}.` : ''}${extra.length ? ` unexpected: ${extra.map(words).join('; ')}.` : ''}`,
        expected: expected.map(words).join('; '),
        received: after.map(words).join('; '),
        exchange: ex,
        context: [mine.exchange, other.exchange],
      });
    }
  },
};

/** A call of the labels addition; a target whose control protocol lacks it makes the check not observable. */
async function labelsCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof Error && e.name === 'ControlError') throw new NotObservable(`the target's test-control protocol does not ${what} (the labels addition to version 1): ${e.message}`);
    throw e;
  }
}

/** The labels of the given definitions, as sorted triples (a duplicate shows twice). */
function ours(listed: { labels?: unknown }, definitions: readonly string[]): Triple[] {
  const labels = Array.isArray(listed.labels) ? (listed.labels as ControlLabel[]) : [];
  return labels
    .filter((l) => definitions.includes(l.definitionId))
    .map(triple)
    .sort();
}
