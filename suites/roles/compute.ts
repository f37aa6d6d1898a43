/**
 * Compute preview and runs need the admin scope AND an owner or admin workspace role (seed
 * 4.9 and the part 5 table; rule 6: an admin-scoped key does not make its holder an
 * administrator). Compute bodies are not shown: an owner with admin establishes one first;
 * when none is accepted the clauses are not observable.
 */
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { judgeSweep, type Attempt } from '../_shared/access-judge.ts';
import { computeCandidates, establish, type Established } from '../_shared/access-shapes.ts';
import { adminKey } from './cast.ts';

const isNotObservable = (e: unknown): e is NotObservable => e instanceof NotObservable || (e instanceof Error && e.name === 'NotObservable');
const ENDPOINTS = [
  { which: 'preview', what: 'POST /compute/preview' },
  { which: 'runs', what: 'POST /compute/runs' },
] as const;

/**
 * Establishes each compute endpoint with the owner's admin key and hands it to `judge`.
 * Endpoints that cannot be established are skipped; none established: not observable.
 */
async function perEndpoint(ctx: CheckContext, ownerClause: string | undefined, judge: (e: Established, what: string) => Promise<void>): Promise<void> {
  const owner = adminKey(ctx, 'owner');
  const reasons: string[] = [];
  for (const { which, what } of ENDPOINTS) {
    let established: Established;
    try {
      established = await establish(owner, computeCandidates(ctx, which), ownerClause, what);
    } catch (e) {
      if (!isNotObservable(e)) throw e;
      reasons.push(e.reason);
      continue;
    }
    await judge(established, what);
  }
  if (reasons.length === ENDPOINTS.length) throw new NotObservable(reasons.join('; '));
}

/** An analyst's key holding admin is refused with 403. */
export const computeRefusesAnalyst: CheckDef = {
  id: 'roles/compute-refuses-analyst-with-admin',
  title: "Compute preview and runs are refused with 403 for an analyst's key even though it holds admin",
  clauses: ['ROLE-001', 'ERR-007'],
  endpoints: ['previewCompute', 'startComputeRun'],
  needs: { mutation: true },
  // The owner's accepted preview and run.
  credits: 2,
  async run(ctx) {
    const analyst = adminKey(ctx, 'analyst');
    // An owner refused here is ROLE-002's finding (compute-allows-owner-and-admin), not this one's.
    await perEndpoint(ctx, undefined, async (e, what) => {
      const attempt: Attempt = { key: analyst, expect: 'refuse', ex: await e.send(analyst) };
      judgeSweep(ctx, [attempt], { row: 'ROLE-001', forbidden: 'ERR-007' }, what);
    });
  },
};

/** Owners' and admins' keys holding admin are let through. */
export const computeAllowsOwnerAndAdmin: CheckDef = {
  id: 'roles/compute-allows-owner-and-admin',
  title: 'Compute preview and runs succeed for the keys of an owner and of an admin that hold admin',
  clauses: ['ROLE-002'],
  endpoints: ['previewCompute', 'startComputeRun'],
  needs: { mutation: true },
  // The owner's and the admin's preview and run.
  credits: 4,
  async run(ctx) {
    const admin = adminKey(ctx, 'admin');
    await perEndpoint(ctx, 'ROLE-002', async (e, what) => {
      const attempts: Attempt[] = [
        { key: adminKey(ctx, 'owner'), expect: 'allow', ex: e.accepted },
        { key: admin, expect: 'allow', ex: await e.send(admin) },
      ];
      judgeSweep(ctx, attempts, { row: 'ROLE-002' }, what);
    });
  },
};
