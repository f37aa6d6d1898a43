/**
 * Permission rows "live CRM reads" (crm:read, POST /query with each crm.read_partner_* read)
 * and "compute preview and runs" (admin scope, with an owner or admin role: every cast key is
 * an owner, so only the scope decides). Their request shapes are not shown by the seed: the
 * fully permitted key establishes one first, or the row is not observable.
 */
import type { CheckContext, CheckDef, Scope } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { judgeSweep, sweep } from '../_shared/access-judge.ts';
import { catalogFields, computeCandidates, establish, QUERY_OPERATIONS, queryCandidates, type Send } from '../_shared/access-shapes.ts';
import { byScopes, castHolding, catalogScopes, endpointScopes, fullKey, split } from './matrix.ts';

const isNotObservable = (e: unknown): e is NotObservable => e instanceof NotObservable || (e instanceof Error && e.name === 'NotObservable');

/**
 * One row: establish with the full key, then sweep every other key. Returns the reason when
 * the shape could not be established (the caller decides whether anything was observed).
 */
async function row(ctx: CheckContext, required: readonly Scope[], candidates: readonly Send[], clause: string, what: string): Promise<string | undefined> {
  const full = fullKey(ctx);
  const { refused, permitted } = split(ctx, required, what);
  let established;
  try {
    established = await establish(full, candidates, clause, what);
  } catch (e) {
    if (isNotObservable(e)) return e.reason;
    throw e;
  }
  const others = [...refused, ...permitted.filter((k) => k !== full)];
  // A read, or a compute run of its own, per key: they go together.
  const attempts = await sweep(others, byScopes(required), established.send, { together: true });
  judgeSweep(ctx, [{ key: full, expect: 'allow', ex: established.accepted }, ...attempts], { row: clause, forbidden: 'ERR-007' }, what);
  return undefined;
}

/** Not observable only when no row at all could be established. */
function concludeRows(reasons: readonly (string | undefined)[]): void {
  if (reasons.every((r) => r !== undefined)) throw new NotObservable(reasons.join('; '));
}

/** POST /query through each of the three read operations the seed names. */
export const query: CheckDef = {
  id: 'scopes/query',
  title: 'POST /query (each crm.read_partner_* read) is let through with crm:read and refused with 403 without it',
  clauses: ['SCOPE-006', 'ERR-007'],
  endpoints: ['runQuery'],
  credits: QUERY_OPERATIONS.length * castHolding(['crm:read']),
  async run(ctx) {
    const endpoint = await endpointScopes('runQuery');
    const reasons: (string | undefined)[] = [];
    for (const operation of QUERY_OPERATIONS) {
      const required = [...new Set([...endpoint, ...(await catalogScopes(operation))])];
      const fields = await catalogFields(ctx, fullKey(ctx), operation);
      reasons.push(await row(ctx, required, queryCandidates(ctx, operation, fields), 'SCOPE-006', `POST /query ${operation}`));
    }
    concludeRows(reasons);
  },
};

/** POST /compute/preview and POST /compute/runs. */
export const compute: CheckDef = {
  id: 'scopes/compute',
  title: 'POST /compute/preview and POST /compute/runs are refused with 403 without the admin scope, even for an owner',
  clauses: ['SCOPE-009', 'ERR-007'],
  endpoints: ['previewCompute', 'startComputeRun'],
  needs: { mutation: true },
  credits: 2 * castHolding(['admin']),
  async run(ctx) {
    const reasons = [
      await row(ctx, await endpointScopes('previewCompute'), computeCandidates(ctx, 'preview'), 'SCOPE-009', 'POST /compute/preview'),
      await row(ctx, await endpointScopes('startComputeRun'), computeCandidates(ctx, 'runs'), 'SCOPE-009', 'POST /compute/runs'),
    ];
    concludeRows(reasons);
  },
};
