/**
 * A scope taken away during a submission (issue 29 item 3): a keyed graph.apply_update and the
 * operator change that takes graph:write from its key (test-control protocol) are released in an
 * order fast-check's scheduler draws, the submission in flight while the grants change. Grants
 * are read on each request (part 5 rule 8), so either reading is allowed: the submission saw the
 * grant (accepted with a receipt, which stays listed after the grant is gone: removing a grant
 * does not undo what was applied) or it did not (403, and nothing submitted, nothing charged).
 * Given back, the grant works on the next call. Any other answer, a receipt left by a refusal,
 * an accepted receipt missing, or a charge that is not one credit per accepted submission is a
 * finding, named with the order the two were released in.
 *
 * A refused submission is followed by one with the grant given back, so every run is charged
 * one credit on a conformant target, whatever the order: the credit plan stays exact.
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkProperty } from '../../src/engine/property.ts';
import { waitBound } from '../../src/engine/waits.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief } from '../_shared/json.ts';
import { applyUpdateBody, idempotencyKey, makeAccount, type AccountFixture } from '../_shared/ops-fixtures.ts';
import { allReceiptIds, findResourceId, RECEIPT_BOUND_MS } from '../_shared/receipts.ts';

const KEY = 'interleaver';
const RUNS = 3;
/** Pages of GET /operations read to know the workspace's receipts (free). */
const PAGES = 10;

