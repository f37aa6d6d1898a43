/**
 * A workspace role change takes effect on the very next call (seed part 5 rules 4, 6 and 8):
 * a key's holder is moved through the control protocol between two calls of a role-gated
 * request, in both directions. Each check first sees the gate refuse the starting role; when
 * it does not (another clause's failure), the change cannot be seen through that gate and the
 * check is not observable. Refusals here may be 401 or 403: which status is ERR-007's to judge.
 */
import type { CheckContext, CheckDef, KeyHandle, Role } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { AGENT_SCOPES, memberKey, moveTo } from '../_shared/access-cast.ts';
import { judgeSweep, type Attempt, type Expectation } from '../_shared/access-judge.ts';
import { computeCandidates, establish, previewOf, type Send } from '../_shared/access-shapes.ts';
import { is2xx } from '../_shared/definitions.ts';
import { makeAccount } from '../_shared/ops-fixtures.ts';
import { adminKey, agentKey } from './cast.ts';

const REFUSAL = [401, 403];

/**
 * Starting from `key` (whose holder has the refused role), expects a refusal, then moves the
 * holder to `allowed` (expects 2xx on the next call) and back (expects a refusal again).
 */
async function roundTrip(ctx: CheckContext, key: KeyHandle, send: Send, allowed: Role, what: string): Promise<void> {
  const start = key.role;
  const first = await send(key);
  if (is2xx(first) || !REFUSAL.includes(first.response?.status ?? 0)) {
    throw new NotObservable(`${what}: the gate did not refuse the ${start} role to begin with (${first.response?.status ?? first.error?.kind}), so a role change cannot be seen through it`);
  }
  const attempts: Attempt[] = [];
  let current = start;
  const step = async (role: Role, expect: Expectation): Promise<void> => {
    const moved = await moveTo(ctx, key, role);
    attempts.push({ key: { ...moved, name: `${key.name} (${current} → ${role})` }, expect, ex: await send(moved) });
    current = role;
  };
  await step(allowed, 'allow');
  await step(start, 'refuse');
  judgeSweep(ctx, attempts, { row: 'ROLE-005', refusal: REFUSAL }, what);
}

/** Compute preview: analyst (refused) → admin (let through) → analyst (refused), with one key holding admin. */
export const roleChangeCompute: CheckDef = {
  id: 'roles/role-change-compute',
  title: 'Moving a key holder from analyst to admin and back changes the compute gate on the very next call',
  clauses: ['ROLE-005'],
  needs: { mutation: true, control: true },
  // The owner's and the cast admin's previews, and the one let through after the move.
  credits: 3,
  async run(ctx) {
    const what = 'POST /compute/preview';
    const established = await establish(adminKey(ctx, 'owner'), computeCandidates(ctx, 'preview'), undefined, what);
    // The move goes to admin: the target must let an admin through to begin with (ROLE-002 judges that).
    const admin = adminKey(ctx, 'admin');
    const premise = await established.send(admin);
    if (!is2xx(premise)) throw new NotObservable(`${what}: the cast admin's key holding admin was not let through (${premise.response?.status}), so a move to admin proves nothing`);
    const key = await memberKey(ctx, 'role-changing-admin-scope', 'analyst', ['admin']);
    await roundTrip(ctx, key, established.send, 'admin', what);
  },
};

/** Agent preview: member (refused) → analyst (let through) → member (refused), with one key holding the agent scopes. */
export const roleChangeAgent: CheckDef = {
  id: 'roles/role-change-agent',
  title: 'Moving a key holder from member to analyst and back changes the agent-preview gate on the very next call',
  clauses: ['ROLE-005'],
  needs: { mutation: true, control: true },
  // The owner's preview and the one let through after the move, each with at most a fee of two.
  credits: 6,
  async run(ctx) {
    const what = 'POST /operations graph.agent_preview';
    const fx = await makeAccount(ctx, 'roles-change');
    const established = await establish(agentKey(ctx, 'owner'), [previewOf(ctx, fx.accountId)], undefined, what);
    const key = await memberKey(ctx, 'role-changing-agent-scopes', 'member', AGENT_SCOPES);
    await roundTrip(ctx, key, established.send, 'analyst', what);
  },
};
