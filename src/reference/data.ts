/**
 * Stored graph data under /data (seed 4.9): accounts and people with their relatedData
 * collections, ICPs, saved matches, lookalikes and relationships. Reads change nothing.
 * Ids that are not in the caller's workspace (or are not uuids) are 404; another workspace's
 * ids get the variant's status (default 404).
 */
import { ApiError, badRequest, notFound } from './errors.ts';
import type { FaultSet } from './faults.ts';
import type { Account, Person, Workspace } from './model.ts';
import { page, pageParams } from './query.ts';
import { accountOut, accountPersonOut, personOut } from './records.ts';
import type { Ctx, Route } from './route.ts';
import { lookupId } from './validate.ts';

/** 404 for an id of no record here; the variant's status when it names another workspace's record. */
function missing(ctx: Ctx, what: string, elsewhere: (w: Workspace) => boolean): ApiError {
  // Stryker disable next-line all: 403 or 404 for another workspace's record are both AUTH-012's readings; only the status differs
  const foreign = ctx.store.choices.status.foreignId === 403 && [...ctx.store.workspaces.values()].some((w) => w !== ctx.ws && elsewhere(w));
  return foreign ? new ApiError(403, `The ${what} belongs to another workspace`) : notFound(`No such ${what} in this workspace`);
}

function account(ctx: Ctx): Account {
  const id = lookupId(ctx.params.id!, ctx.store.reading);
  const a = ctx.ws.accounts.get(id);
  // Stryker disable next-line ArrowFunction,StringLiteral: which workspace holds a foreign id decides only between 403 and 404 (AUTH-012's readings); the word is a message's
  if (!a) throw missing(ctx, 'account', (w) => w.accounts.has(id));
  return a;
}

function accountRead(ctx: Ctx) {
  const id = lookupId(ctx.params.id!, ctx.store.reading);
  // Stryker disable next-line all: read only by a named fault (unknown-account-empty-200)
  const nowhere = ![...ctx.store.workspaces.values()].some((w) => w.accounts.has(id));
  if (nowhere && ctx.faults.has('unknown-account-empty-200')) return { status: 200, body: {} };
  const out: Partial<ReturnType<typeof accountOut>> = accountOut(ctx.ws, account(ctx));
  if (ctx.faults.has('account-without-related-data')) delete out.relatedData;
  // Stryker disable next-line StringLiteral: the kind names a variant's wrapper only; the default layout shows the record as it is (its fields are not shown: 2.8)
  return { status: 200, body: ctx.store.choices.layout.recordRead('account', out) };
}

function personRead(ctx: Ctx) {
  const out: Partial<ReturnType<typeof personOut>> = personOut(ctx.ws, person(ctx));
  if (ctx.faults.has('person-without-related-data')) delete out.relatedData;
  if (ctx.faults.has('person-related-data-unlinked')) (out as Record<string, unknown>).relatedData = {};
  // Stryker disable next-line StringLiteral: the kind names a variant's wrapper only (see accountRead)
  return { status: 200, body: ctx.store.choices.layout.recordRead('person', out) };
}

function relationships(ctx: Ctx) {
  if (ctx.faults.has('relationships-missing')) throw notFound('No such endpoint: /data/relationships');
  // Stryker disable next-line all: a named fault's off-by-one; inert with no fault on (the self-test covers it)
  if (ctx.faults.has('relationships-limit-max-199') && ctx.query.some(([k, v]) => k === 'limit' && Number(v) > 199)) throw badRequest('limit must be at most 199');
  // Stryker disable next-line ObjectLiteral,StringLiteral,ArrayDeclaration: what GET /data/relationships lists, and the fields of a relationship, are not shown (4.9 says only that it exists)
  const all = [...ctx.ws.accountPeople.values()].map((ap) => ({ id: ap.id, kind: 'account_person', account_id: ap.accountId, person_id: ap.personId, createdAt: ap.createdAt }));
  const reply = envelope(ctx, all);
  return ctx.faults.has('relationships-bare-array') ? { status: 200, body: reply.body.items } : reply;
}

/**
 * A canonical person, by its id or by the id of one of its account-membership records (or,
 * a variant's choice, by its canonical id only).
 */
function person(ctx: Ctx): Person {
  const id = lookupId(ctx.params.id!, ctx.store.reading);
  // Stryker disable all: which id GET /data/people/{id} takes is not shown (the canonical person's, the membership record's or both); the checks try the membership id, then the canonical one
  const byMembership = ctx.store.choices.personIds === 'both';
  const p = ctx.ws.people.get(id) ?? (byMembership ? ctx.ws.people.get(ctx.ws.accountPeople.get(id)?.personId ?? '') : undefined);
  if (!p) throw missing(ctx, 'person', (w) => w.people.has(id) || (byMembership && w.accountPeople.has(id)));
  // Stryker restore all
  return p;
}

