/**
 * Managed agent batches: graph.agent_preview validates a batch scope and quotes its costs;
 * graph.agent_run applies an approved scope. The reference calls no model: a run fills field
 * gaps and adds context associations with deterministic placeholder values, preserves every
 * existing value and match, and writes nothing to the partner CRM.
 */
import { requireScopes } from './auth.ts';
import type { Choices } from './choices.ts';
import type { FaultSet } from './faults.ts';
import { badRequest, invalid } from './errors.ts';
import { ACCOUNT_FIELDS, ACCOUNT_FIELD_NAMES, CONTEXT_AREAS, CRM_FIELDS, EXCERPTS_PER_ACCOUNT, MAX_AGENT_ACCOUNTS, MAX_AGENT_CONTACTS, PERSON_FIELDS } from './fields.ts';
import { defineOp, type ExecCtx, type PrepareCtx } from './opdef.ts';
import { accountIn } from './op-graph.ts';
import { accountOut } from './records.ts';
import { any, arr, num, obj, oneOf, opt, parseBody, req, str } from './validate.ts';

/**
 * Fees quoted by a preview. By default the preview fee is the 1 credit its submission is
 * charged; a variant may quote another fee and charge it on top (Choices.previewFee).
 */
export const API_PREVIEW_CREDITS = 1;
export const API_SUBMISSION_CREDITS = 1;
export const ANALYSIS_LABEL = 'Account research';
export const MODEL = 'wgr-reference-simulated-1';

const PREDICATE_OPS = ['eq', 'neq', 'contains', 'gt', 'gte', 'lt', 'lte', 'in'] as const;
const connectedRead = obj({
  source: req(oneOf(['crm'] as const)),
  entity: req(oneOf(['company', 'contact', 'deal'] as const)),
  fields: req(arr(str({ min: 1, max: 100 }), { min: 1, max: 50, unique: true })),
  // Stryker disable next-line ArrowFunction,ArrayDeclaration: predicates default to none; what a connected read selects is not shown beyond its parts' names (4.8)
  predicates: opt(arr(obj({ field: req(str({ min: 1, max: 100 })), op: req(oneOf(PREDICATE_OPS)), value: req(any()) }), { max: 10 }), () => []),
  account: req(str({ format: 'uuid' })),
  limit: req(num({ int: true, min: 1, max: 100 })),
});
const scopeProps = {
  customerIds: req(arr(str({ format: 'uuid' }), { min: 1, max: MAX_AGENT_ACCOUNTS, unique: true })),
  // Stryker disable next-line ArrowFunction,ArrayDeclaration: an omitted list defaults to none; it shapes only the reference's own scope figures and run contents (4.8 shows the arguments' names, not their defaults)
  personFields: opt(arr(oneOf(PERSON_FIELDS), { unique: true }), () => []),
  // Stryker disable next-line ArrowFunction,ArrayDeclaration: an omitted list defaults to none; it shapes only the reference's own scope figures and run contents (4.8 shows the arguments' names, not their defaults)
  accountFields: opt(arr(oneOf(ACCOUNT_FIELD_NAMES), { unique: true }), () => []),
  // Stryker disable next-line ArrowFunction,ArrayDeclaration: an omitted list defaults to none; it shapes only the reference's own scope figures and run contents (4.8 shows the arguments' names, not their defaults)
  contextTargets: opt(arr(oneOf(CONTEXT_AREAS), { unique: true }), () => []),
  // Stryker disable next-line ArrowFunction,ArrayDeclaration: an omitted list defaults to none; it shapes only the reference's own scope figures and run contents (4.8 shows the arguments' names, not their defaults)
  connectedReads: opt(arr(connectedRead, { max: 10 }), () => []),
};
const previewArgs = obj(scopeProps);
const runArgs = obj({
  ...scopeProps,
  mode: req(oneOf(['apply'] as const)),
  creditCap: req(num({ int: true, min: 1, max: 1_000_000 })),
  user_said: req(str({ min: 1, max: 2000, pattern: /\S/, patternName: 'non-blank text' })),
});

interface ScopeArgs {
  customerIds: string[];
  personFields: string[];
  accountFields: string[];
  contextTargets: string[];
  connectedReads: { source: 'crm'; entity: keyof typeof CRM_FIELDS; fields: string[]; predicates: { field: string }[]; account: string; limit: number }[];
}
interface RunArgs extends ScopeArgs {
  mode: 'apply';
  creditCap: number;
  user_said: string;
}
interface Prepared<A> {
  args: A;
  contacts: number;
  perAccount: Record<string, number>;
  ceiling: number;
}

