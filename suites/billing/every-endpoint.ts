/**
 * Refusals cost nothing on every endpoint (seed part 8 billing rule 2, part 7 rule 2), each
 * endpoint refused in every way the document lets a client provoke there: a key without the
 * scopes it requires (403), an id that names nothing (404), an empty body (400 or 422), a trail
 * read naming no record. The
 * requests are those of suites/_shared/every-endpoint.ts. An answer that is not a refusal is
 * not judged here (other suites own it); a refusal must be free.
 */
import type { CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { BILLED_ENDPOINTS, everyEndpoint, STARTS_WORK } from '../_shared/every-endpoint.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { archiveIfCreated } from '../_shared/ops-fixtures.ts';
import { isRefusal, ownerKeyWith } from './support.ts';
import { WIDE_PARALLEL } from '../_shared/parallel.ts';
import type { FreeCall } from '../../src/engine/ledger.ts';

/** The endpoints some refusal below reaches (the scope, id and body rules of the loop). */
const REFUSED_ENDPOINTS = [
  'listDefinitions',
  'createDefinition',
  'updateDefinition',
  'archiveDefinition',
  'mergeDefinitionValue',
  'submitOperation',
  'getOperation',
  'runQuery',
  'previewCompute',
  'startComputeRun',
  'getComputeRun',
  'getAccount',
  'getPerson',
  'prepareDecisionInputs',
  'readTraces',
];

export const refusalsFreeEveryEndpoint: CheckDef = {
  id: 'billing/refusals-free-every-endpoint',
  title: 'On every endpoint, a refusal for a missing scope (403), an unknown id (404) or an empty body (400 or 422) costs nothing',
  clauses: ['BILL-006'],
  endpoints: REFUSED_ENDPOINTS,
  needs: { ledger: true, control: true, mutation: true },
  // Every request is refused on the reference.
  credits: 0,
  // A target that lets them through charges each billed endpoint up to three times.
  maxCredits: 3 * BILLED_ENDPOINTS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'BILL-006');
    const owner = ctx.key('owner');
    const bare = await ownerKeyWith(ctx, [], 'no_scope');
    ctx.cleanup(() => ctx.control.revokeKey(bare.keyId!));
    const spec = await loadSpec();
    await ctx.ledger.quiet();
    const calls: (FreeCall & { what: string })[] = [];
    for (const e of await everyEndpoint(ctx, { readOnly: ctx.run.readOnly })) {
      const op = spec.operation(e.operationId);
      const attempts: { why: string; key: KeyHandle; body?: unknown; query?: Record<string, string> }[] = [];
      if (op.access.scopes?.length) attempts.push({ why: 'without its scopes', key: bare });
      if (op.path.includes('{')) attempts.push({ why: 'with an id that names nothing', key: owner });
      if (op.requestBodySchema && !STARTS_WORK.includes(op.operationId)) attempts.push({ why: 'with an empty body', key: owner, body: {} });
      // A trail read that names no record (its query left out).
      if (op.operationId === 'readTraces') attempts.push({ why: 'naming no record', key: owner, query: {} });
      for (const a of attempts) {
        const req = { ...e.request, key: a.key, ...(a.body !== undefined ? { body: a.body } : {}), ...(a.query !== undefined ? { query: a.query } : {}) };
        calls.push({ send: () => ctx.api.send(req), judged: isRefusal, billed: e.billed, what: `${e.label} ${a.why}` });
      }
    }
    // Measured together (one at a time again if anything was charged).
    const pending = await ctx.ledger.expectFreeEach('BILL-006', calls, { n: WIDE_PARALLEL, answered: (ex) => archiveIfCreated(ctx, owner, ex) });
    const seen = calls.filter((_, i) => pending[i]!.judged).map((c) => c.what);
    await ctx.ledger.concludeAll(pending);
    if (seen.length === 0) throw new NotObservable('the target refused none of the calls meant to be refused, so no refusal could be priced');
  },
};
