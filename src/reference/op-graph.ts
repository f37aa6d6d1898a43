/**
 * Graph edit operations: graph.apply_update (a small explicit edit, applied directly),
 * graph.propose_update (the same edit left for review) and graph.context_refresh.
 * Account firmographic fields are gap-fill only; label changes need the admin scope and an
 * owner or admin role; nothing here writes to the partner CRM.
 */
import { requireRole, requireScopes } from './auth.ts';
import { badRequest, conflict, notFound, type Issue } from './errors.ts';
import { ACCOUNT_FIELDS, ACCOUNT_FIELD_NAMES, CONTEXT_AREAS, MAX_AGENT_ACCOUNTS, PERSON_FIELDS, type AccountField } from './fields.ts';
import type { Account, Workspace } from './model.ts';
import { assignLabel, labelledEntity } from './labels.ts';
import { defineOp, type ExecCtx, type PrepareCtx } from './opdef.ts';
import { accountOut, accountPersonOut } from './records.ts';
import { recordTrace } from './trace.ts';
import { any, arr, num, nullable, obj, oneOf, opt, parseBody, req, str, type Schema } from './validate.ts';

type Change =
  | { kind: 'person_field'; target_label: string; person_id: string; field: string; after: string | null }
  | { kind: 'account_field'; target_label: string; field: AccountField; after: string | number }
  | { kind: 'label'; target_label: string; definition_id: string; entity_kind: 'account' | 'contact'; entity_id: string; value_slug: string };

interface EditArgs {
  customer_id: string;
  summary: string;
  changes: Change[];
}

const CHANGE_KINDS = ['person_field', 'account_field', 'label'] as const;
const label = req(str({ min: 1, max: 200 }));
const changeSchemas: Record<(typeof CHANGE_KINDS)[number], Schema<unknown>> = {
  person_field: obj({ kind: req(any()), target_label: label, person_id: req(str({ format: 'uuid' })), field: req(oneOf(PERSON_FIELDS)), after: req(nullable(str({ max: 500 }))) }),
  account_field: obj({ kind: req(any()), target_label: label, field: req(oneOf(ACCOUNT_FIELD_NAMES)), after: req(any()) }),
  label: obj({
    kind: req(any()),
    target_label: label,
    definition_id: req(str({ format: 'uuid' })),
    entity_kind: req(oneOf(['account', 'contact'] as const)),
    entity_id: req(str({ format: 'uuid' })),
    value_slug: req(str({ min: 1, max: 64 })),
  }),
};
// Stryker disable all: the change kinds beyond person_field and their fields are not shown (4.8: the live catalog lists them); which other kinds, and which account_field values, the reference refuses is its own
const change: Schema<Change> = (v, path, issues, reading) => {
  const k = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).kind : undefined;
  if (typeof k !== 'string' || !(CHANGE_KINDS as readonly string[]).includes(k)) {
    issues.push({ path: `${path}.kind`, message: `must be one of ${CHANGE_KINDS.join(', ')}` });
    return v as Change;
  }
  const out = changeSchemas[k as Change['kind']](v, path, issues, reading) as Change;
  if (out.kind === 'account_field') {
    const type = ACCOUNT_FIELDS[out.field];
    const after = out.after;
    const sub: Issue[] = [];
    (type === 'integer' ? num({ int: true, min: 0 }) : str({ min: 1, max: 500 }))(after, `${path}.after`, sub);
    issues.push(...sub);
  }
  return out;
};
// Stryker restore all
const editArgs = obj({
  customer_id: req(str({ format: 'uuid' })),
  summary: req(str({ min: 1, max: 2000 })),
  changes: req(arr(change, { min: 1, max: 50 })),
});

/** The account of the caller's workspace, or 404. */
// Stryker disable all: what becomes of an edit, a batch or a refresh naming an account that is not there is not shown (7 rule 4: which condition yields which status is not shown; the document does not say such a call is refused)
export function accountIn(ws: Workspace, id: string): Account {
  const a = ws.accounts.get(id);
  if (!a) throw notFound(`No account ${id} in this workspace`);
  return a;
}
// Stryker restore all