// Stryker disable all: how a scope is priced (modelCreditCeiling) and which scopes beyond 20 accounts are refused are not shown: 4.8 asks the ceiling to be quoted (OPS-004: numbers), and the 100-contact and 12-excerpt limits are not observable (LIMIT-001: how contacts and excerpts are selected is not shown); connected reads' field checks are the reference's own
/** Model credits one account of this scope may use at most. */
function accountCeiling(args: ScopeArgs, contacts: number, id: string): number {
  return 2 + 2 * args.accountFields.length + 2 * args.contextTargets.length + contacts * args.personFields.length + args.connectedReads.filter((r) => r.account === id).length;
}

function prepareScope<A extends ScopeArgs>(ctx: PrepareCtx, args: A): Prepared<A> {
  let contacts = 0;
  const perAccount: Record<string, number> = {};
  for (const id of args.customerIds) {
    accountIn(ctx.ws, id);
    const n = [...ctx.ws.accountPeople.values()].filter((ap) => ap.accountId === id).length;
    contacts += n;
    perAccount[id] = accountCeiling(args, n, id);
  }
  if (contacts > MAX_AGENT_CONTACTS) throw invalid(`The scope holds ${contacts} contacts; a batch may hold at most ${MAX_AGENT_CONTACTS}`);
  args.connectedReads.forEach((r, i) => {
    const at = `body.arguments.connectedReads[${i}]`;
    const known = CRM_FIELDS[r.entity] as readonly string[];
    for (const f of r.fields) if (!known.includes(f)) throw badRequest(`${at}.fields: "${f}" is not a ${r.entity} field of the field catalog`);
    for (const p of r.predicates) if (!known.includes(p.field)) throw badRequest(`${at}.predicates: "${p.field}" is not a ${r.entity} field of the field catalog`);
    if (!args.customerIds.includes(r.account)) throw badRequest(`${at}.account must be one of customerIds`);
  });
  const ceiling = Object.values(perAccount).reduce((a, b) => a + b, 0);
  return { args, contacts, perAccount, ceiling };
}
// Stryker restore all

function quote(p: Prepared<ScopeArgs>, faults: FaultSet, c: Choices) {
  if (faults.has('preview-quote-strings'))
    return { ...quoteOf(p, c), modelCreditCeiling: String(p.ceiling), apiPreviewCredits: String(API_PREVIEW_CREDITS), apiSubmissionCredits: String(API_SUBMISSION_CREDITS) };
  return quoteOf(p, c);
}

function quoteOf(p: Prepared<ScopeArgs>, c: Choices) {
  return c.layout.quote({
    modelCreditCeiling: p.ceiling,
    apiPreviewCredits: c.previewFee.apiPreviewCredits,
    apiSubmissionCredits: API_SUBMISSION_CREDITS,
    analysisLabel: ANALYSIS_LABEL,
    model: MODEL,
    // Stryker disable all: the quote's scope summary is the reference's own (OPS-004 judges the five quoted fields)
    scope: {
      accounts: p.args.customerIds.length,
      contacts: p.contacts,
      excerptsPerAccount: EXCERPTS_PER_ACCOUNT,
      personFields: p.args.personFields,
      accountFields: p.args.accountFields,
      contextTargets: p.args.contextTargets,
      connectedReads: p.args.connectedReads.length,
    },
    // Stryker restore all
  });
}

const SCOPE_ARGS_DOC = [
  { name: 'customerIds', type: `array of uuid (1-${MAX_AGENT_ACCOUNTS}, unique)`, required: true, notes: `explicit account ids; the accounts may hold at most ${MAX_AGENT_CONTACTS} contacts in all` },
  { name: 'personFields', type: 'array of person field names', required: false, notes: PERSON_FIELDS.join(', ') },
  { name: 'accountFields', type: 'array of account field names', required: false, notes: `permitted: ${ACCOUNT_FIELD_NAMES.join(', ')} (gap-fill only)` },
  { name: 'contextTargets', type: 'array of context area names', required: false, notes: CONTEXT_AREAS.join(', ') },
  {
    name: 'connectedReads',
    type: 'array (at most 10) of {source: "crm", entity: company|contact|deal, fields, predicates, account, limit 1-100}',
    required: false,
    notes: 'exact named live reads; account must be one of customerIds; selecting any needs crm:read on a run',
  },
];
const ROLES = ['owner', 'admin', 'analyst'] as const;
const SCOPES = ['graph:read', 'graph:write', 'research:run'] as const;

export const AGENT_PREVIEW = defineOp<Prepared<ScopeArgs>>({
  name: 'graph.agent_preview',
  purpose: 'Validate a batch scope and quote its model-credit ceiling and API fees, without starting analysis.',
  scopes: SCOPES,
  roles: ROLES,
  capability: 'research',
  permissionNotes: 'the admin scope is not required',
  arguments: SCOPE_ARGS_DOC,
  prepare: (ctx, raw) => prepareScope(ctx, parseBody(previewArgs, raw, 'body.arguments', ctx.relax, ctx.store.reading) as ScopeArgs),
  execute: (ctx, p) => ({ status: 'succeeded', result: quote(p, ctx.faults, ctx.store.choices) }),
});

