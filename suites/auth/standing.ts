/**
 * The server re-checks a key's standing on every request (part 5 rule 4): a revoked or
 * disabled key, a departed member's key and the keys of a paused workspace lose access on
 * the next call. Each check proves the key worked just before, acts through the control
 * protocol, then sends the very next call, and then every endpoint in both header forms.
 * Then a bystander, the suite's owner key, which the action did not touch, must still work: a
 * server that took the action on every key, member or workspace would pass the rest.
 */
import { SCOPES as EVERY_SCOPE, type CheckContext, type CheckDef, type KeyHandle } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { BILLED_ENDPOINTS, everyEndpoint } from '../_shared/every-endpoint.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';
import { ok2xx, otherWorkspace, provisionKey, softStatus } from './support.ts';

/** The key answers GET /me with 2xx now; otherwise the loss of access cannot be shown. */
async function provenWorking(ctx: CheckContext, key: KeyHandle): Promise<void> {
  const ex = await ctx.api.send({ method: 'GET', path: '/me', key });
  if (!ok2xx(ex)) {
    throw new NotObservable(`a freshly provisioned key did not work before the control action (GET /me: ${ex.response ? describeResponse(ex.response) : ex.error?.kind})`);
  }
}

/**
 * The very next call (GET /me) answers one of `allowed`, and so does every endpoint after it,
 * in both header forms (suites/_shared/every-endpoint.ts): standing is re-checked on every
 * request, so a route that forgets it is a finding. The key holds every scope and an admin
 * role, so a route that let it through would answer 2xx or 404, never a refusal of its own.
 */
async function expectLostAccess(ctx: CheckContext, clause: string, key: KeyHandle, allowed: readonly number[], what: string): Promise<void> {
  const next = await ctx.api.send({ method: 'GET', path: '/me', key, auth: 'bearer' });
  softStatus(ctx, clause, next, allowed, `${what}: the next call (GET /me)`);
  // The later calls are sent together (after the next call) and judged in order.
  const later = (await everyEndpoint(ctx, { readOnly: ctx.run.readOnly })).flatMap((e) => (['x-api-key', 'bearer'] as const).map((auth) => ({ e, auth })));
  const answers = await inParallel(later, CHECK_PARALLEL, ({ e, auth }) => ctx.api.send({ ...e.request, key, auth }));
  for (const [i, { e, auth }] of later.entries()) {
    softStatus(ctx, clause, answers[i]!, [...allowed, ...e.alsoAccepted], `${what}: a later call (${e.label}, ${auth === 'bearer' ? 'Bearer' : 'X-Api-Key'})`);
  }
}

/** The very next call with `key` (GET /me) is accepted with 2xx; otherwise a `clause` finding saying `failure`. */
async function expectAccepted(ctx: CheckContext, clause: string, key: KeyHandle, failure: string): Promise<void> {
  const next = await ctx.api.send({ method: 'GET', path: '/me', key });
  ctx.judged(clause);
  if (!ok2xx(next))
    ctx.softFail({
      clause,
      message: failure,
      expected: '2xx',
      received: next.response ? describeResponse(next.response) : `no response (${next.error?.kind})`,
      exchange: next,
    });
}

/** After standing is restored through the control protocol, the very next call (GET /me) works again (AUTH-016). */
async function expectRestored(ctx: CheckContext, key: KeyHandle, what: string): Promise<void> {
  await expectAccepted(ctx, 'AUTH-016', key, `${what}: the next call (GET /me) did not work again`);
}

/**
 * The suite's owner key, untouched by the control action (another key, member or workspace),
 * is still accepted (AUTH-001) on the next call: the action reached its target only.
 */
async function bystanderWorks(ctx: CheckContext, what: string): Promise<void> {
  let owner: KeyHandle;
  try {
    owner = ctx.key('owner');
  } catch (e) {
    // No owner key to spare: the check's own finding stands without the bystander.
    if (e instanceof NotObservable) return;
    throw e;
  }
  await expectAccepted(ctx, 'AUTH-001', owner, `the suite's owner key, which ${what} did not touch, was not accepted on the next call (GET /me)`);
}