// Stryker disable next-line ArrowFunction: the records listed as they are serve only collections whose items are not shown (the relationships, ICPs) or are empty here (evidence, deals)
function envelope<T extends { id: string }>(ctx: Ctx, records: Iterable<T>, out: (r: T) => unknown = (r) => r) {
  const p = pageParams(ctx.query, ctx.faults, ctx.store.choices);
  const env = page(records, p, ctx.faults, ctx.store.choices);
  const body = ctx.store.choices.layout.list(env.items.map(out), env.nextCursor) as { items: unknown[]; nextCursor: string | null };
  return { status: 200, body };
}

/** A collection a record's relatedData links to (the linked-collections faults break these only). */
// Stryker disable next-line ArrowFunction: as envelope's default (only the empty evidence and deals collections use it)
function linked<T extends { id: string }>(ctx: Ctx, records: Iterable<T>, out: (r: T) => unknown = (r) => r) {
  // Stryker disable next-line all: used only under a named fault (linked-collections-limit-unchecked)
  const clamp = (v: string): string => (/^[0-9]+$/.test(v) ? String(Math.min(200, Math.max(1, Number(v)))) : v);
  let query = ctx.faults.has('linked-collections-limit-unchecked') ? ctx.query.map(([k, v]) => [k, k === 'limit' ? clamp(v) : v] as const) : ctx.query;
  // Stryker disable next-line all: a named fault's default; inert with no fault on (the self-test covers it)
  if (ctx.faults.has('linked-default-page-size-25') && !query.some(([k]) => k === 'limit')) query = [...query, ['limit', '25'] as const];
  const reply = envelope({ ...ctx, query }, records, out);
  return ctx.faults.has('linked-collections-bare-array') ? { status: 200, body: reply.body.items } : reply;
}

const membersOf = (ws: Workspace, accountId: string, faults?: FaultSet) =>
  faults?.has('account-contacts-empty') === true ? [] : [...ws.accountPeople.values()].filter((ap) => ap.accountId === accountId || faults?.has('account-contacts-whole-workspace') === true);

const read = { billable: true, scopes: ['graph:read'] as const, capability: 'graphReads' as const };

function collection(name: string, records: (ctx: Ctx) => Iterable<{ id: string }>): Route {
  return { method: 'GET', pattern: `/data/${name}`, surface: `api:data.${name}`, ...read, handle: (ctx) => envelope(ctx, records(ctx)) };
}

export const DATA_ROUTES: readonly Route[] = [
  { method: 'GET', pattern: '/data/accounts/:id', surface: 'api:data.account', ...read, handle: accountRead },
  {
    method: 'GET',
    pattern: '/data/accounts/:id/contacts',
    surface: 'api:data.account_contacts',
    ...read,
    handle: (ctx) => linked(ctx, membersOf(ctx.ws, account(ctx).id, ctx.faults), (ap) => accountPersonOut(ctx.ws, ap)),
  },
  { method: 'GET', pattern: '/data/accounts/:id/evidence', surface: 'api:data.account_evidence', ...read, handle: (ctx) => (account(ctx), linked(ctx, [])) },
  { method: 'GET', pattern: '/data/accounts/:id/deals', surface: 'api:data.account_deals', ...read, handle: (ctx) => (account(ctx), linked(ctx, [])) },
  { method: 'GET', pattern: '/data/people/:id', surface: 'api:data.person', ...read, handle: personRead },
  {
    method: 'GET',
    pattern: '/data/people/:id/accounts',
    surface: 'api:data.person_accounts',
    ...read,
    // Stryker disable all: a person's link to its accounts is the reference's own (4.9 names evidence, deals and contacts); DATA-005 holds it to the person's own records, and what it lists beyond that is not shown
    handle(ctx) {
      const p = person(ctx);
      const ids = new Set([...ctx.ws.accountPeople.values()].filter((ap) => ap.personId === p.id || ctx.faults.has('person-accounts-whole-workspace')).map((ap) => ap.accountId));
      return linked(
        ctx,
        [...ids].map((id) => ctx.ws.accounts.get(id)!),
        (a) => accountOut(ctx.ws, a),
      );
    },
    // Stryker restore all
  },
  { method: 'GET', pattern: '/data/people/:id/evidence', surface: 'api:data.person_evidence', ...read, handle: (ctx) => (person(ctx), linked(ctx, [])) },
  { method: 'GET', pattern: '/data/people/:id/deals', surface: 'api:data.person_deals', ...read, handle: (ctx) => (person(ctx), linked(ctx, [])) },
  collection('icps', () => []),
  // Stryker disable next-line all: the paths of saved matches and lookalikes are not shown (4.9: ICPs and context areas are resources under /data); no check can find them
  collection('matches', () => []),
  // Stryker disable next-line all: as matches
  collection('lookalikes', () => []),
  { method: 'GET', pattern: '/data/relationships', surface: 'api:data.relationships', ...read, handle: relationships },
];
