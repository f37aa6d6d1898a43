/**
 * A workspace role change takes effect on the very next call (seed part 5 rules 4, 6 and 8):
 * a key's holder is moved through the control protocol between calls of a role-gated
 * request, in both directions, and each call after a move must get what the new role gets:
 * let through, or refused with 403 (part 7 rule 3). The first call, before any move, is the
 * premise: when the gate does not treat the starting role as the seed says, the change cannot
 * be seen through it and the check is not observable (another check judges that role).
 */
import type { CheckContext, CheckDef, KeyHandle, Role } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { AGENT_SCOPES, memberKey, moveTo } from '../_shared/access-cast.ts';
import { judgeSweep, type Attempt, type Expectation } from '../_shared/access-judge.ts';
import { computeCandidates, establish, previewOf, type Send } from '../_shared/access-shapes.ts';
import { is2xx } from '../_shared/definitions.ts';
import { AGENT_CALL_CREDITS, AGENT_CALL_MAX_CREDITS, makeAccount } from '../_shared/ops-fixtures.ts';
import { adminKey, agentKey } from './cast.ts';

/** A role and what a call made with it gets. */
interface Leg {
  role: Role;
  expect: Expectation;
}

/**
 * Sends once as the key's holder now is (the premise: `start` says what that role gets, a
 * refusal being any of 401 and 403 here), then moves the holder through `legs`, one call each.
 */
async function roundTrip(ctx: CheckContext, key: KeyHandle, send: Send, start: Expectation, legs: readonly Leg[], what: string): Promise<void> {
  const first = await send(key);
  const premise = start === 'allow' ? is2xx(first) : [401, 403].includes(first.response?.status ?? 0);
  if (!premise) {
    throw new NotObservable(
      `${what}: before any move, the ${key.role} role was ${is2xx(first) ? 'let through' : `answered ${first.response?.status ?? first.error?.kind}`}, so a role change cannot be seen through this gate`,
    );
  }
  const attempts: Attempt[] = [];
  let current = key.role;
  for (const leg of legs) {
    const moved = await moveTo(ctx, key, leg.role);
    attempts.push({ key: { ...moved, name: `${key.name} (${current} → ${leg.role})` }, expect: leg.expect, ex: await send(moved) });
    current = leg.role;
  }
  judgeSweep(ctx, attempts, { row: 'ROLE-005' }, what);
}

/** Compute preview with a key holding admin: admin (let through) → analyst (403) → admin (let through). */
export const roleChangeCompute: CheckDef = {
  id: 'roles/role-change-compute',
  title: 'Moving a key holder from admin to analyst and back changes the compute gate on the very next call',
  clauses: ['ROLE-005'],
  endpoints: ['previewCompute'],
  needs: { mutation: true, control: true },
  // The owner's preview establishing the request, and the two let through as admin.
  credits: 3,
  async run(ctx) {
    const what = 'POST /compute/preview';
    const established = await establish(adminKey(ctx, 'owner'), computeCandidates(ctx, 'preview'), undefined, what);
    const key = await memberKey(ctx, 'role-changing-admin-scope', 'admin', ['admin']);
    await roundTrip(
      ctx,
      key,
      established.send,
      'allow',
      [
        { role: 'analyst', expect: 'refuse' },
        { role: 'admin', expect: 'allow' },
      ],
      what,
    );
  },
};

/** Agent preview with a key holding the agent scopes: member (refused) → analyst (let through) → member (403). */
export const roleChangeAgent: CheckDef = {
  id: 'roles/role-change-agent',
  title: 'Moving a key holder from member to analyst and back changes the agent-preview gate on the very next call',
  clauses: ['ROLE-005'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // The owner's preview and the one let through as analyst; the member's are refused (free).
  credits: 2 * AGENT_CALL_CREDITS,
  // Fees charged on top.
  maxCredits: 2 * AGENT_CALL_MAX_CREDITS,
  async run(ctx) {
    const what = 'POST /operations graph.agent_preview';
    const fx = await makeAccount(ctx, 'roles-change');
    const established = await establish(agentKey(ctx, 'owner'), [previewOf(ctx, fx.accountId)], undefined, what);
    // Moved to member before its first use (memberKey): what the key is first seen with is not what it ends with.
    const key = await memberKey(ctx, 'role-changing-agent-scopes', 'member', AGENT_SCOPES);
    await roundTrip(
      ctx,
      key,
      established.send,
      'refuse',
      [
        { role: 'analyst', expect: 'allow' },
        { role: 'member', expect: 'refuse' },
      ],
      what,
    );
  },
};
