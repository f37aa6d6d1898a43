/**
 * Stored graph data under /data (seed 4.9): accounts and people carry relatedData, the
 * relationships listing exists (and should be a collection envelope), and ids that name no
 * record answer 404. Records are made through the control protocol; their fields are not
 * shown, so only the relatedData member is required, at the top or inside one wrapper object,
 * holding at least one link (its layout is not shown either).
 */
import { randomUUID } from 'node:crypto';
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse, expectStatus, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { judged } from '../../src/engine/judged.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, findObjects, isObject } from '../_shared/json.ts';
import { makeAccount, type AccountFixture } from '../_shared/ops-fixtures.ts';
import { isUuid, unknownIdLike } from '../_shared/receipts.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { carriesLinks } from '../_shared/linked.ts';

const received = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind}: ${ex.error?.message})`);

/** Statuses that say the read itself was not permitted or not configured here, not that the record is missing. */
const NOT_SERVED = [401, 403, 429, 503];

/**
 * The record read: 2xx with an object carrying relatedData that holds at least one link (a path
 * or URL under the API prefix, suites/_shared/linked.ts), else a finding on `clause`.
 */
function expectRelatedData(clause: string, ex: Exchange, what: string, readPath: string, context: Exchange[] = []): void {
  const status = ex.response?.status;
  if (status !== undefined && NOT_SERVED.includes(status)) throw new NotObservable(`${what} answered ${status} to a key with every scope`);
  if (!is2xx(ex)) throw new Finding({ clause, message: `${what} of a stored record did not succeed`, expected: '2xx with the record', received: received(ex), exchange: ex, context });
  const body = ex.response?.json;
  const holders = isObject(body) ? findObjects(body, (o) => 'relatedData' in o, { maxDepth: 2 }) : [];
  judged(clause);
  if (holders.length === 0) {
    throw new Finding({ clause, message: `${what} returned no relatedData`, expected: 'an object with a relatedData member', received: brief(body ?? ex.response?.text, 500), exchange: ex, context });
  }
  if (!carriesLinks(ex, readPath)) {
    throw new Finding({
      clause,
      message: `${what} returned relatedData without a link (a path or URL under the API prefix) to the record's evidence, deals or contacts`,
      expected: 'relatedData links',
      received: brief(
        holders.map((h) => h.relatedData),
        500,
      ),
      exchange: ex,
      context,
    });
  }
}

export const accountRead: CheckDef = {
  id: 'operations/account-read',
  title: 'GET /data/accounts/{id} of a stored account returns it with relatedData',
  clauses: ['DATA-001'],
  needs: { control: true },
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'DATA-001');
    const fx = await makeAccount(ctx, 'data-account');
    const path = `/data/accounts/${fx.accountId}`;
    expectRelatedData('DATA-001', await ctx.api.send({ method: 'GET', path, key: ctx.key('owner') }), 'GET /data/accounts/{id}', path);
  },
};

export const personRead: CheckDef = {
  id: 'operations/person-read',
  title: 'GET /data/people/{id} of a stored contact returns it with relatedData',
  clauses: ['DATA-002'],
  needs: { control: true },
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'DATA-002');
    const owner = ctx.key('owner');
    const fx = await makeAccount(ctx, 'data-person');
    // Which id /data/people takes is not shown: the account-membership record's, else the
    // canonical person's. Any refusal of the first id (404, or 400/422 from a server that takes
    // only canonical ids and reads the other kind as malformed, or 409...) leads to the second;
    // refusals of the caller (401, 403) and throttling (429) are judged on the first.
    const firstPath = `/data/people/${fx.accountPersonId}`;
    const first = await ctx.api.send({ method: 'GET', path: firstPath, key: owner });
    const status = first.response?.status;
    if (status === undefined || status < 400 || status >= 500 || [401, 403, 429].includes(status)) return expectRelatedData('DATA-002', first, 'GET /data/people/{accountPersonId}', firstPath);
    const secondPath = `/data/people/${fx.personId}`;
    const second = await ctx.api.send({ method: 'GET', path: secondPath, key: owner });
    expectRelatedData('DATA-002', second, 'GET /data/people/{id} (by account-membership id and by person id)', secondPath, [first]);
  },
};

