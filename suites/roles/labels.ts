/**
 * Changing workspace labels needs both the admin scope and an owner or admin workspace role
 * (4.8, graph.apply_update rule 2; ROLE-006), each half on its own. The change kind that sets a
 * label is not shown in the document; the live catalog lists it (part 9 rule 2), so the check
 * finds it there: a change kind of graph.apply_update whose name speaks of a label. Its change
 * object is not shown either: the check forms the candidates below, the one whose argument names
 * the catalog's notes mention most going first, and keeps the first one that an owner holding
 * graph:read, graph:write and admin gets applied (the label shows in the control protocol's
 * label read, an addition to version 1); where no form is applied for the owner, an admin's key
 * (role admin, the same scopes) tries them, and a form it gets applied must be applied for the
 * owner too.
 *
 * The two roles the rule names are judged alike: the form established by one of them must be
 * applied for the other, each on an account of its own. Then the same change by an owner's key
 * without admin (the scope half) and by an analyst's key with admin (the role half): neither may
 * leave the label set, sent alone and sent after a person_field change in the same edit (the
 * rule governs every edit that changes a label, not only edits of labels alone). How a refusal
 * shows is left to the target (a 403, a refused or failed receipt, a skipped change); only the
 * label's absence is judged, after the receipt is finished.
 */
import type { CheckContext, CheckDef, KeyHandle, Scope } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { ChangeKindEntry } from '../../src/target/live-catalog.ts';
import { memberKey } from '../_shared/access-cast.ts';
import { applyUpdate, applyUpdateKinds, kindNamed, submitAndSettle, type Settled } from '../_shared/change-kinds.ts';
import { createDefinition } from '../_shared/definitions.ts';
import { titleChange } from '../_shared/ops-fixtures.ts';
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

type Form = (typeof FORMS)[number];

/** The first form (catalog order) that `key` gets applied on a fresh account, and what each try answered. */
async function establish(ctx: CheckContext, entry: ChangeKindEntry, key: KeyHandle, t: Target, tried: string[]): Promise<Form | undefined> {
  for (const f of orderedForms(entry)) {
    const settled = await submitAndSettle(ctx, key, applyUpdate(t.accountId, 'set one workspace label', [f(entry.kind, t)]));
    tried.push(`${key.name}: ${Object.keys(f(entry.kind, t)).join(', ')}: ${settled.submitted.response?.status ?? settled.submitted.error?.kind}`);
    if (settled.accepted && settled.finished && (await labelled(ctx, t))) return f;
  }
  return undefined;
}

export const labelChangeNeedsAdminAndRole: CheckDef = {
  id: 'roles/label-change-needs-admin-and-role',
  title:
    "A workspace label change (its kind read from the live catalog) is applied for an owner's and for an admin's key with admin, and not for an owner's key without admin nor for an analyst's key with admin, alone or beside a person_field change",
  clauses: ['ROLE-006'],
  endpoints: ['submitOperation'],
  needs: { control: true, mutation: true },
  // The definition, its clean-up archive, and the owner's and the admin's accepted label
  // changes; the other two keys' four changes are refused (free) on the reference.
  credits: 4,
  // Candidate forms refused before one is applied cost nothing; a form accepted and not applied
  // costs one each (for the owner, then for the admin), the owner's change once more where the
  // admin established the form, and the four refused changes may be accepted (and left unapplied).
  maxCredits: 2 + 2 * FORMS.length + 2 + 4,
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
    const admin = await memberKey(ctx, 'label-admin', 'admin', [...GRAPH_WRITE, 'admin']);

    // An owner with admin establishes the form; failing that, an admin with admin.
    const tried: string[] = [];
    let form = await establish(ctx, entry, owner, await target('label-owner'), tried);
    const [by, other] = form ? [owner, admin] : [admin, owner];
    form ??= await establish(ctx, entry, admin, await target('label-admin'), tried);
    if (!form)
      throw new NotObservable(
        `no change object of ${entry.kind} was applied for an owner's nor an admin's key with admin and graph:write (${tried.join('; ')}), so the change form is not established`,
      );

    // The other permitted role: the same form must be applied for it.
    const allowed = await target(`${other.name}-same`);
    const same = await submitAndSettle(ctx, other, applyUpdate(allowed.accountId, 'set one workspace label', [form(entry.kind, allowed)]));
    if (same.accepted && !same.finished) throw new NotObservable(`the receipt of the ${other.role}'s label change was not seen finished`);
    ctx.judged('ROLE-006');
    if (!(await labelled(ctx, allowed))) {
      ctx.softFail({
        clause: 'ROLE-006',
        message: `the label change applied for an ${by.role}'s key with admin was not applied for an ${other.role}'s key with the same scopes: the rule allows owners and admins alike`,
        expected: `the label set, as it was for the ${by.role}`,
        received: same.accepted
          ? `the receipt finished and the control protocol's label read does not show ${slug} on account ${allowed.accountId}`
          : `the submission was answered ${same.submitted.response?.status ?? same.submitted.error?.kind}`,
        exchange: same.last ?? same.submitted,
        context: same.last ? [same.submitted] : [],
      });
    }

    const halves: { who: string; key: KeyHandle; half: string }[] = [
      { who: "an owner's key without admin", key: await memberKey(ctx, 'label-owner-no-admin', 'owner', GRAPH_WRITE), half: 'the admin scope' },
      { who: "an analyst's key with admin", key: await memberKey(ctx, 'label-analyst', 'analyst', [...GRAPH_WRITE, 'admin']), half: 'an owner or admin role' },
    ];
    for (const { who, key, half } of halves) {
      for (const mixed of [false, true]) {
        const t = await target(`${key.name}${mixed ? '-mixed' : ''}`);
        // Beside a change of another kind: a person_field change of seed 4.8, on a person of the same account.
        const before = mixed ? [await personChange(ctx, t)] : [];
        const settled: Settled = await submitAndSettle(ctx, key, applyUpdate(t.accountId, 'set one workspace label', [...before, form(entry.kind, t)]));
        const how = mixed ? ' after a person_field change in the same edit' : '';
        if (settled.accepted && !settled.finished) throw new NotObservable(`the receipt of ${who}'s label change${how} was not seen finished`);
        if (await labelled(ctx, t)) {
          ctx.softFail({
            clause: 'ROLE-006',
            message: `${who} set a workspace label through graph.apply_update (${entry.kind}${how}), which needs ${half}`,
            expected: 'the label change refused or not applied',
            received: `the control protocol's label read shows ${slug} of definition ${t.definitionId} on account ${t.accountId}`,
            exchange: settled.last ?? settled.submitted,
            context: settled.last ? [settled.submitted] : [],
          });
        }
      }
    }
  },
};

/** A person_field change of seed 4.8 (title) on a new person of `t`'s account (its account-membership record). */
async function personChange(ctx: CheckContext, t: Target): Promise<Record<string, unknown>> {
  const { accountPersonId } = await ctx.control.createPerson(ctx.workspaceId, t.accountId, { name: `${ctx.run.prefix}labelled-person`, title: 'before' });
  return titleChange(accountPersonId, 'after');
}