/**
 * Every scope and the admin role: the key would pass every scope and role rule, so its
 * standing is the only reason to refuse it anywhere.
 */
const SCOPES = EVERY_SCOPE;
const ROLE = 'admin';

/**
 * What a check may cost on a target that wrongly lets a dead key through: every billed
 * endpoint in both header forms (a conformant target refuses them all, for free).
 */
const DEAD_KEY_CEILING = 2 * BILLED_ENDPOINTS;

/** A revoked key gets 401 from the next call on. */
export const revokedKey: CheckDef = {
  id: 'auth/revoked-key-rejected',
  title: 'A revoked key is rejected with 401 from the next call on',
  clauses: ['AUTH-007', 'AUTH-001'],
  needs: { control: true },
  endpoints: 'every',
  credits: 0,
  maxCredits: DEAD_KEY_CEILING,
  async run(ctx) {
    const key = await provisionKey(ctx, ctx.workspaceId, ROLE, SCOPES, 'revoked_key');
    await provenWorking(ctx, key);
    await ctx.control.revokeKey(key.keyId!);
    await expectLostAccess(ctx, 'AUTH-007', key, [401], 'revoked key');
    await bystanderWorks(ctx, 'revoking another key');
  },
};

/**
 * A revoked key is revoked for good: after an attempt to enable it (409 in the control protocol),
 * and after disabling it and enabling it again, it is still rejected.
 */
export const revokedStaysRevoked: CheckDef = {
  id: 'auth/revoked-key-not-enabled',
  title: 'A revoked key stays rejected with 401 after an attempt to enable it through the control protocol, also after disabling it first',
  clauses: ['AUTH-016'],
  needs: { control: true },
  endpoints: ['getMe'],
  credits: 0,
  async run(ctx) {
    const key = await provisionKey(ctx, ctx.workspaceId, ROLE, SCOPES, 'revoked_then_enabled_key');
    await provenWorking(ctx, key);
    await ctx.control.revokeKey(key.keyId!);
    const before = await ctx.api.send({ method: 'GET', path: '/me', key });
    // A revoked key let through before any attempt to enable it is AUTH-007's finding.
    if (before.response?.status !== 401)
      throw new NotObservable(`the revoked key was not rejected before the attempt to enable it (GET /me: ${before.response?.status ?? before.error?.kind}): auth/revoked-key-rejected judges that`);
    // Whatever the protocol answers (409 for a revoked key), the key stays rejected.
    await ctx.control.enableKey(key.keyId!).catch(() => undefined);
    const after = await ctx.api.send({ method: 'GET', path: '/me', key });
    ctx.judged('AUTH-016');
    softStatus(ctx, 'AUTH-016', after, [401], 'revoked key after an attempt to enable it: the next call (GET /me)');
    // Disabled, then enabled: revocation is for good, whatever the key's other switches did.
    await ctx.control.disableKey(key.keyId!).catch(() => undefined);
    await ctx.control.enableKey(key.keyId!).catch(() => undefined);
    const later = await ctx.api.send({ method: 'GET', path: '/me', key });
    softStatus(ctx, 'AUTH-016', later, [401], 'revoked key after it was disabled and an attempt to enable it: the next call (GET /me)');
  },
};

/** A disabled key gets 401 from the next call on. */
export const disabledKey: CheckDef = {
  id: 'auth/disabled-key-rejected',
  title: 'A disabled key is rejected with 401 from the next call on',
  clauses: ['AUTH-008', 'AUTH-016', 'AUTH-001'],
  needs: { control: true },
  endpoints: 'every',
  credits: 0,
  maxCredits: DEAD_KEY_CEILING,
  async run(ctx) {
    const key = await provisionKey(ctx, ctx.workspaceId, ROLE, SCOPES, 'disabled_key');
    await provenWorking(ctx, key);
    await ctx.control.disableKey(key.keyId!);
    await expectLostAccess(ctx, 'AUTH-008', key, [401], 'disabled key');
    await bystanderWorks(ctx, 'disabling another key');
    await ctx.control.enableKey(key.keyId!);
    await expectRestored(ctx, key, 'a disabled key enabled again');
  },
};