/** Validates an edit against the workspace (existence, membership records, labels). */
// Stryker disable next-line BlockStatement: an edit whose arguments are checked only when it runs (4.8: execution may complete asynchronously; a receipt's contents are not shown) and that is then never applied is conformant (rule 3: applied only after an approval whose step is not shown); each check that needs an edit applied is not observable then
function prepareEdit(ctx: PrepareCtx, raw: unknown): EditArgs {
  const args = parseBody(editArgs, raw, 'body.arguments', ctx.relax, ctx.store.reading) as EditArgs;
  const { ws } = ctx;
  accountIn(ws, args.customer_id);
  // Stryker disable all: what an edit must name beyond its shown fields is not shown: a membership record of another account, a canonical person id (OPS-016 accepts a refusal in any form or nothing applied), and the label kind's own checks are the reference's
  args.changes.forEach((c, i) => {
    const at = `body.arguments.changes[${i}]`;
    if (c.kind === 'person_field') {
      if (ctx.faults.has('person-field-needs-canonical-id') && !ws.people.has(c.person_id)) throw badRequest(`${at}.person_id must be a canonical person id`);
      // Takes a canonical person id for its membership record in the account, as if it were one.
      if (ctx.faults.has('canonical-person-id-accepted') && ws.people.has(c.person_id)) {
        const membership = [...ws.accountPeople.values()].find((m) => m.personId === c.person_id && m.accountId === args.customer_id);
        if (membership) c.person_id = membership.id;
      }
      const ap = ws.accountPeople.get(c.person_id);
      if (!ap) {
        if (ws.people.has(c.person_id)) throw badRequest(`${at}.person_id is a canonical person id; use the account-membership record id`);
        throw notFound(`${at}.person_id: no account person ${c.person_id} in this workspace`);
      }
      if (ap.accountId !== args.customer_id) throw badRequest(`${at}.person_id is not a member of account ${args.customer_id}`);
    } else if (c.kind === 'label') {
      const rec = ws.definitions.get(c.definition_id);
      if (!rec) throw notFound(`${at}.definition_id: no such definition in this workspace`);
      if (rec.def.state === 'archived') throw conflict(`${at}.definition_id: the definition is archived`);
      if (rec.def.value_type !== 'enum') throw badRequest(`${at}.definition_id: the definition is not an enum`);
      if (!rec.def.entity_kinds.includes(c.entity_kind)) throw badRequest(`${at}.entity_kind: the definition does not apply to ${c.entity_kind}`);
      const value = rec.def.enum_values.find((v) => v.slug === c.value_slug);
      if (!value || value.archived) throw badRequest(`${at}.value_slug: no live enum value "${c.value_slug}"`);
      const entity = labelledEntity(ws, c.entity_kind, c.entity_id);
      if (!entity) throw notFound(`${at}.entity_id: no ${c.entity_kind} ${c.entity_id} in this workspace`);
    }
  });
  // Stryker restore all
  return args;
}

const EDIT_ARGS_DOC = [
  { name: 'customer_id', type: 'uuid', required: true, notes: 'the account id' },
  { name: 'summary', type: 'string (1-2000)', required: true, notes: 'what the edit does, in words' },
  { name: 'changes', type: 'array of change objects (1-50)', required: true, notes: 'see changeKinds' },
];
const CHANGE_KIND_DOC = [
  { kind: 'person_field', fields: PERSON_FIELDS, notes: 'target_label, person_id (account-membership record id, not the canonical person id), field, after (string up to 500 characters or null)' },
  { kind: 'account_field', fields: ACCOUNT_FIELD_NAMES, notes: 'target_label, field, after; firmographic fields are gap-fill only: a field that already has a value is skipped' },
  { kind: 'label', fields: [], notes: 'target_label, definition_id, entity_kind (account|contact), entity_id, value_slug; needs the admin scope and an owner or admin role' },
];

