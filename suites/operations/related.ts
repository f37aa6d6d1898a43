/**
 * The collections a stored record's relatedData links to (seed 4.9: "paginated evidence, deals
 * and contacts"): collections reached only through links, held to the rules of every collection
 * (2.3's envelope, part 8's page size, ordering and continuation) and to the key rule of every
 * call (part 5 rule 1). The links' layout is not shown: every string under relatedData that is a
 * path or a URL of the target's own origin is followed (never another origin: keys go only to the
 * target), at most LINKS of them. The page-size parameter is named only for GET /definitions
 * (4.3), so `limit` is judged on a linked collection only where it shows that it reads it: a page
 * asked with limit=1 of a collection holding more than one item holds one. GET
 * /data/relationships and GET /operations, the listings of 4.9 besides GET /definitions, are
 * paged the same way where they answer the collection envelope (their shape is ENV-002's and
 * ENV-003's).
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { NotObservable, type Evidence } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, compareIds, containsString, isObject } from '../_shared/json.ts';
import { apiPathOf, linkTexts } from '../_shared/linked.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { inParallel } from '../_shared/parallel.ts';

/** Links followed at most (an account's and a person's three each on the reference). */
const LINKS = 6;
/**
 * People made on the account: more than part 8's default page size, so that its contacts (if
 * listed) and GET /data/relationships hold more than one default page, and span several
 * one-item pages.
 */
const PEOPLE = 51;
/** Pages after the first a linked collection is read to (its end, on the reference: the account's 51 contacts are two pages). */
const REST_PAGES = 3;
/** Part 8's default page size of every collection. */
const DEFAULT_PAGE = 50;
/** Pages of one limit=1 walk at most. */
const WALK_PAGES = 8;
/**
 * Pages of a 4.9 listing's walk: the check's own three people make at least three relationships,
 * and what the suite's other checks added makes no difference to what the walk costs.
 */
const LISTING_PAGES = 3;