// Stryker disable all: what a run does to accounts, people and context, and what its receipt holds, are not observable (OPS-011: matches, context associations and the CRM are not shown; 4.8: the receipt's shape is not shown)
function runAccount(ctx: ExecCtx, args: RunArgs, id: string) {
  const a = ctx.ws.accounts.get(id);
  if (!a) return { customerId: id, changes: [], skipped: [{ reason: 'account no longer exists' }], readback: null };
  const changes: Record<string, unknown>[] = [];
  const skipped: Record<string, unknown>[] = [];
  for (const f of args.accountFields) {
    if (a.firmographics[f] !== null && a.firmographics[f] !== undefined) {
      skipped.push({ field: f, reason: 'gap_fill_only: existing value preserved' });
      continue;
    }
    const value = ACCOUNT_FIELDS[f as keyof typeof ACCOUNT_FIELDS] === 'integer' ? 0 : `researched ${f}`;
    a.firmographics[f] = value;
    changes.push({ field: f, before: null, after: value });
  }
  for (const ap of ctx.ws.accountPeople.values()) {
    if (ap.accountId !== id) continue;
    for (const f of args.personFields) {
      if (ap.fields[f] !== null && ap.fields[f] !== undefined) {
        skipped.push({ person_id: ap.id, field: f, reason: 'existing value preserved' });
        continue;
      }
      ap.fields[f] = `researched ${f}`;
      changes.push({ person_id: ap.id, field: f, before: null, after: ap.fields[f] });
    }
  }
  for (const t of args.contextTargets) {
    const list = (a.context[t] ??= []);
    const association = `${t}:reference-${list.length + 1}`;
    list.push(association);
    changes.push({ context: t, added: association });
  }
  a.updatedAt = ctx.store.now();
  return { customerId: id, changes, skipped, readback: accountOut(ctx.ws, a) };
}
// Stryker restore all

export const AGENT_RUN = defineOp<Prepared<RunArgs>>({
  name: 'graph.agent_run',
  purpose: 'Apply an approved batch scope: reviewed field updates (gap-fill) and add-only context associations.',
  scopes: SCOPES,
  roles: ROLES,
  capability: 'research',
  permissionNotes: 'plus crm:read when connectedReads are selected; the admin scope is not required',
  arguments: [
    ...SCOPE_ARGS_DOC,
    { name: 'mode', type: '"apply"', required: true, notes: 'the only mode' },
    { name: 'creditCap', type: 'integer (1-1000000)', required: true, notes: 'model-credit cap; API fees are not included' },
    { name: 'user_said', type: 'string (1-2000, not blank)', required: true, notes: "the user's approving words; the body's reason carries them too" },
  ],
  prepare: (ctx, raw) => prepareScope(ctx, parseBody(runArgs, raw, 'body.arguments', ctx.relax, ctx.store.reading) as RunArgs),
  // Stryker disable next-line BlockStatement: how a run selects live CRM queries is not shown (SCOPE-015 is not observable), and crm:read is all this asks
  permit(p, prep, faults) {
    // Stryker disable next-line all: how a run selects live CRM queries is not shown (SCOPE-015 is not observable)
    if (prep.args.connectedReads.length > 0) requireScopes(p, ['crm:read'], faults, 'graph.agent_run with connectedReads');
  },
  // Stryker disable all: how the credit cap is spent across accounts and what the receipt reports are not shown (4.8: the receipt contents' exact shape is not shown; OPS-011 is not observable)
  execute(ctx, prep) {
    let budget = prep.args.creditCap;
    const accounts = prep.args.customerIds.map((id) => {
      const cost = prep.perAccount[id] ?? 0;
      if (cost > budget) return { customerId: id, changes: [], skipped: [{ reason: 'credit cap reached' }], readback: null };
      budget -= cost;
      return runAccount(ctx, prep.args, id);
    });
    const capped = accounts.some((a) => a.skipped.some((s) => s.reason === 'credit cap reached'));
    return {
      status: capped ? 'partial' : 'succeeded',
      result: {
        accounts,
        sourceCoverage: { excerptsPerAccount: EXCERPTS_PER_ACCOUNT, excerptsRead: 0, connectedReads: prep.args.connectedReads.map((r) => ({ entity: r.entity, account: r.account, records: 0 })) },
        modelCalls: [{ model: MODEL, calls: 0, credits: 0 }],
        crmWrites: 0,
        externalDeliveries: 0,
      },
    };
  },
  // Stryker restore all
});
