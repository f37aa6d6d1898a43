/**
 * The fifth endpoint of seed 4.1: POST /operations, with graph.apply_update (a person_field
 * change, whose request shape the seed shows) on an account person made through the control
 * protocol. Receipts are not shown by the seed, so "no second receipt" is read two ways: the
 * receipt id the replay answers (searched, receipts.ts) and the number of receipts GET
 * /operations lists, when it answers the collection envelope.
 */
import type { ApiRequest, CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { isObject } from '../_shared/json.ts';
import { findResourceId } from '../_shared/receipts.ts';
import { ADMIN, freshKey, judgeReplay, sendAccepted } from './support.ts';

/** Pages of GET /operations read to count receipts (free: seed part 8, billing rule 2). */
const RECEIPT_PAGES = 20;

/** Existing records a profile may name for targets without control (when the harness passes them on). */
type WithFixtures = CheckContext & { fixtures?: { accountId?: string; accountPersonId?: string } };

/** An account and one of its account-membership records: made with control, else from fixtures. */
export async function personSubject(ctx: CheckContext): Promise<{ accountId: string; accountPersonId: string }> {
  if (!ctx.run.hasControl) {
    const fx = (ctx as WithFixtures).fixtures;
    if (fx?.accountId && fx.accountPersonId) return { accountId: fx.accountId, accountPersonId: fx.accountPersonId };
    throw new NotObservable('needs an account person to edit: the test-control protocol, or fixtures accountId and accountPersonId in the profile');
  }
  const { accountId } = await ctx.control.createAccount(ctx.workspaceId, { name: `${ctx.run.prefix}idem-account` });
  const { accountPersonId } = await ctx.control.createPerson(ctx.workspaceId, accountId, { name: 'Idem Probe', title: 'Original title' });
  return { accountId, accountPersonId };
}

/** How many receipts GET /operations lists, or undefined when it does not answer a walkable envelope. */
async function receiptCount(ctx: CheckContext, key: KeyHandle): Promise<number | undefined> {
  let cursor: string | null = null;
  let count = 0;
  const seen = new Set<string>();
  for (let page = 0; page < RECEIPT_PAGES; page++) {
    const ex = await ctx.api.send({ method: 'GET', path: '/operations', key, query: cursor ? { cursor } : undefined });
    const body = ex.response?.json;
    if (!ex.response || ex.response.status !== 200 || !isObject(body) || !Array.isArray(body.items)) return undefined;
    count += body.items.length;
    const next = body.nextCursor;
    if (next === null) return count;
    if (typeof next !== 'string' || seen.has(next)) return undefined;
    seen.add(next);
    cursor = next;
  }
  return undefined;
}

export const operationReplay: CheckDef = {
  id: 'idempotency/operation-replay',
  title: 'POST /operations under a key succeeds; its replay returns the original receipt and submits nothing again',
  clauses: ['IDEM-001', 'IDEM-002', 'IDEM-003'],
  endpoints: ['submitOperation'],
  needs: { mutation: true },
  // The submit only: the replay is not billed and GET /operations is free.
  credits: 1,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const { accountId, accountPersonId } = await personSubject(ctx);
    const body = {
      operation: 'graph.apply_update',
      arguments: {
        customer_id: accountId,
        summary: 'Conformance check: set a job title',
        changes: [{ kind: 'person_field', target_label: 'Job title', person_id: accountPersonId, field: 'title', after: 'Head of Conformance' }],
      },
      reason: 'idempotency replay check',
    };
    const req: ApiRequest & { idempotencyKey: string } = { method: 'POST', path: '/operations', key, body, idempotencyKey: freshKey(ctx, 'op') };
    const original = await sendAccepted(ctx, req, () => ({ method: 'POST', path: '/operations', key, body }));
    const before = await receiptCount(ctx, key);
    const replay = await ctx.api.send(req);
    judgeReplay(ctx, original, replay);

    const first = findResourceId(original);
    const again = findResourceId(replay);
    // IDEM-003 verdicts are recorded softly so that IDEM-001 and IDEM-002 keep theirs.
    if (first !== undefined && again !== undefined) ctx.judged('IDEM-003');
    if (first !== undefined && again !== undefined && first !== again) {
      ctx.softFail({
        clause: 'IDEM-003',
        message: 'the replay answered another receipt than the original submission',
        expected: `receipt ${first}`,
        received: `receipt ${again}`,
        exchange: replay,
        context: [original],
      });
    }
    const after = await receiptCount(ctx, key);
    if (before !== undefined && after !== undefined) ctx.judged('IDEM-003');
    if (before !== undefined && after !== undefined && after > before) {
      ctx.softFail({
        clause: 'IDEM-003',
        message: 'GET /operations lists more receipts after the replay than before it',
        expected: `${before} receipts`,
        received: `${after} receipts`,
        exchange: replay,
        context: [original],
      });
    }
    if (first === undefined && (before === undefined || after === undefined)) {
      throw new NotObservable('neither a receipt id in the answer nor a receipt listing (GET /operations) shows whether the replay submitted again');
    }
  },
};
