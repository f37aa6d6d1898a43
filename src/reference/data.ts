/**
 * Stored graph data under /data (seed 4.9): accounts and people with their relatedData
 * collections, ICPs, saved matches, lookalikes and relationships. Reads change nothing.
 * Ids that are not in the caller's workspace (or are not uuids) are 404.
 */
import { notFound } from './errors.ts';
import type { Account, Person, Workspace } from './model.ts';
import { page, pageParams } from './query.ts';
import { accountOut, accountPersonOut, personOut } from './records.ts';
import type { Ctx, Route } from './route.ts';

function account(ctx: Ctx): Account {
  const a = ctx.ws.accounts.get(ctx.params.id!.toLowerCase());
  if (!a) throw notFound('No such account in this workspace');
  return a;
}

/** A canonical person, by its id or by the id of one of its account-membership records. */
function person(ctx: Ctx): Person {
  const id = ctx.params.id!.toLowerCase();
  const p = ctx.ws.people.get(id) ?? ctx.ws.people.get(ctx.ws.accountPeople.get(id)?.personId ?? '');
  if (!p) throw notFound('No such person in this workspace');
  return p;
}

function envelope<T extends { id: string }>(ctx: Ctx, records: Iterable<T>, out: (r: T) => unknown = (r) => r) {
  const p = pageParams(ctx.query);
  const env = page(records, p, ctx.faults);
  return { status: 200, body: { items: env.items.map(out), nextCursor: env.nextCursor } };
}

const membersOf = (ws: Workspace, accountId: string) => [...ws.accountPeople.values()].filter((ap) => ap.accountId === accountId);

const read = { billable: true, scopes: ['graph:read'] as const, capability: 'graphReads' as const };

function collection(name: string, records: (ctx: Ctx) => Iterable<{ id: string }>): Route {
  return { method: 'GET', pattern: `/data/${name}`, surface: `api:data.${name}`, ...read, handle: (ctx) => envelope(ctx, records(ctx)) };
}

export const DATA_ROUTES: readonly Route[] = [
  { method: 'GET', pattern: '/data/accounts/:id', surface: 'api:data.account', ...read, handle: (ctx) => ({ status: 200, body: accountOut(ctx.ws, account(ctx)) }) },
  { method: 'GET', pattern: '/data/accounts/:id/contacts', surface: 'api:data.account_contacts', ...read, handle: (ctx) => envelope(ctx, membersOf(ctx.ws, account(ctx).id), (ap) => accountPersonOut(ctx.ws, ap)) },
  { method: 'GET', pattern: '/data/accounts/:id/evidence', surface: 'api:data.account_evidence', ...read, handle: (ctx) => (account(ctx), envelope(ctx, [])) },
  { method: 'GET', pattern: '/data/accounts/:id/deals', surface: 'api:data.account_deals', ...read, handle: (ctx) => (account(ctx), envelope(ctx, [])) },
  { method: 'GET', pattern: '/data/people/:id', surface: 'api:data.person', ...read, handle: (ctx) => ({ status: 200, body: personOut(ctx.ws, person(ctx)) }) },
  {
    method: 'GET',
    pattern: '/data/people/:id/accounts',
    surface: 'api:data.person_accounts',
    ...read,
    handle(ctx) {
      const p = person(ctx);
      const ids = new Set([...ctx.ws.accountPeople.values()].filter((ap) => ap.personId === p.id).map((ap) => ap.accountId));
      return envelope(ctx, [...ids].map((id) => ctx.ws.accounts.get(id)!), (a) => accountOut(ctx.ws, a));
    },
  },
  { method: 'GET', pattern: '/data/people/:id/evidence', surface: 'api:data.person_evidence', ...read, handle: (ctx) => (person(ctx), envelope(ctx, [])) },
  { method: 'GET', pattern: '/data/people/:id/deals', surface: 'api:data.person_deals', ...read, handle: (ctx) => (person(ctx), envelope(ctx, [])) },
  collection('icps', () => []),
  collection('matches', () => []),
  collection('lookalikes', () => []),
  collection('relationships', (ctx) =>
    [...ctx.ws.accountPeople.values()].map((ap) => ({ id: ap.id, kind: 'account_person', account_id: ap.accountId, person_id: ap.personId, createdAt: ap.createdAt })),
  ),
];
