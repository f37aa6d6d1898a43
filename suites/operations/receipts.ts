/**
 * Catalog operations and their receipts (seed 4.8): graph.apply_update is accepted with a
 * receipt, the receipt is polled at GET /operations/{id}, GET /operations lists receipts in
 * the collection envelope, and unknown names and ids are refused.
 */
import { randomUUID } from 'node:crypto';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, expectStatus, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { describeBound, waitBound } from '../../src/engine/waits.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { applyUpdateBody, makeAccount, pollReceipt, receiptPath, submitOperation, type AccountFixture } from '../_shared/ops-fixtures.ts';
import { applyUpdateKinds } from '../_shared/change-kinds.ts';
import { pageOf } from '../_shared/paging.ts';
import { findResourceId, isUuid, listedReceiptIds, RECEIPT_BOUND_MS, receiptListPages, unknownIdLike } from '../_shared/receipts.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

const received = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind}: ${ex.error?.message})`);

/** 503 means the capability behind the call is not configured on this target. */
function unlessUnavailable(ex: Exchange, what: string): void {
  if (ex.response?.status === 503) throw new NotObservable(`${what} answered 503: the capability is not configured on this target`);
}

/** A value shaped for a person field by its name (a server may check an email's or a URL's form). */
function personValue(field: string): string {
  if (/mail/i.test(field)) return 'conformance@example.com';
  if (/phone|mobile/i.test(field)) return '+15555550100';
  if (/url|linkedin|site/i.test(field)) return 'https://www.example.com/conformance';
  return 'Conformance';
}

/**
 * The person_field changes the check sends: one per field the live catalog lists for that kind
 * (part 9 rule 2: the catalog, not the suite, says which fields exist), or the field 4.8 names
 * (title) where the catalog lists none.
 */
async function personFieldChanges(ctx: CheckContext, key: KeyHandle, fx: AccountFixture): Promise<Record<string, unknown>[] | undefined> {
  // An unreadable catalog leaves the field 4.8 names; anything else (a stop, a harness error) goes on up.
  const kinds = await applyUpdateKinds(ctx, key).catch((e: unknown) => {
    if (e instanceof NotObservable) return [];
    throw e;
  });
  const entry = kinds.find((k) => k.kind === 'person_field');
  const fields = entry?.fields?.filter((f) => typeof f === 'string' && f.length > 0).slice(0, 20);
  if (!fields || fields.length === 0 || (fields.length === 1 && fields[0] === 'title')) return undefined;
  return fields.map((field) => ({ kind: 'person_field', target_label: field, person_id: fx.accountPersonId, field, after: personValue(field) }));
}

export const applyUpdateAccepted: CheckDef = {
  id: 'operations/apply-update-accepted',
  title: 'graph.apply_update with person_field changes on an account-membership record (every field the live catalog lists, else title) is accepted with a receipt',
  clauses: ['OPS-006'],
  needs: { control: true, mutation: true },
  // One accepted submission (the catalog is free; a refused one is too).
  credits: 1,
  maxCredits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-006');
    const fx = await makeAccount(ctx, 'ops-edit');
    const key = ctx.key('owner');
    // Every field the catalog lists, in one submission; where that is refused (a field's value
    // form the suite cannot know), the field 4.8 shows alone: only that one is judged.
    const listed = await personFieldChanges(ctx, key, fx);
    const documented = applyUpdateBody(fx);
    const all = listed ? await submitOperation(ctx, key, { ...documented, arguments: { ...(documented.arguments as object), changes: listed } }) : undefined;
    const ex = all && is2xx(all) ? all : await submitOperation(ctx, key, documented);
    unlessUnavailable(ex, 'graph.apply_update');
    ctx.judged('OPS-006');
    if (!is2xx(ex)) {
      throw new Finding({
        clause: 'OPS-006',
        message: 'a graph.apply_update of the shape seed 4.8 shows, from a fully permitted key, was not accepted',
        expected: '2xx with a receipt',
        received: received(ex),
        exchange: ex,
      });
    }
    // A receipt's fields are not shown: an object body, or a Location to poll, is one.
    if (!isObject(ex.response?.json) && !ex.response?.headers['location']) {
      throw new Finding({
        clause: 'OPS-006',
        message: 'the accepted submission carries no receipt',
        expected: 'a JSON object (the receipt) or a Location header',
        received: received(ex),
        exchange: ex,
      });
    }
  },
};

export const receiptPollable: CheckDef = {
  id: 'operations/receipt-pollable',
  title: 'The receipt of a submitted operation answers 2xx at GET /operations/{id}',
  clauses: ['OPS-001'],
  needs: { control: true, mutation: true },
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-001');
    const owner = ctx.key('owner');
    const fx = await makeAccount(ctx, 'ops-poll');
    const submitted = await submitOperation(ctx, owner, applyUpdateBody(fx));
    if (!is2xx(submitted)) throw new NotObservable(`the submission was refused (${received(submitted)}), so there is no receipt to poll`);
    if (receiptPath(submitted) === undefined) throw new NotObservable('the submission names no receipt id (id, receiptId, operationId, a wrapper or Location)');
    const polled = (await pollReceipt(ctx, owner, submitted, { budgetMs: RECEIPT_BOUND_MS }))!;
    ctx.judged('OPS-001');
    if (!polled.satisfied) {
      throw new Finding({
        clause: 'OPS-001',
        message: `the receipt never answered 2xx at ${receiptPath(submitted)} (${polled.polls.length} polls within ${describeBound(ctx.run, RECEIPT_BOUND_MS)})`,
        expected: '2xx with the receipt',
        received: received(polled.last),
        exchange: polled.last,
        context: [submitted],
      });
    }
  },
};

export const receiptsListed: CheckDef = {
  id: 'operations/receipts-listed',
  title: 'GET /operations answers with the collection envelope',
  clauses: ['ENV-002'],
  endpoints: ['listOperations'],
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ENV-002');
    const ex = await ctx.api.send({ method: 'GET', path: '/operations', key: ctx.key('owner') });
    unlessUnavailable(ex, 'GET /operations');
    pageOf('ENV-002', ex);
    // pageOf (suites/_shared/paging.ts) throws unless the envelope held; it counts nothing itself.
    ctx.judged('ENV-002');
  },
};

export const unknownReceipt: CheckDef = {
  id: 'operations/unknown-receipt',
  title: 'GET /operations/{id} of an id that names no receipt answers 404',
  clauses: ['OPS-013'],
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-013');
    const owner = ctx.key('owner');
    // Receipt ids are not shown to be uuids: the unknown id takes the shape of an issued one
    // (GET /operations is free; earlier checks of the suite submitted operations).
    const list = await ctx.api.send({ method: 'GET', path: '/operations', key: owner });
    const issued = is2xx(list) ? listedReceiptIds(list)[0] : undefined;
    const ex = await ctx.api.send({ method: 'GET', path: `/operations/${encodeURIComponent(issued === undefined ? randomUUID() : unknownIdLike(issued))}`, key: owner });
    const status = ex.response?.status;
    if (status !== undefined && INVALID_STATUSES.includes(status) && (issued === undefined || !isUuid(issued))) {
      throw new NotObservable(
        issued === undefined
          ? `a random uuid was refused as invalid (${status}) and no issued receipt id was listed to show the server's id format`
          : `an id shaped like the issued receipt id ${JSON.stringify(issued)} was refused as invalid (${status}): the server's id format is not known well enough to form a well-formed id`,
      );
    }
    expectStatus('OPS-013', ex, 404);
  },
};

