/**
 * The collection envelope of GET /definitions (seed 2.3, 4.3): `items`, an array of
 * Definitions, and `nextCursor`, a uuid string or null, on every page, the last included.
 * Definition fields are the definitions suite's concern; here an item must be an object with
 * a string id (what paging relies on).
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { brief, isObject, UUID_RE } from '../_shared/json.ts';
import { MAX_LIMIT, walkDefinitions, WALK_MAX_PAGES, type ListQuery, type WalkPage } from '../_shared/paging-walk.ts';
import { createDefinition } from '../_shared/definitions.ts';
import { READER, WRITER } from './support.ts';

/** The envelope rules pageOf (paging.ts) does not check: uuid cursors and item objects with ids. */
function expectEnvelopeDetails(page: WalkPage): void {
  const fail = (message: string, expected: string, received: string, exchange: Exchange): never => {
    throw new Finding({ clause: 'ENV-001', message, expected, received, exchange });
  };
  if (page.nextCursor !== null && !UUID_RE.test(page.nextCursor)) fail('nextCursor is neither null nor a uuid', 'a uuid string or null', JSON.stringify(page.nextCursor), page.exchange);
  const bad = page.items.findIndex((i) => !isObject(i) || typeof i.id !== 'string');
  if (bad >= 0) fail(`items[${bad}] is not a Definition object with an id`, 'an array of Definitions', brief(page.items[bad]), page.exchange);
}

/** The listings looked at: the default page, a walk of large pages, and one-item pages including archived ones (so that a non-null cursor shows up). */
const QUERIES: readonly { q: ListQuery; maxPages: number }[] = [
  { q: {}, maxPages: 1 },
  { q: { limit: MAX_LIMIT }, maxPages: WALK_MAX_PAGES },
  { q: { limit: 1, includeArchived: true }, maxPages: 2 },
];

export const envelope: CheckDef = {
  id: 'pagination/envelope',
  title: 'GET /definitions answers { items: Definition[], nextCursor: uuid | null } on every page, the last one included',
  clauses: ['ENV-001'],
  endpoints: ['listDefinitions'],
  // Credits measured (specs/credit-plan.json): after PAGE-001's check (index.ts) the workspace
  // holds more than a page, so the listings show cursors without definitions of the check's own.
  // Each listing up to its maxPages over a workspace holding data, the one-item walk twice.
  maxCredits: QUERIES.reduce((n, x) => n + x.maxPages, 0) + 4 + 2,
  async run(ctx) {
    const key = ctx.key(READER);
    const seen = { answered: 0, items: 0, cursors: 0 };
    const look = async (queries: typeof QUERIES): Promise<void> => {
      for (const { q, maxPages } of queries) {
        let walk;
        try {
          // pageOf (inside the walk) checks the items array and a present nextCursor.
          walk = await walkDefinitions(ctx, key, q, { maxPages, envelopeClause: 'ENV-001' });
        } catch (e) {
          // A refused query (a limit or flag the target gets wrong) is another clause's concern: the envelope is about answers.
          const status = e instanceof Finding ? e.evidence.exchange?.response?.status : undefined;
          if (status !== undefined && (status < 200 || status >= 300)) continue;
          throw e;
        }
        seen.answered++;
        for (const page of walk.pages) {
          expectEnvelopeDetails(page);
          // pageOf (inside the walk) and expectEnvelopeDetails threw unless this page's envelope held.
          ctx.judged('ENV-001');
          seen.items += page.items.length;
          if (page.nextCursor !== null) seen.cursors++;
        }
      }
    };
    await look(QUERIES);
    // Nothing judged is no pass: an empty workspace shows no item and no cursor. Two definitions
    // of the check's own make the one-item pages show both (a mutation: not in read-only runs).
    if ((seen.items === 0 || seen.cursors === 0) && !ctx.run.readOnly && seen.answered > 0) {
      for (let i = 0; i < 2; i++) await createDefinition(ctx, ctx.key(WRITER), 'ENV-001');
      await look(QUERIES.filter((x) => x.q.limit === 1));
    }
    if (seen.answered === 0) throw new NotObservable('GET /definitions answered none of the listings with a 2xx');
    if (seen.cursors === 0)
      throw new NotObservable(
        `no page of GET /definitions carried a non-null nextCursor (${seen.items} items seen${ctx.run.readOnly ? '; a read-only run makes no definitions to page' : ''}), so its form could not be judged`,
      );
  },
};
