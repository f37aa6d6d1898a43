/**
 * The POST /operations body (seed 4.8): operation is a string, arguments an object, reason a
 * string. Each malformed body is built from a valid graph.apply_update submission with one
 * field broken, so the broken field is the only reason to refuse it; it must be refused as
 * invalid and leave no receipt behind.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { containsString } from '../_shared/json.ts';
import { applyUpdateBody, makeAccount, pollReceipt, submitOperation } from '../_shared/ops-fixtures.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { listedReceiptIds, receiptProgress } from '../_shared/receipts.ts';

/** One broken field of a valid body: what it is, the body, and what besides 400/422 may answer it. */
const BROKEN: readonly { what: string; breakIt: (body: Record<string, unknown>) => Record<string, unknown>; also?: readonly number[] }[] = [
  { what: 'without operation', breakIt: ({ operation: _, ...rest }) => rest },
  // A name that is not a string may be taken for an unknown operation (OPS-002 allows 404).
  { what: 'with operation a number', breakIt: (b) => ({ ...b, operation: 42 }), also: [404] },
  { what: 'with arguments a string', breakIt: (b) => ({ ...b, arguments: 'customer_id' }) },
  { what: 'with arguments an array', breakIt: (b) => ({ ...b, arguments: [b.arguments] }) },
  { what: 'with reason a number', breakIt: (b) => ({ ...b, reason: 42 }) },
];

export const malformedSubmissionRefused: CheckDef = {
  id: 'operations/malformed-submission-refused',
  title: 'A POST /operations body without operation, or with operation, arguments or reason of the wrong type, is refused as invalid and submits nothing',
  clauses: ['OPS-015'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // Every body is refused (GET /operations is free).
  credits: 0,
  // A target that takes them submits each.
  maxCredits: BROKEN.length,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-015');
    const owner = ctx.key('owner');
    const valid = applyUpdateBody(await makeAccount(ctx, 'ops-malformed'));
    const before = await ctx.api.send({ method: 'GET', path: '/operations', key: owner });
    const sent: Exchange[] = [];
    for (const { what, breakIt, also } of BROKEN) {
      const ex = await submitOperation(ctx, owner, breakIt(valid));
      sent.push(ex);
      const status = ex.response?.status;
      ctx.judged('OPS-015');
      if (status !== undefined && ([...INVALID_STATUSES, ...(also ?? [])] as number[]).includes(status)) continue;
      ctx.softFail({
        clause: 'OPS-015',
        message: `a submission ${what} was not refused as invalid`,
        expected: `400 or 422${also ? ` (or ${also.join(', ')})` : ''}`,
        received: ex.response ? `${status} ${ex.response.text.slice(0, 200)}` : `no response (${ex.error?.kind})`,
        exchange: ex,
      });
    }
    // Nothing submitted: in a workspace of the suite's own, the list of receipts is unchanged.
    if (ctx.run.sharedWorkspace) return;
    const after = await ctx.api.send({ method: 'GET', path: '/operations', key: owner });
    if (!is2xx(before) || !is2xx(after)) throw new NotObservable('GET /operations could not be read to show that nothing was submitted');
    const was = new Set(listedReceiptIds(before));
    const fresh = listedReceiptIds(after).filter((id) => !was.has(id));
    ctx.judged('OPS-015');
    if (fresh.length > 0) {
      ctx.softFail({
        clause: 'OPS-015',
        message: `malformed submissions left ${fresh.length} receipt(s) behind (${fresh.join(', ')})`,
        expected: 'no new receipt',
        received: after.response?.text.slice(0, 300) ?? '',
        exchange: after,
        context: sent,
      });
    }
  },
};

export const canonicalPersonIdNotApplied: CheckDef = {
  id: 'operations/canonical-person-id-not-applied',
  title: 'A person_field change naming the canonical person id instead of the account-membership record is not applied',
  clauses: ['OPS-016'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // Refused on the reference (nothing to read back).
  credits: 0,
  // Accepted: the submission and the person read back by both of its ids.
  maxCredits: 3,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-016');
    const owner = ctx.key('owner');
    const fx = await makeAccount(ctx, 'ops-canonical');
    const marker = `${ctx.run.prefix}canonical-${fx.personId.slice(0, 8)}`;
    const body = applyUpdateBody({ ...fx, accountPersonId: fx.personId }, marker);
    const submitted = await submitOperation(ctx, owner, body);
    if (!is2xx(submitted)) {
      // Refused: not applied.
      ctx.judged('OPS-016');
      return;
    }
    // Accepted: once its work has run, neither reading of the person shows the new title.
    await pollReceipt(ctx, owner, submitted, { budgetMs: 3_000, done: (ex) => is2xx(ex) && receiptProgress(ex.response?.json) !== 'pending' });
    for (const id of [fx.accountPersonId, fx.personId]) {
      const read = await ctx.api.send({ method: 'GET', path: `/data/people/${encodeURIComponent(id)}`, key: owner });
      if (!is2xx(read)) continue;
      ctx.judged('OPS-016');
      if (!containsString(read.response?.json, marker)) continue;
      ctx.softFail({
        clause: 'OPS-016',
        message: 'a person_field change addressed to the canonical person id was applied',
        expected: 'refused, or nothing changed',
        received: (read.response?.text ?? '').slice(0, 300),
        exchange: read,
        context: [submitted],
      });
      return;
    }
  },
};