/** Applies one change; returns what happened to it. */
// Stryker disable next-line BlockStatement: a change never applied is conformant (4.8 rule 3: applied only after an approval whose step is not shown); each check that needs one applied is not observable then
function applyChange(ctx: ExecCtx, args: EditArgs, c: Change): Record<string, unknown> {
  const { ws, store } = ctx;
  const now = store.now();
  // Stryker disable all: whether a person_field change is applied when its receipt finishes is not observable (4.8 rule 3: applied only after an approval whose step is not shown, OPS-008), nor what a change reports (the receipt's shape is not shown)
  if (c.kind === 'person_field') {
    const ap = ws.accountPeople.get(c.person_id)!;
    const before = ap.fields[c.field] ?? null;
    ap.fields[c.field] = c.after;
    ap.updatedAt = now;
    recordTrace(ws, 'person', ap.id, { at: now, action: 'apply_update', actor: ctx.actor, trace: { reason: ctx.reason, summary: args.summary, field: c.field, factors: [] }, markers: [] });
    return { kind: c.kind, person_id: c.person_id, field: c.field, applied: true, before, after: c.after };
  }
  // Stryker restore all
  // Stryker disable next-line all: an account_field change sent down another branch is never applied, which is not observable (4.8 rule 3: applied only after an approval whose step is not shown); the label kind is the reference's own (4.8 shows none)
  if (c.kind === 'account_field') {
    const a = ws.accounts.get(args.customer_id)!;
    const before = a.firmographics[c.field] ?? null;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a change that is never applied, to an empty field or a filled one, is not observable (4.8 rule 3: applied only after an approval whose step is not shown); a filled field written is OPS-007's finding (the fault account-fields-overwritten; the comparison's swap, left enabled, is killed by operations/account-fields-gap-fill)
    if (before !== null && !ctx.faults.has('account-fields-overwritten')) {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral,StringLiteral: what a change reports is a receipt's content (not shown); OPS-007 reads the account back
      return { kind: c.kind, field: c.field, applied: false, skipped_reason: 'gap_fill_only: the field already has a value', before };
    }
    a.firmographics[c.field] = c.after;
    a.updatedAt = now;
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: what a change reports is a receipt's content (not shown)
    return { kind: c.kind, field: c.field, applied: true, before, after: c.after };
  }
  // Stryker disable all: the label change kind is the reference's own (4.8 shows none); labels are read only through the control addition
  const rec = ws.definitions.get(c.definition_id)!;
  const { id } = assignLabel(ws, rec, { kind: c.entity_kind, id: c.entity_id }, c.value_slug, store.newId(), now);
  recordTrace(ws, 'label_decision', id, {
    at: now,
    action: 'label',
    actor: ctx.actor,
    trace: { reason: ctx.reason, summary: args.summary, factors: [] },
    markers: [],
    against: { definitionId: rec.def.id, revision: rec.revision, slug: c.value_slug, entityId: c.entity_id },
  });
  return { kind: c.kind, definition_id: rec.def.id, entity_id: c.entity_id, value_slug: c.value_slug, applied: true, label_id: id };
}
// Stryker restore all