/** The key of a member who left gets 401 or 403 from the next call on. */
export const departedMember: CheckDef = {
  id: 'auth/departed-member-key-loses-access',
  title: 'The key of a member who left the workspace loses access from the next call on',
  clauses: ['AUTH-009', 'AUTH-001'],
  needs: { control: true },
  endpoints: 'every',
  credits: 0,
  maxCredits: DEAD_KEY_CEILING,
  async run(ctx) {
    const key = await provisionKey(ctx, ctx.workspaceId, ROLE, SCOPES, 'departed_member_key');
    await provenWorking(ctx, key);
    await ctx.control.removeMember(ctx.workspaceId, key.userId!);
    await expectLostAccess(ctx, 'AUTH-009', key, [401, 403], 'key of a departed member');
    await bystanderWorks(ctx, 'removing another member');
  },
};

/**
 * The keys of a workspace the control protocol deleted (its effect: "the workspace and everything
 * in it are gone; its keys answer 401") are keys the server no longer knows: an unknown key,
 * rejected with 401 (AUTH-005), from the next call on and on every endpoint. A server that left
 * them working would keep an offboarded workspace's keys alive.
 */
export const deletedWorkspaceKey: CheckDef = {
  id: 'auth/deleted-workspace-key-rejected',
  title: 'The key of a workspace that was deleted is rejected with 401 from the next call on',
  clauses: ['AUTH-005', 'AUTH-001'],
  needs: { control: true },
  endpoints: 'every',
  credits: 0,
  maxCredits: DEAD_KEY_CEILING,
  async run(ctx) {
    // A workspace of the check's own: deleting the suite's would end its other checks.
    const { workspaceId, key } = await otherWorkspace(ctx, SCOPES);
    await provenWorking(ctx, key);
    await ctx.control.deleteWorkspace(workspaceId);
    await expectLostAccess(ctx, 'AUTH-005', key, [401], 'key of a deleted workspace');
    await bystanderWorks(ctx, 'deleting another workspace');
  },
};

/**
 * How a paused workspace's keys may be refused: the key is valid but access is lost (401 or
 * 403), or the workspace's API access, which is off, is a capability that is not configured
 * (503, whose row in part 7 reads "Capability is not configured").
 */
const PAUSED_REFUSALS = [401, 403, 503] as const;

/** Every key of a paused workspace (a workspace of the check's own) gets 401, 403 or 503 from the next call on. */
export const pausedWorkspace: CheckDef = {
  id: 'auth/paused-workspace-loses-access',
  title: 'Every key of a workspace whose API access is paused loses access from the next call on',
  clauses: ['AUTH-010', 'AUTH-016', 'AUTH-001'],
  needs: { control: true },
  endpoints: 'every',
  credits: 0,
  // Two keys.
  maxCredits: 2 * DEAD_KEY_CEILING,
  async run(ctx) {
    // Never the suite's workspace: pausing it would break the suite's other checks.
    const { workspaceId, key: first } = await otherWorkspace(ctx, SCOPES);
    const second = await provisionKey(ctx, workspaceId, ROLE, SCOPES, 'paused_workspace_key');
    for (const key of [first, second]) await provenWorking(ctx, key);
    await ctx.control.pauseWorkspace(workspaceId);
    for (const key of [first, second]) await expectLostAccess(ctx, 'AUTH-010', key, PAUSED_REFUSALS, `key of a paused workspace (holder ${key.role})`);
    await bystanderWorks(ctx, 'pausing another workspace');
    await ctx.control.resumeWorkspace(workspaceId);
    for (const key of [first, second]) await expectRestored(ctx, key, `key of a resumed workspace (holder ${key.role})`);
  },
};