const received = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind}: ${ex.error?.message})`);

interface Envelope {
  items: unknown[];
  nextCursor: string | null;
}

const envelopeOf = (ex: Exchange): Envelope | undefined => {
  const b = ex.response?.json;
  return isObject(b) && Array.isArray(b.items) && (b.nextCursor === null || typeof b.nextCursor === 'string') ? { items: b.items, nextCursor: b.nextCursor } : undefined;
};

const idOfItem = (v: unknown): string | undefined => (isObject(v) && typeof v.id === 'string' ? v.id : undefined);

/** The linked collections of a stored account and person, and what of an unrelated account none of them may list. */
interface Linked {
  paths: string[];
  /** Per path: the ids of the unrelated account's records it must not list (DATA-005). */
  foreign: Map<string, string[]>;
  /** The account's links, and the ids of its contacts (canonical and membership): one of its collections lists them (DATA-001). */
  account: { read: string; paths: string[]; contacts: string[] };
}

/** The linked collections of a stored account and person (made through the control protocol). */
async function linkedCollections(ctx: CheckContext, key: KeyHandle): Promise<Linked> {
  // An unrelated account with a person of its own: none of its records belongs in the collections
  // the related account and person link to.
  const other = await ctx.control.createAccount(ctx.workspaceId, { name: `${ctx.run.prefix}unrelated`, domain: 'unrelated.example.com' });
  const otherPerson = await ctx.control.createPerson(ctx.workspaceId, other.accountId, { name: `${ctx.run.prefix}unrelated-contact` });
  const { accountId } = await ctx.control.createAccount(ctx.workspaceId, { name: `${ctx.run.prefix}related`, domain: 'related.example.com' });
  // Made side by side (the control protocol's calls are free), a few at a time.
  const people = await inParallel(
    Array.from({ length: PEOPLE }, (_, i) => i),
    8,
    async (i) => ctx.control.createPerson(ctx.workspaceId, accountId, { name: `${ctx.run.prefix}contact-${i}` }),
  );
  const personId = people.at(-1)!.personId;
  const paths = new Set<string>();
  const foreign = new Map<string, string[]>();
  // The account's collections must list none of the other account's people; the person's, not the other account.
  const notTheirs: Record<string, string[]> = {
    [`/data/accounts/${accountId}`]: [otherPerson.personId, otherPerson.accountPersonId],
    [`/data/people/${personId}`]: [other.accountId, otherPerson.personId, otherPerson.accountPersonId],
  };
  for (const [path, ids] of Object.entries(notTheirs)) {
    const ex = await ctx.api.send({ method: 'GET', path, key });
    if (!is2xx(ex)) continue;
    for (const text of linkTexts(ex.response?.json)) {
      const p = apiPathOf(text, ex, path);
      if (p !== undefined && paths.size < LINKS && !paths.has(p)) {
        paths.add(p);
        foreign.set(p, ids);
      }
    }
  }
  if (paths.size === 0) throw new NotObservable('the stored account and person showed no relatedData link to a path of the API (their reads are DATA-001 and DATA-002)');
  const read = `/data/accounts/${accountId}`;
  const contacts = people.flatMap((p) => [p.personId, p.accountPersonId]);
  return { paths: [...paths], foreign, account: { read, paths: [...paths].filter((p) => foreign.get(p) === notTheirs[read]), contacts } };
}

/** The listings of 4.9 besides GET /definitions, paged like the linked collections (PAGE-013). */
const LISTINGS = ['/data/relationships', '/operations'] as const;

/** What reading one collection found (operations/related-collections): its findings, and whether it is one of the account's and lists a contact. */
interface Visit {
  found: Evidence[];
  /** The whole read, where the collection is one the account links to. */
  own?: Exchange;
  listsContact: boolean;
}

/** Walks `path` one item a page; the ids in order, or the finding's words. */
async function walkOneByOne(ctx: CheckContext, key: KeyHandle, path: string, most: number): Promise<{ ids: string[]; pages: Exchange[]; problem?: string; cut?: true }> {
  const ids: string[] = [];
  const pages: Exchange[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < most; i++) {
    const ex = await ctx.api.send({ method: 'GET', path, key, query: cursor === null ? { limit: 1 } : { limit: 1, cursor } });
    pages.push(ex);
    const env = envelopeOf(ex);
    if (!is2xx(ex) || !env) return { ids, pages, problem: `a page asked with limit=1${cursor ? ' and the cursor given' : ''} was answered ${received(ex)}` };
    if (env.items.length > 1) return { ids, pages, problem: `a page asked with limit=1 holds ${env.items.length} items` };
    ids.push(...env.items.map(idOfItem).filter((x): x is string => x !== undefined));
    if (env.nextCursor === null) return { ids, pages };
    cursor = env.nextCursor;
  }
  return { ids, pages, cut: true };
}

export const relatedCollections: CheckDef = {
  id: 'operations/related-collections',
  title: "The collections a stored record's relatedData links to answer the collection envelope and need a key; they, GET /data/relationships and GET /operations page by limit and cursor",
  clauses: ['ENV-004', 'PAGE-013', 'AUTH-004', 'DATA-005', 'DATA-001'],
  // ENV-004, AUTH-004 and DATA-005 are judged on the linked collections, rows of their own (docs/coverage.md).
  endpoints: { 'PAGE-013': ['listRelationships', 'listOperations'] },
  needs: { control: true },
  // The account and person reads, the six linked collections read whole, and their one-item
  // pages: three for the account's contacts, one for each of the other five; the relationships
  // listing read whole and in LISTING_PAGES one-item pages; GET /operations is free.
  // And limit=200 on each collection shown to read limit (the account's contacts, the relationships).
  // The account's contacts (51) are walked to WALK_PAGES one-item pages.
  // And the second page of the account's contacts, read to the end.
  credits: 2 + 6 + WALK_PAGES + 5 + 1 + LISTING_PAGES + 2 + 1,
  // Up to WALK_PAGES pages per collection where a target lists more, or ends a walk on an empty page.
  // (And a page after a short default one, on a target that ends collections on an empty page.)
  maxCredits: 2 + (LINKS + 1) * (3 + WALK_PAGES + REST_PAGES),
  async run(ctx) {
    ctx = usableResponses(ctx, 'ENV-004');
    const key = ctx.key('owner');
    const { paths: links, foreign, account } = await linkedCollections(ctx, key);
    // 4.9: an account's relatedData links to its contacts, among others: some collection it links
    // to lists one of its 51 contacts on the first page (by either id; which link is which is not shown).
    // Each collection is read on its own, the collections side by side: against a distant target,
    // eight collections one after another were the longest wait of their lane. Their findings are
    // reported in the order of the collections, whatever order the answers came in, and a visit
    // that throws ends the check as it did one after another: after the findings of those before it.
    const settled = await Promise.allSettled([...links, ...LISTINGS].map((path) => visitCollection(path)));
    const visits: Visit[] = [];
    for (const v of settled) {
      if (v.status === 'rejected') throw v.reason;
      for (const e of v.value.found) ctx.softFail(e);
      visits.push(v.value);
    }
    const ownContacts = visits.flatMap((v) => (v.own ? [v.own] : []));
    const contactsListed = visits.some((v) => v.listsContact);

    /** Reads one collection whole, pages it, and judges it; what it found is returned, not reported. */
    async function visitCollection(path: string): Promise<Visit> {
      const found: Evidence[] = [];
      const visit: Visit = { found, listsContact: false };
      const soft = (e: Evidence): void => void found.push(e);
      const linked = links.includes(path);
      const whole = await ctx.api.send({ method: 'GET', path, key });
      const env = envelopeOf(whole);
      // Another shape of a 4.9 listing is ENV-002's and ENV-003's (SHOULD): nothing to page here.
      if ((!is2xx(whole) || !env) && !linked) return visit;
      if (linked) ctx.judged('ENV-004');
      if (!is2xx(whole) || !env) {
        soft({
          clause: 'ENV-004',
          message: `${path}, linked from relatedData, did not answer the collection envelope`,
          expected: '2xx with { items: [...], nextCursor: uuid | null }',
          received: is2xx(whole) ? brief(whole.response?.json ?? whole.response?.text) : received(whole),
          exchange: whole,
        });
        return visit;
      }
      // A linked collection is read to its end (a few pages at most): an unrelated record may sort
      // anywhere, and the account's contacts fill more than a default page.
      const pages = [whole];
      for (let cursor = linked ? env.nextCursor : null, i = 0; cursor !== null && i < REST_PAGES; i++) {
        const ex = await ctx.api.send({ method: 'GET', path, key, query: { cursor } });
        pages.push(ex);
        const e = envelopeOf(ex);
        cursor = is2xx(ex) && e ? e.nextCursor : null;
      }
      // Listed means in an item: a cursor made of the last item's id is no listing of it.
      const listsOn = (ex: Exchange, id: string): boolean => {
        const items = envelopeOf(ex)?.items;
        return items !== undefined && (containsString(items, id) || containsString(items, id.toLowerCase()));
      };
      const lists = (id: string): boolean => pages.some((ex) => listsOn(ex, id));
      if (account.paths.includes(path)) {
        visit.own = whole;
        if (account.contacts.some(lists)) visit.listsContact = true;
      }
      // A record's collections are its own: nothing of an unrelated account of the workspace.
      const alien = (foreign.get(path) ?? []).find(lists);
      if (linked) ctx.judged('DATA-005');
      if (alien !== undefined) {
        const at = pages.find((ex) => listsOn(ex, alien)) ?? whole;
        soft({
          clause: 'DATA-005',
          message: `${path}, linked from a stored record's relatedData, lists ${alien}, a record of an unrelated account of the workspace`,
          expected: "only the linking record's own evidence, deals, contacts or accounts",
          received: brief(at.response?.json, 600),
          exchange: at,
          context: pages.filter((ex) => ex !== at),
        });
      }
      // Part 8's default page size: a read without limit never lists more than 50, nor fewer
      // while more follow. A cursor after a short page may lead to an empty last page (PAGE-006's
      // readings): it is followed once to tell.
      if (env.nextCursor !== null || env.items.length > DEFAULT_PAGE) {
        const next = env.items.length < DEFAULT_PAGE && env.nextCursor !== null ? await ctx.api.send({ method: 'GET', path, key, query: { cursor: env.nextCursor } }) : undefined;
        const nextEnv = next ? envelopeOf(next) : undefined;
        const moreAfterShort = next !== undefined && (!is2xx(next) || !nextEnv || nextEnv.items.length > 0);
        ctx.judged('PAGE-013');
        if (env.items.length > DEFAULT_PAGE || moreAfterShort) {
          soft({
            clause: 'PAGE-013',
            message: `${path}: a read without limit listed ${env.items.length} items${moreAfterShort ? ', and the page after it more' : ''}, not part 8's default page of ${DEFAULT_PAGE}`,
            expected: `${DEFAULT_PAGE} items, with nextCursor to the rest (or fewer, the rest an empty page)`,
            received: `${env.items.length} items, nextCursor ${JSON.stringify(env.nextCursor)}${next ? `; then ${received(next)}` : ''}`,
            exchange: next ?? whole,
            ...(next ? { context: [whole] } : {}),
          });
        }
      }
      const keyless = linked ? await ctx.api.send({ method: 'GET', path, key: null }) : undefined;
      if (keyless) ctx.judged('AUTH-004');
      if (keyless && keyless.response?.status !== 401) {
        soft({ clause: 'AUTH-004', message: `${path}, linked from relatedData, was not rejected with 401 without a key`, expected: '401', received: received(keyless), exchange: keyless });
      }
      const walk = await walkOneByOne(ctx, key, path, linked ? WALK_PAGES : LISTING_PAGES);
      const all = env.nextCursor === null ? env.items.map(idOfItem).filter((x): x is string => x !== undefined) : undefined;
      // The page size is judged only where the collection shows it reads `limit` (module comment).
      if (walk.problem !== undefined) {
        if (/holds \d+ items/.test(walk.problem)) return visit;
        soft({
          clause: 'PAGE-013',
          message: `${path}: ${walk.problem}`,
          expected: 'a page of at most one item, its nextCursor leading on',
          received: received(walk.pages.at(-1)!),
          exchange: walk.pages.at(-1)!,
          context: walk.pages.slice(0, -1),
        });
        return visit;
      }
      ctx.judged('PAGE-013');
      const ascending = walk.ids.every((id, i) => i === 0 || compareIds(walk.ids[i - 1]!, id) < 0);
      // A walk cut at its page bound is compared with the start of the whole read.
      const sorted = all === undefined ? undefined : [...all].sort(compareIds);
      const same = sorted === undefined || (walk.cut ? sorted.slice(0, walk.ids.length) : sorted).join() === walk.ids.join();
      if (!ascending || !same) {
        soft({
          clause: 'PAGE-013',
          message: `${path}: following nextCursor one item at a time ${ascending ? 'did not list each item of the collection once' : 'listed ids out of ascending order'}`,
          expected: sorted ? `the ${walk.cut ? `first ${walk.ids.length} of the ` : ''}${sorted.length} items of the whole read, ascending by id: ${brief(sorted)}` : 'ids ascending',
          received: brief(walk.ids),
          exchange: walk.pages.at(-1)!,
          context: [whole, ...walk.pages.slice(0, -1)],
        });
        return visit;
      }
      if (walk.ids.length < 2) return visit;
      // Shown to read `limit`: its bounds are part 8's, both edges (200 the last accepted, 0 and 201 refused).
      for (const limit of [0, 201]) {
        const ex = await ctx.api.send({ method: 'GET', path, key, query: { limit } });
        ctx.judged('PAGE-013');
        if (ex.response && INVALID_STATUSES.includes(ex.response.status)) continue;
        soft({ clause: 'PAGE-013', message: `${path}: limit=${limit} was not refused as invalid`, expected: '400, or 422 with defined false', received: received(ex), exchange: ex });
      }
      const widest = await ctx.api.send({ method: 'GET', path, key, query: { limit: 200 } });
      const page = envelopeOf(widest);
      ctx.judged('PAGE-013');
      if (!is2xx(widest) || !page || page.items.length > 200) {
        soft({
          clause: 'PAGE-013',
          message: `${path}: limit=200, part 8's maximum, was not answered with a page of at most 200 items`,
          expected: '2xx with the collection envelope',
          received: received(widest),
          exchange: widest,
        });
      }
      return visit;
    }
    if (ownContacts.length > 0) {
      ctx.judged('DATA-001');
      if (!contactsListed)
        ctx.softFail({
          clause: 'DATA-001',
          message: `none of the ${ownContacts.length} collections a stored account's relatedData links to lists any of its ${PEOPLE} contacts`,
          expected: "a linked collection of the account's contacts (4.9), listing them by their person or membership ids",
          received: brief(
            ownContacts.map((ex) => ex.response?.json),
            600,
          ),
          exchange: ownContacts.at(-1)!,
          context: ownContacts.slice(0, -1),
        });
    }
  },
};