export const APPLY_UPDATE = defineOp<EditArgs>({
  name: 'graph.apply_update',
  purpose: 'Apply a small explicit edit directly, with no managed AI analysis.',
  scopes: ['graph:write'],
  capability: 'graphEdits',
  permissionNotes: 'label changes also need the admin scope and an owner or admin workspace role',
  arguments: EDIT_ARGS_DOC,
  changeKinds: CHANGE_KIND_DOC,
  prepare: prepareEdit,
  permit(p, args, faults) {
    if (!args.changes.some((c) => c.kind === 'label')) return;
    // Stryker disable next-line StringLiteral,ArrayDeclaration: a label change refused for every key is not observable: the change kind and its form are not shown (4.8), and roles/label-change-needs-admin-and-role establishes them by an owner's key with admin getting one applied
    if (!faults.has('label-change-needs-no-admin')) requireScopes(p, ['admin'], faults, 'a label change');
    // Stryker disable next-line ArrayDeclaration,StringLiteral: no role allowed refuses the change for every key, which leaves ROLE-006 not observable (no form can be established: clause ROLE-006's first question); the words name the action in a refusal's message (free: part 7)
    requireRole(p, faults.has('label-change-allows-analyst') ? ['owner', 'admin', 'analyst'] : ['owner', 'admin'], 'a label change', faults);
  },
  // Stryker disable next-line BlockStatement: an edit never applied is conformant (4.8 rule 3: applied only after an approval whose step is not shown); each check that needs one applied is not observable then
  execute(ctx, args) {
    // Stryker disable next-line ArrowFunction: an edit not applied when its receipt finishes leaves OPS-007 not observable (4.8 rule 3: applied only after an approval whose step is not shown)
    const changes = args.changes.map((c) => applyChange(ctx, args, c));
    // Stryker disable all: the account's trail, the read-back and what the receipt reports are not observable (OPS-009: receipt states and contents are not shown; trace reads are not shown: TRACE-016)
    const a = ctx.ws.accounts.get(args.customer_id)!;
    a.updatedAt = ctx.store.now();
    recordTrace(ctx.ws, 'account', a.id, { at: a.updatedAt, action: 'apply_update', actor: ctx.actor, trace: { reason: ctx.reason, summary: args.summary, factors: [] }, markers: [] });
    const people = [...new Set(args.changes.flatMap((c) => (c.kind === 'person_field' ? [c.person_id] : [])))];
    // Read the affected records back before reporting success.
    const readback = { account: accountOut(ctx.ws, a), people: people.map((id) => accountPersonOut(ctx.ws, ctx.ws.accountPeople.get(id)!)) };
    const skipped = changes.filter((c) => c.applied === false).length;
    return { status: skipped > 0 ? 'partial' : 'succeeded', result: { customer_id: args.customer_id, changes, readback, crmWrites: 0 } };
    // Stryker restore all
  },
});

// Stryker disable all: graph.propose_update and graph.context_refresh are named with a purpose only (4.8: permission not shown, arguments and effects not shown): what the reference takes and does for them is its own
export const PROPOSE_UPDATE = defineOp<EditArgs>({
  name: 'graph.propose_update',
  purpose: 'Leave an edit as a proposal for review; nothing is applied.',
  scopes: ['graph:write'],
  capability: 'graphEdits',
  arguments: EDIT_ARGS_DOC,
  changeKinds: CHANGE_KIND_DOC,
  prepare: prepareEdit,
  execute(ctx, args) {
    return { status: 'needs_review', result: { proposal: { id: ctx.store.newId(), customer_id: args.customer_id, summary: args.summary, changes: args.changes }, applied: 0 } };
  },
});

interface RefreshArgs {
  customerIds: string[];
  contextTargets: string[];
}
const refreshArgs = obj({
  customerIds: req(arr(str({ format: 'uuid' }), { min: 1, max: MAX_AGENT_ACCOUNTS, unique: true })),
  contextTargets: opt(arr(oneOf(CONTEXT_AREAS), { unique: true }), () => [...CONTEXT_AREAS]),
});

export const CONTEXT_REFRESH = defineOp<RefreshArgs>({
  name: 'graph.context_refresh',
  purpose: "Refresh the context areas of the named accounts at the user's request.",
  scopes: ['graph:write'],
  capability: 'context',
  arguments: [
    { name: 'customerIds', type: `array of uuid (1-${MAX_AGENT_ACCOUNTS}, unique)`, required: true, notes: 'account ids' },
    { name: 'contextTargets', type: 'array of context area names', required: false, notes: `default: all of ${CONTEXT_AREAS.join(', ')}` },
  ],
  prepare(ctx, raw) {
    const args = parseBody(refreshArgs, raw, 'body.arguments', ctx.relax, ctx.store.reading) as RefreshArgs;
    for (const id of args.customerIds) accountIn(ctx.ws, id);
    return args;
  },
  execute(ctx, args) {
    const at = ctx.store.now();
    const refreshed = args.customerIds.map((id) => {
      const a = ctx.ws.accounts.get(id);
      if (!a) return { customerId: id, refreshed: false, skipped_reason: 'account no longer exists' };
      for (const t of args.contextTargets) a.context[t] ??= [];
      a.updatedAt = at;
      return { customerId: id, refreshed: true, contextTargets: args.contextTargets, refreshedAt: at };
    });
    return { status: 'succeeded', result: { refreshed } };
  },
});
// Stryker restore all