export const relationshipsListed: CheckDef = {
  id: 'operations/relationships-listed',
  title: 'GET /data/relationships answers 2xx, with the collection envelope',
  clauses: ['DATA-003', 'ENV-003'],
  endpoints: ['listRelationships'],
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'DATA-003');
    const ex = await ctx.api.send({ method: 'GET', path: '/data/relationships', key: ctx.key('owner') });
    const status = ex.response?.status;
    if (status !== undefined && NOT_SERVED.includes(status)) throw new NotObservable(`GET /data/relationships answered ${status} to a key with every scope`);
    if (!is2xx(ex)) {
      // A refusal is neither the listing nor its envelope: both clauses fail on it.
      ctx.softFail({ clause: 'DATA-003', message: 'GET /data/relationships did not succeed', expected: '2xx', received: received(ex), exchange: ex });
      ctx.softFail({
        clause: 'ENV-003',
        message: 'GET /data/relationships answered no collection envelope',
        expected: '2xx with { items: [...], nextCursor: uuid | null }',
        received: received(ex),
        exchange: ex,
      });
      return;
    }
    ctx.judged('DATA-003');
    const body = ex.response?.json;
    ctx.judged('ENV-003');
    if (!isObject(body) || !Array.isArray(body.items) || !(body.nextCursor === null || typeof body.nextCursor === 'string')) {
      ctx.softFail({
        clause: 'ENV-003',
        message: 'the relationships listing is not a collection envelope',
        expected: '{ items: [...], nextCursor: uuid | null }',
        received: brief(body ?? ex.response?.text),
        exchange: ex,
      });
    }
  },
};

/**
 * Issued ids of each kind, for the shape of unknown ids: the profile's fixtures, else records
 * made through the control protocol (never billed), else none (the seed does not show that
 * these ids are uuids). People have two: the account-membership record's and the canonical
 * person's (which one /data/people takes is not shown).
 */
async function issuedIds(ctx: Parameters<CheckDef['run']>[0]): Promise<{ account: string[]; person: string[] }> {
  const { accountId, accountPersonId } = ctx.fixtures;
  if (accountId !== undefined) return { account: [accountId], person: accountPersonId === undefined ? [] : [accountPersonId] };
  if (!ctx.run.hasControl) return { account: [], person: [] };
  const fx: AccountFixture = await makeAccount(ctx, 'data-shape');
  return { account: [fx.accountId], person: [fx.accountPersonId, fx.personId] };
}

export const unknownRecords: CheckDef = {
  id: 'operations/unknown-records',
  title: 'Stored-data reads of well-formed ids that name no record answer 404',
  clauses: ['DATA-004'],
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'DATA-004');
    const owner = ctx.key('owner');
    const issued = await issuedIds(ctx);
    for (const [kind, path] of [
      ['account', '/data/accounts'],
      ['person', '/data/people'],
    ] as const) {
      // A random uuid when no id was issued; else ids shaped like each issued one in turn.
      const shapes: (string | undefined)[] = issued[kind].length > 0 ? issued[kind] : [undefined];
      const refused: string[] = [];
      for (const like of shapes) {
        const ex = await ctx.api.send({ method: 'GET', path: `${path}/${encodeURIComponent(like === undefined ? randomUUID() : unknownIdLike(like))}`, key: owner });
        const status = ex.response?.status;
        // An id refused as malformed says nothing when the server's id format is not known to be uuids.
        if (status !== undefined && INVALID_STATUSES.includes(status) && (like === undefined || !isUuid(like))) {
          refused.push(like === undefined ? `a random uuid (${status})` : `an id shaped like the issued ${JSON.stringify(like)} (${status})`);
          continue;
        }
        expectStatus('DATA-004', ex, 404);
        break;
      }
      if (refused.length === shapes.length) {
        throw new NotObservable(`GET ${path}/{id} refused as invalid ${refused.join(' and ')}: the server's ${kind} id format is not known well enough to form a well-formed id that names nothing`);
      }
    }
  },
};
