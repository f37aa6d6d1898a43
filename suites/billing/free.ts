/**
 * The free endpoints of seed part 8 billing rule 2: GET /me, GET /capabilities, receipt
 * polling and compute-run polling cost nothing even when they succeed.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { callOf, chargeEvidence } from '../../src/engine/ledger.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { applyUpdateBody, makeAccount, pollReceipt, submitOperation } from '../_shared/ops-fixtures.ts';
import { findResourceId, listedReceiptIds } from '../_shared/receipts.ts';
import { computeRunShapes, statusesOf, tryShapes } from '../_shared/ops-shapes.ts';

/**
 * Measures one successful call of a free endpoint (deferred: `judge` concludes it): a charge is
 * a soft finding on `clause`. A refused call says nothing about the price of a successful one:
 * not observable; nor does a call seen uncharged on a ledger that has recorded charges later
 * than the suite waits.
 */
async function measureFreeSuccess(ctx: CheckContext, clause: string, send: () => Promise<Exchange>): Promise<{ ex: Exchange; judge: () => Promise<void> }> {
  const m = await ctx.ledger.measure(send, { defer: true });
  if (!is2xx(m.result)) throw new NotObservable(`${callOf(m.result)}: only a successful call shows whether the endpoint is free`);
  const judge = async () => {
    const f = await m.final();
    if (f.delta !== 0) ctx.softFail(chargeEvidence(clause, f.result, f, [0]));
    else if (f.doubt) throw new NotObservable(`${callOf(f.result)} showed no charge, but ${f.doubt}`);
    else ctx.judged(clause);
  };
  return { ex: m.result, judge };
}

/** {@link measureFreeSuccess}, concluded at once. */
async function expectFreeSuccess(ctx: CheckContext, clause: string, send: () => Promise<Exchange>): Promise<Exchange> {
  const { ex, judge } = await measureFreeSuccess(ctx, clause, send);
  await judge();
  return ex;
}

export const meFree: CheckDef = {
  id: 'billing/me-free',
  title: 'GET /me costs nothing',
  clauses: ['BILL-002'],
  endpoints: ['getMe'],
  needs: { ledger: true },
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-002');
    await ctx.ledger.quiet();
    await expectFreeSuccess(ctx, 'BILL-002', () => ctx.api.send({ method: 'GET', path: '/me', key: ctx.key('owner') }));
  },
};

export const capabilitiesFree: CheckDef = {
  id: 'billing/capabilities-free',
  title: 'GET /capabilities costs nothing',
  clauses: ['BILL-003'],
  endpoints: ['getCapabilities'],
  needs: { ledger: true },
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-003');
    await ctx.ledger.quiet();
    await expectFreeSuccess(ctx, 'BILL-003', () => ctx.api.send({ method: 'GET', path: '/capabilities', key: ctx.key('owner') }));
  },
};

export const operationsPollingFree: CheckDef = {
  id: 'billing/operations-polling-free',
  title: 'GET /operations and GET /operations/{id} cost nothing',
  clauses: ['BILL-004'],
  endpoints: ['listOperations', 'getOperation'],
  needs: { ledger: true, control: true, mutation: true },
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-004');
    const owner = ctx.key('owner');
    const fx = await makeAccount(ctx, 'bill-poll');
    const base = await ctx.ledger.quiet();
    const submitted = await submitOperation(ctx, owner, applyUpdateBody(fx));
    // Let the submission (and any asynchronous charge of its work) land before measuring.
    if (is2xx(submitted)) await pollReceipt(ctx, owner, submitted, { budgetMs: 1_000 });
    await ctx.ledger.chargesLanded(base, [submitted]);
    const list = await measureFreeSuccess(ctx, 'BILL-004', () => ctx.api.send({ method: 'GET', path: '/operations', key: owner }));
    const id = (is2xx(submitted) ? findResourceId(submitted) : undefined) ?? listedReceiptIds(list.ex)[0];
    if (id === undefined) {
      await list.judge();
      throw new NotObservable('no receipt id was found (submission answered ' + callOf(submitted) + '), so GET /operations/{id} could not be priced');
    }
    const one = await measureFreeSuccess(ctx, 'BILL-004', () => ctx.api.send({ method: 'GET', path: `/operations/${encodeURIComponent(id)}`, key: owner }));
    await list.judge();
    await one.judge();
  },
};

/** Starts a compute run with a candidate body (the seed does not show one); undefined when all are refused. */
async function startComputeRun(ctx: CheckContext, key: KeyHandle): Promise<{ id: string; started: Exchange }> {
  const tried = await tryShapes(ctx, key, computeRunShapes());
  if (!tried.accepted) {
    throw new NotObservable(`POST /compute/runs refused every candidate body from a fully permitted key (${statusesOf(tried.attempts)}); the seed does not show the body`);
  }
  const id = findResourceId(tried.accepted);
  if (id === undefined) throw new NotObservable('the compute run answer names no id (id, runId, a wrapper or Location), so it cannot be polled');
  return { id, started: tried.accepted };
}

export const computePollingFree: CheckDef = {
  id: 'billing/compute-polling-free',
  title: 'GET /compute/runs/{id} costs nothing',
  clauses: ['BILL-005'],
  endpoints: ['getComputeRun'],
  needs: { ledger: true, control: true, mutation: true },
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-005');
    const owner = ctx.key('owner');
    const base = await ctx.ledger.quiet();
    const { id, started } = await startComputeRun(ctx, owner);
    // The run's own credit (refused candidate bodies cost nothing), possibly recorded late.
    await ctx.ledger.chargesLanded(base, [started]);
    const m = await ctx.ledger.measure(() => ctx.api.send({ method: 'GET', path: `/compute/runs/${encodeURIComponent(id)}`, key: owner }));
    if (!is2xx(m.result)) throw new NotObservable(`${callOf(m.result)}: the run could not be polled, so the price of a successful poll is unknown`);
    if (m.delta !== 0) throw new Finding(chargeEvidence('BILL-005', m.result, m, [0], [started]));
    if (m.doubt) throw new NotObservable(`${callOf(m.result)} showed no charge, but ${m.doubt}`);
    ctx.judged('BILL-005');
  },
};
