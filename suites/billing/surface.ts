/**
 * Usage is recorded under the API surface, named by what ran (seed part 8 billing rule 6): the
 * ledger entries of four calls of four endpoints (a create, a listing page, an archive and a
 * catalog submission) carry surfaces, and no two are the same.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { callOf, type Measured } from '../../src/engine/ledger.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { applyUpdateBody, makeAccount, submitOperation } from '../_shared/ops-fixtures.ts';
import { inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';

export const usageSurface: CheckDef = {
  id: 'billing/usage-surface',
  title: 'The ledger records calls of different endpoints under different, non-empty surfaces',
  clauses: ['BILL-014'],
  endpoints: ['createDefinition', 'listDefinitions', 'archiveDefinition', 'submitOperation'],
  needs: { ledger: true, mutation: true },
  // A create, a listing page, the archive of the created definition and a graph.apply_update.
  credits: 4,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-014');
    const owner = ctx.key('owner');
    await ctx.ledger.quiet();
    const measured: Measured<Exchange>[] = [];
    const measure = async (send: () => Promise<Exchange>) => {
      const m = await ctx.ledger.measure(send, { atLeast: (ex) => (is2xx(ex) ? 1 : 0), defer: true });
      measured.push(m);
      return m.result;
    };
    const created = await measure(() => ctx.api.send({ method: 'POST', path: '/definitions', key: owner, body: minimalCreateBody(ctx) }));
    const id = is2xx(created) && isObject(created.response?.json) && typeof created.response.json.id === 'string' ? created.response.json.id : undefined;
    if (id === undefined) throw new NotObservable(`the create was refused (${callOf(created)}), so three endpoints could not be charged`);
    await measure(() => ctx.api.send({ method: 'GET', path: '/definitions', key: owner, query: { limit: 1 } }));
    await measure(() => ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key: owner, body: { reason: 'conformance check' } }));
    // A catalog submission: an explicit edit, which incurs no cost beyond its credit (BILL-001's reading).
    const fx = await makeAccount(ctx, 'billing-surface');
    await measure(() => submitOperation(ctx, owner, applyUpdateBody(fx, 'surface check')));
    const seen: { call: string; surface: unknown; ex: Exchange }[] = [];
    // Concluded side by side, read in order.
    for (const f of await inParallel(measured, WIDE_PARALLEL, (m) => m.final())) {
      if (f.basis !== 'entries') throw new NotObservable("the ledger's entries do not add up to its total, so they cannot be told apart by call");
      const [entry] = f.entries;
      if (!entry) throw new NotObservable(`${callOf(f.result)} showed no ledger entry (its price is BILL-001's), so its surface cannot be read`);
      seen.push({ call: callOf(f.result), surface: entry.surface, ex: f.result });
    }
    for (const s of seen) {
      ctx.judged('BILL-014');
      if (typeof s.surface === 'string' && s.surface.trim() !== '') continue;
      ctx.softFail({
        clause: 'BILL-014',
        message: `the ledger entry of ${s.call} has no surface`,
        expected: 'a non-empty surface naming what ran',
        received: JSON.stringify(s.surface),
        exchange: s.ex,
      });
    }
    for (const [i, a] of seen.entries()) {
      const b = seen.slice(i + 1).find((x) => typeof x.surface === 'string' && x.surface !== '' && x.surface === a.surface);
      ctx.judged('BILL-014');
      if (!b) continue;
      ctx.softFail({
        clause: 'BILL-014',
        message: `the ledger records ${a.call} and ${b.call} under the same surface ${JSON.stringify(a.surface)}`,
        expected: 'a surface naming what ran, different for different endpoints',
        received: String(a.surface),
        exchange: b.ex,
        context: [a.ex],
      });
    }
  },
};