export const unknownOperation: CheckDef = {
  id: 'operations/unknown-operation',
  title: 'An operation name outside the catalog is refused (400 or 422 as invalid, or 404) with an error body',
  clauses: ['OPS-002'],
  needs: { mutation: true },
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-002');
    const body = { operation: `wgc.no_such_operation_${randomUUID().slice(0, 8)}`, arguments: {}, reason: 'conformance check' };
    const ex = await submitOperation(ctx, ctx.key('owner'), body);
    const res = expectStatus('OPS-002', ex, [...INVALID_STATUSES, 404]);
    // The envelope's fields are the errors suite's (ERR-001/002); a refusal needs an error body at all.
    if (!res.isJson || !isObject(res.json)) {
      throw new Finding({ clause: 'OPS-002', message: 'the refusal has no error envelope: the body is not a JSON object', expected: 'an error envelope', received: received(ex), exchange: ex });
    }
  },
};

/** Pages of GET /operations followed when looking for a receipt (the listing is free). */
const LIST_PAGES = 10;
/** A list this long without a cursor may be cut short (its paging is not shown). */
const MAYBE_TRUNCATED = 50;

/** Whether GET /operations, followed through its cursors, lists `id`; with the exchanges read. */
async function listsReceipt(ctx: CheckContext, key: KeyHandle, id: string): Promise<{ found: boolean; pages: Exchange[]; truncated: boolean }> {
  const lists = (page: Exchange) => listedReceiptIds(page).some((x) => x.toLowerCase() === id.toLowerCase());
  const { pages, ended } = await receiptListPages(ctx, key, LIST_PAGES, lists);
  const found = lists(pages.at(-1)!);
  return { found, pages, truncated: !found && (!ended || listedReceiptIds(pages.at(-1)!).length >= MAYBE_TRUNCATED) };
}

export const submittedWorkListed: CheckDef = {
  id: 'operations/submitted-work-listed',
  title: 'A receipt POST /operations just returned is listed by GET /operations',
  clauses: ['OPS-014'],
  endpoints: ['listOperations'],
  needs: { mutation: true, control: true },
  // The submission (GET /operations is free).
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-014');
    const owner = ctx.key('owner');
    const fx = await makeAccount(ctx, 'ops-listed');
    const submitted = await submitOperation(ctx, owner, applyUpdateBody(fx));
    if (!is2xx(submitted)) throw new NotObservable(`the submission was refused (${received(submitted)}), so there is no receipt to look for`);
    const id = findResourceId(submitted);
    if (id === undefined) throw new NotObservable('the submission names no receipt id (id, receiptId, operationId, a wrapper or Location)');
    // Listed at once, or within the bound (an index may lag). Late only once a listing started
    // after the bound has not shown it (however long each listing takes on a distant target).
    const deadline = Date.now() + waitBound(ctx.run, RECEIPT_BOUND_MS);
    let startedAt = Date.now();
    let seen = await listsReceipt(ctx, owner, id);
    while (!seen.found && startedAt < deadline) {
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(250, deadline - Date.now()))));
      startedAt = Date.now();
      seen = await listsReceipt(ctx, owner, id);
    }
    if (seen.found) {
      ctx.judged('OPS-014');
      return;
    }
    if (seen.truncated)
      throw new NotObservable(
        `GET /operations did not list receipt ${id} within ${seen.pages.length} page(s), and may be cut short (${MAYBE_TRUNCATED} or more receipts, no cursor, or more than ${LIST_PAGES} pages)`,
      );
    throw new Finding({
      clause: 'OPS-014',
      message: `GET /operations does not list receipt ${id}, which POST /operations just returned (${describeBound(ctx.run, RECEIPT_BOUND_MS)})`,
      expected: `an item with id ${id}`,
      received: received(seen.pages.at(-1)!),
      exchange: seen.pages.at(-1)!,
      context: [submitted, ...seen.pages.slice(0, -1)],
    });
  },
};
