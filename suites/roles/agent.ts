/**
 * graph.agent_preview and graph.agent_run need graph:read, graph:write and research:run and a
 * workspace role of owner, admin or analyst; the admin scope is not required (seed 4.8 and
 * the part 5 table). Rule 4 and 8: the role is read on every call, so a key whose holder was
 * moved to "member" is refused.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { AGENT_SCOPES, memberKey } from '../_shared/access-cast.ts';
import { judgeSweep, type Attempt } from '../_shared/access-judge.ts';
import { establish, previewOf, runOf } from '../_shared/access-shapes.ts';
import { AGENT_CALL_CREDITS, AGENT_CALL_MAX_CREDITS, makeAccount } from '../_shared/ops-fixtures.ts';
import { agentKey } from './cast.ts';

/** Each key role with the three agent scopes and no admin gets its preview. */
export const previewByRole: CheckDef = {
  id: 'roles/agent-preview-by-role',
  title: 'Agent previews succeed for owners, admins and analysts holding graph:read, graph:write and research:run, without admin',
  clauses: ['ROLE-003'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // Three previews (owner, admin, analyst).
  credits: 3 * AGENT_CALL_CREDITS,
  // Fees charged on top.
  maxCredits: 3 * AGENT_CALL_MAX_CREDITS,
  async run(ctx) {
    const fx = await makeAccount(ctx, 'roles-agent');
    const owner = agentKey(ctx, 'owner');
    const established = await establish(owner, [previewOf(ctx, fx.accountId)], 'ROLE-003', 'graph.agent_preview');
    const attempts: Attempt[] = [{ key: owner, expect: 'allow', ex: established.accepted }];
    for (const role of ['admin', 'analyst'] as const) {
      const key = agentKey(ctx, role);
      attempts.push({ key, expect: 'allow', ex: await established.send(key) });
    }
    judgeSweep(ctx, attempts, { row: 'ROLE-003' }, 'POST /operations graph.agent_preview');
  },
};

/**
 * A key made for an analyst whose holder is moved to "member" before the key is first used:
 * its preview and run are refused with 403. The owner establishes both requests first.
 */
export const memberRefused: CheckDef = {
  id: 'roles/agent-refused-for-member',
  title: 'Agent previews and runs are refused with 403 for a key whose holder was moved to the member role',
  clauses: ['ROLE-004', 'ERR-007'],
  endpoints: ['submitOperation'],
  needs: { mutation: true, control: true },
  // The owner's preview and run; the member's are refused (free).
  credits: 2 * AGENT_CALL_CREDITS,
  // Fees charged on top.
  maxCredits: 2 * AGENT_CALL_MAX_CREDITS,
  async run(ctx) {
    const fx = await makeAccount(ctx, 'roles-member');
    const owner = agentKey(ctx, 'owner');
    // An owner refused here is ROLE-003's finding: without clause, establish makes it not observable.
    const preview = await establish(owner, [previewOf(ctx, fx.accountId)], undefined, 'graph.agent_preview');
    const run = await establish(owner, [runOf(ctx, fx)], undefined, 'graph.agent_run');
    const member = await memberKey(ctx, 'moved-to-member', 'member', AGENT_SCOPES);
    const attempts: Attempt[] = [
      { key: member, expect: 'refuse', ex: await preview.send(member) },
      { key: member, expect: 'refuse', ex: await run.send(member) },
    ];
    judgeSweep(ctx, attempts, { row: 'ROLE-004', forbidden: 'ERR-007' }, 'POST /operations graph.agent_preview and graph.agent_run');
  },
};