const answer = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`);

/** Every receipt id GET /operations lists (lower-case) and its last page, or undefined when it cannot be walked to its end. */
async function receiptIds(ctx: CheckContext, key: KeyHandle): Promise<{ ids: Set<string>; last: Exchange } | undefined> {
  const all = await allReceiptIds(ctx, key, PAGES);
  return all && { ids: all.ids, last: all.pages.at(-1)! };
}

async function race(ctx: CheckContext, key: KeyHandle, fx: AccountFixture, s: fc.Scheduler): Promise<void> {
  const keyId = key.keyId!;
  const before = await receiptIds(ctx, key);
  if (!before) throw new NotObservable('GET /operations could not be walked to its end, so what a submission left behind cannot be told');
  const order: string[] = [];
  const release = (label: string): Promise<void> => s.schedule(Promise.resolve(label)).then(() => void order.push(label));
  const sent: Exchange[] = [];
  const charged: Exchange[] = [];
  // Late charges of earlier work in the workspace land before this measurement starts.
  await ctx.ledger.quiet();
  const measured = await ctx.ledger.measure(
    async () => {
      let raced: Exchange | undefined;
      const submit = (async () => {
        await release('POST /operations (graph.apply_update)');
        raced = await ctx.api.send({ method: 'POST', path: '/operations', key, body: applyUpdateBody(fx, 'raced'), idempotencyKey: idempotencyKey(ctx) });
      })();
      const take = (async () => {
        await release('graph:write taken from the key');
        await ctx.control.setKeyScopes(
          keyId,
          key.scopes.filter((x) => x !== 'graph:write'),
        );
      })();
      await s.waitAll();
      await Promise.all([submit, take]);
      await ctx.control.setKeyScopes(keyId, key.scopes);
      sent.push(raced!);
      if (is2xx(raced!)) charged.push(raced!);
      else {
        // Given back, the grant is honoured on the next call (GRANT-002).
        const again = await ctx.api.send({ method: 'POST', path: '/operations', key, body: applyUpdateBody(fx, 'after the grant came back'), idempotencyKey: idempotencyKey(ctx) });
        sent.push(again);
        if (is2xx(again)) charged.push(again);
      }
    },
    { priced: () => sent, atLeast: () => charged.length, owes: (ex) => (charged.includes(ex) ? 1 : 0) },
  );
  const scenario = `released in this order, the submission in flight while the grants changed:\n${order.map((l, i) => `${i + 1}. ${l}`).join('\n')}`;
  const [raced, again] = sent as [Exchange, Exchange | undefined];
  const status = raced.response?.status;
  ctx.judged('SCOPE-011');
  if (!is2xx(raced) && status !== 403)
    throw new Finding({
      clause: 'SCOPE-011',
      message: 'a submission in flight while graph:write was taken from its key was neither accepted nor refused with 403',
      expected: '2xx (the grant read before it went) or 403',
      received: answer(raced),
      exchange: raced,
      scenario,
    });
  if (again) {
    ctx.judged('GRANT-002');
    if (!is2xx(again))
      throw new Finding({
        clause: 'GRANT-002',
        message: 'with graph:write given back, the next submission was not accepted',
        expected: '2xx with a receipt',
        received: answer(again),
        exchange: again,
        context: [raced],
        scenario,
      });
  }
  // What is listed now: the accepted receipt (still, after the grant went: GRANT-003), no receipt of the refusal (SCOPE-012).
  const accepted = charged.map(findResourceId).filter((id): id is string => id !== undefined);
  const deadline = Date.now() + waitBound(ctx.run, RECEIPT_BOUND_MS);
  let after = await receiptIds(ctx, key);
  while (after && accepted.some((id) => !after!.ids.has(id.toLowerCase())) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    after = await receiptIds(ctx, key);
  }
  if (!after) throw new NotObservable('GET /operations could not be walked to its end after the submission');
  const fresh = [...after.ids].filter((id) => !before.ids.has(id));
  const missing = accepted.filter((id) => !after.ids.has(id.toLowerCase()));
  const clause = is2xx(raced) ? 'GRANT-003' : 'OPS-014';
  ctx.judged(clause);
  if (missing.length > 0)
    throw new Finding({
      clause,
      message: is2xx(raced)
        ? 'the receipt of a submission accepted before graph:write was taken away is no longer listed'
        : 'the receipt of the submission accepted after the grant came back is not listed',
      expected: `receipts ${brief(accepted)}`,
      received: brief([...after.ids]),
      exchange: after.last,
      context: sent,
      scenario,
    });
  if (!is2xx(raced)) {
    ctx.judged('SCOPE-012');
    if (fresh.length > accepted.length)
      throw new Finding({
        clause: 'SCOPE-012',
        message: `a submission refused for the missing graph:write left a receipt behind (${fresh.length} new receipts for ${accepted.length} accepted submission)`,
        expected: `${accepted.length} new receipt`,
        received: brief(fresh),
        exchange: after.last,
        context: sent,
        scenario,
      });
  }
  // One credit per accepted submission, nothing for the refusal (BILL-001, BILL-006).
  const m = await measured.final();
  // A refusal's own entry charged: BILL-006; any other difference: BILL-001.
  const blame = m.entries.some((e) => e.status >= 400 && e.credits > 0) ? 'BILL-006' : 'BILL-001';
  ctx.judged('BILL-001');
  if (!is2xx(raced)) ctx.judged('BILL-006');
  if (m.delta !== charged.length)
    throw new Finding({
      clause: blame,
      message: `the submissions were charged ${m.delta} credits for ${charged.length} accepted`,
      expected: `${charged.length} credits`,
      received: `${m.delta} credits${m.waited ? ` (${m.waited})` : ''}: ${m.entries.map((e) => `${e.method} ${e.path} ${e.status} (${e.credits})`).join(', ') || `no entries (${m.basis})`}`,
      exchange: sent.at(-1)!,
      context: sent.slice(0, -1),
      scenario,
    });
}

export const scopeDuringSubmission: CheckDef = {
  id: 'sequences/scope-during-submission',
  title:
    'A catalog submission in flight while graph:write is taken from its key (in orders fast-check draws) is accepted or refused with 403; an accepted one stays listed, a refused one leaves nothing and costs nothing, and the grant given back works',
  clauses: ['SCOPE-011', 'SCOPE-012', 'GRANT-002', 'GRANT-003', 'OPS-014', 'BILL-001', 'BILL-006'],
  endpoints: { 'SCOPE-011': ['submitOperation'] },
  needs: { control: true, mutation: true },
  // One accepted submission per run on a conformant target, whatever the order (the module comment).
  credits: RUNS,
  // Both submissions accepted on a target that ignores the change, and two shrinking steps.
  maxCredits: 2 * (RUNS + 2),
  async run(ctx) {
    const key = ctx.key(KEY);
    if (key.keyId === undefined) throw new NotObservable('the key has no control-protocol id, so its grants cannot be changed');
    const fx = await makeAccount(ctx, 'scope-race');
    await checkProperty(ctx, {
      clause: 'SCOPE-011',
      arbitrary: fc.scheduler(),
      numRuns: RUNS,
      maxShrinkCalls: 2,
      predicate: (s) => race(ctx, key, fx, s),
    });
  },
};
