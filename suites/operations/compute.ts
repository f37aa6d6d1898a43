/**
 * Bulk compute (seed 4.9): a run started with POST /compute/runs can be polled at
 * GET /compute/runs/{id}. The run body is not shown: candidates built from the job the seed
 * names are tried with a key that holds the admin scope and the owner role.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { describeBound } from '../../src/engine/waits.ts';
import { is2xx } from '../_shared/definitions.ts';
import { computeRunShapes, statusesOf, tryShapes } from '../_shared/ops-shapes.ts';
import { findResourceId, pollUntil } from '../_shared/receipts.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/** How long a started compute run may take to answer 2xx (the suite's bound; --patience multiplies it). */
const RUN_BOUND_MS = 3_000;

export const computeRunPollable: CheckDef = {
  id: 'operations/compute-run-pollable',
  title: 'A compute run started with POST /compute/runs answers 2xx at GET /compute/runs/{id}',
  clauses: ['OPS-012'],
  needs: { mutation: true },
  credits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-012');
    const computer = ctx.key('computer');
    const tried = await tryShapes(ctx, computer, computeRunShapes());
    if (!tried.accepted) {
      throw new NotObservable(`POST /compute/runs refused every candidate body from an owner's admin key (${statusesOf(tried.attempts)}); the seed does not show the body`);
    }
    const id = findResourceId(tried.accepted);
    if (id === undefined) throw new NotObservable('the started run names no id (id, runId, a wrapper or Location), so it cannot be polled');
    const path = `/compute/runs/${encodeURIComponent(id)}`;
    const polled = await pollUntil(ctx, computer, path, is2xx, RUN_BOUND_MS);
    ctx.judged('OPS-012');
    if (!polled.satisfied) {
      const last = polled.last;
      throw new Finding({
        clause: 'OPS-012',
        message: `the run never answered 2xx at ${path} (${polled.polls.length} polls within ${describeBound(ctx.run, RUN_BOUND_MS)})`,
        expected: '2xx with the run',
        received: last.response ? describeResponse(last.response) : `no response (${last.error?.kind})`,
        exchange: last,
        context: [tried.accepted],
      });
    }
  },
};
