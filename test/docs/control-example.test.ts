/**
 * The minimal test-control adapter of the certification guide
 * (examples/control-protocol/minimal.ts) speaks the protocol the suite speaks: driven by the
 * suite's own control client and provisioning code, every endpoint does what the guide says,
 * and what it sets up is what GET /me then sees. Importing the example here also keeps it
 * under `tsc` (tsconfig.json does not include examples/).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createControlClient, ControlError, type ControlClient } from '../../src/control/client.ts';
import type { SuiteDef } from '../../src/engine/check.ts';
import { provisionSuite } from '../../src/target/provision.ts';
import { startToyTarget, type ToyTarget } from '../../examples/control-protocol/minimal.ts';

let target: ToyTarget;
let control: ControlClient;

beforeAll(async () => {
  target = await startToyTarget();
  control = createControlClient({ controlUrl: target.controlUrl, token: target.token, http: { timeoutMs: 5_000 } });
});
afterAll(async () => {
  await control.close();
  await target.close();
});

/** GET /api/v1/me with a key: the status and the body. */
async function me(secret: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${target.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The status of a failed control call. */
async function statusOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return 200;
  } catch (e) {
    if (e instanceof ControlError) return e.status;
    throw e;
  }
}

describe('the minimal control adapter', () => {
  test('identifies the protocol, and refuses a missing or wrong token with 401 { error }', async () => {
    expect(await control.info()).toEqual({ protocol: 'wg-control', version: 1 });
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const res = await fetch(`${target.controlUrl}/`, { headers });
      expect(res.status).toBe(401);
      expect(typeof ((await res.json()) as { error?: unknown }).error).toBe('string');
    }
  });

  test("the suite's provisioning creates a workspace, members and keys that GET /me sees as given", async () => {
    const suite: SuiteDef = {
      name: 'example',
      title: 'example',
      cast: { owner: { role: 'owner', scopes: ['graph:read', 'admin'] }, member: { role: 'member', scopes: ['graph:read'] } },
      checks: [],
    };
    const provisioned = await provisionSuite(suite, control, 'wgc-test-');
    for (const [name, key] of provisioned.keys) {
      const seen = await me(key.secret);
      expect(seen.status, name).toBe(200);
      expect(seen.body).toMatchObject({ workspaceId: provisioned.workspaceId, userId: key.userId, role: key.role, scopes: [...key.scopes] });
    }
    await provisioned.teardown();
    expect((await me(provisioned.keys.get('owner')!.secret)).status).toBe(401);
  });

  test('key, member and workspace changes take effect on the next API call', async () => {
    const { workspaceId: ws } = await control.createWorkspace(500);
    const { userId } = await control.addMember(ws, 'analyst');
    const { keyId, secret } = await control.createKey(ws, userId, ['graph:read']);
    expect((await me(secret)).status).toBe(200);

    await control.setKeyScopes(keyId, ['graph:read', 'crm:read']);
    expect((await me(secret)).body.scopes).toEqual(['graph:read', 'crm:read']);
    await control.setMemberRole(ws, userId, 'member');
    expect((await me(secret)).body.role).toBe('member');
    expect(await statusOf(control.createKey(ws, userId, []))).toBe(409);

    await control.pauseWorkspace(ws);
    expect((await me(secret)).status).toBe(403);
    await control.resumeWorkspace(ws);
    await control.disableKey(keyId);
    expect((await me(secret)).status).toBe(401);
    await control.enableKey(keyId);
    expect((await me(secret)).status).toBe(200);
    await control.revokeKey(keyId);
    expect((await me(secret)).status).toBe(401);
    expect(await statusOf(control.enableKey(keyId))).toBe(409);

    const other = await control.addMember(ws, 'owner');
    const second = await control.createKey(ws, other.userId, []);
    await control.removeMember(ws, other.userId);
    expect((await me(second.secret)).status).toBe(401);
    await control.deleteWorkspace(ws);
  });

  test('ledger, rate limit, capabilities, accounts and people; unknown ids 404, bad bodies 400', async () => {
    const { workspaceId: ws } = await control.createWorkspace();
    expect(await control.usage(ws)).toEqual({ balance: 1_000_000, charged: 0, entries: [] });
    await control.setRateLimit(ws, 30);
    await control.setRateLimit(ws, null);
    await control.setCapabilities(ws, { crm: false });
    const { userId } = await control.addMember(ws, 'owner');
    const { secret } = await control.createKey(ws, userId, []);
    expect(((await me(secret)).body.capabilities as Record<string, unknown>).crm).toBe(false);
    const { accountId } = await control.createAccount(ws, { name: 'Acme', domain: 'acme.example' });
    const person = await control.createPerson(ws, accountId, { name: 'Ada' });
    expect(Object.keys(person).sort()).toEqual(['accountPersonId', 'personId']);

    expect(await statusOf(control.usage('no-such-workspace'))).toBe(404);
    expect(await statusOf(control.revokeKey('no-such-key'))).toBe(404);
    expect(await statusOf(control.createPerson(ws, 'no-such-account'))).toBe(404);
    expect(await statusOf(control.addMember(ws, 'boss' as never))).toBe(400);
    expect(await statusOf(control.setCapabilities(ws, { teleport: true } as never))).toBe(400);
    await control.deleteWorkspace(ws);
  });
});
