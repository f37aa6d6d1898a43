/**
 * Changing workspace labels needs both the admin scope and an owner or admin workspace role
 * (4.8, graph.apply_update rule 2; ROLE-006), each half on its own. The change kind that sets a
 * label is not shown in the document; the live catalog lists it (part 9 rule 2), so the check
 * finds it there: a change kind of graph.apply_update whose name speaks of a label. Its change
 * object is not shown either: the check forms the candidates below, the one whose argument names
 * the catalog's notes mention most going first, and keeps the first one that an owner holding
 * graph:read, graph:write and admin gets applied (the label shows in the control protocol's
 * label read, an addition to version 1).
 *
 * Then the same change, each on an account of its own, by an owner's key without admin (the
 * scope half) and by an analyst's key with admin (the role half): neither may leave the label
 * set. How the refusal shows is left to the target (a 403, a refused or failed receipt, a
 * skipped change); only the label's absence is judged, after the receipt is finished.
 */
import type { CheckContext, CheckDef, KeyHandle, Scope } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { ChangeKindEntry } from '../../src/target/live-catalog.ts';
import { memberKey } from '../_shared/access-cast.ts';
import { applyUpdate, applyUpdateKinds, kindNamed, submitAndSettle, type Settled } from '../_shared/change-kinds.ts';
import { createDefinition } from '../_shared/definitions.ts';
import { adminKey } from './cast.ts';

/** What a label change names: the definition, the labelled entity and the value. */
interface Target {
  definitionId: string;
  accountId: string;
  slug: string;
}

/** Candidate change objects of a label change kind, in the spellings a server would use. */
const FORMS: readonly ((kind: string, t: Target) => Record<string, unknown>)[] = [
  (kind, t) => ({ kind, target_label: 'Label', definition_id: t.definitionId, entity_kind: 'account', entity_id: t.accountId, value_slug: t.slug }),
  (kind, t) => ({ kind, target_label: 'Label', definitionId: t.definitionId, entityKind: 'account', entityId: t.accountId, valueSlug: t.slug }),
  (kind, t) => ({ kind, target_label: 'Label', definition_id: t.definitionId, entity_kind: 'account', entity_id: t.accountId, slug: t.slug }),
];

/** The forms ordered by how many of their argument names the catalog's entry mentions. */
function orderedForms(entry: ChangeKindEntry): typeof FORMS {
  const score = (f: (typeof FORMS)[number]): number => Object.keys(f('k', { definitionId: '', accountId: '', slug: '' })).filter((k) => entry.words.includes(k)).length;
  return [...FORMS].sort((a, b) => score(b) - score(a));
}

const GRAPH_WRITE: readonly Scope[] = ['graph:read', 'graph:write'];

/** Whether the control protocol's label read shows `slug` of the definition on the account. */
async function labelled(ctx: CheckContext, t: Target): Promise<boolean> {
  const { labels } = await ctx.control.labels(ctx.workspaceId);
  return labels.some((l) => l.definitionId.toLowerCase() === t.definitionId.toLowerCase() && l.entityId.toLowerCase() === t.accountId.toLowerCase() && l.slug === t.slug);
}

export const labelChangeNeedsAdminAndRole: CheckDef = {
  id: 'roles/label-change-needs-admin-and-role',
  title: "A workspace label change (its kind read from the live catalog) is applied for an owner's key with admin, and not for an owner's key without admin nor for an analyst's key with admin",
  clauses: ['ROLE-006'],
  endpoints: ['submitOperation'],
  needs: { control: true, mutation: true },
  // The definition, its clean-up archive and the owner's accepted label change; the other two
  // keys' changes are refused (free) on the reference.
  credits: 3,
  // Candidate forms refused before one is applied cost nothing; a form accepted and not applied
  // costs one each, and the two keys' changes may be accepted (and left unapplied) too.
  maxCredits: 2 + FORMS.length + 2,
  async run(ctx) {
    // Read with the key that may call graph.apply_update: a catalog "for the caller" may list only that.
    const owner = await memberKey(ctx, 'label-owner', 'owner', [...GRAPH_WRITE, 'admin']);
    const entry = kindNamed(await applyUpdateKinds(ctx, owner), [/label/i], 'workspace-label');
    const { definition } = await createDefinition(ctx, adminKey(ctx, 'owner'), 'ROLE-006', { entityKinds: ['account'], cardinality: 'multi', enumValues: [{ label: 'Labelled' }] });
    const slug = definition.enum_values[0]?.slug;
    if (slug === undefined) throw new NotObservable('the definition made for the label change shows no enum value slug');
    const target = async (hint: string): Promise<Target> => ({
      definitionId: definition.id,
      accountId: (await ctx.control.createAccount(ctx.workspaceId, { name: `${ctx.run.prefix}${hint}` })).accountId,
      slug,
    });

    // The owner with admin establishes the form.
    const first = await target('label-owner');
    let form: (typeof FORMS)[number] | undefined;
    const tried: string[] = [];
    for (const f of orderedForms(entry)) {
      const settled = await submitAndSettle(ctx, owner, applyUpdate(first.accountId, 'set one workspace label', [f(entry.kind, first)]));
      tried.push(`${Object.keys(f(entry.kind, first)).join(', ')}: ${settled.submitted.response?.status ?? settled.submitted.error?.kind}`);
      if (settled.accepted && settled.finished && (await labelled(ctx, first))) {
        form = f;
        break;
      }
    }
    if (!form) throw new NotObservable(`no change object of ${entry.kind} was applied for an owner's key with admin and graph:write (${tried.join('; ')}), so the change form is not established`);

    const halves: { who: string; key: KeyHandle; half: string }[] = [
      { who: "an owner's key without admin", key: await memberKey(ctx, 'label-owner-no-admin', 'owner', GRAPH_WRITE), half: 'the admin scope' },
      { who: "an analyst's key with admin", key: await memberKey(ctx, 'label-analyst', 'analyst', [...GRAPH_WRITE, 'admin']), half: 'an owner or admin role' },
    ];
    for (const { who, key, half } of halves) {
      const t = await target(key.name);
      const settled: Settled = await submitAndSettle(ctx, key, applyUpdate(t.accountId, 'set one workspace label', [form(entry.kind, t)]));
      if (settled.accepted && !settled.finished) throw new NotObservable(`the receipt of ${who}'s label change was not seen finished`);
      ctx.judged('ROLE-006');
      if (await labelled(ctx, t)) {
        ctx.softFail({
          clause: 'ROLE-006',
          message: `${who} set a workspace label through graph.apply_update (${entry.kind}), which needs ${half}`,
          expected: 'the label change refused or not applied',
          received: `the control protocol's label read shows ${slug} of definition ${t.definitionId} on account ${t.accountId}`,
          exchange: settled.last ?? settled.submitted,
          context: settled.last ? [settled.submitted] : [],
        });
      }
    }
  },
};
