/**
 * A broken test-control endpoint against the control client: every behaviour ends in a
 * ControlError (a harness problem, never a target finding) within the timeout, and the
 * control token a broken endpoint quotes back never appears in the error.
 */
import { afterEach, expect, test } from 'vitest';
import { createControlClient, ControlError, type ControlClient } from '../../src/control/client.ts';
import { CONTROL_BEHAVIOURS, startHostile, type HostileTarget } from '../../fixtures/hostile/server.ts';
import { findLeaks } from './helpers/leaks.ts';

const TOKEN = 'wgct_9b8a7f6e5d4c3b2a19080706050403020100ffee';
const TIMEOUT_MS = 300;
/** Scheduling allowance per request on a shared machine (see client.test.ts). */
const SLACK_MS = 400;

let target: HostileTarget | undefined;
let control: ControlClient | undefined;
afterEach(async () => {
  await control?.close();
  await target?.close();
  control = target = undefined;
});

const broken = CONTROL_BEHAVIOURS.filter((b) => b !== 'ok');

test.each(broken)('control %s: provisioning fails with a ControlError within the bound, token not quoted', async (behaviour) => {
  target = await startHostile('control-broken', { controlToken: TOKEN, control: behaviour });
  control = createControlClient({ controlUrl: target.controlUrl!, token: TOKEN, http: { timeoutMs: TIMEOUT_MS } });
  const started = Date.now();
  // wrong-shape answers 201 { ok: true }: the first call "succeeds", the key call cannot.
  const error = await (async () => {
    const ws = await control!.createWorkspace();
    const member = await control!.addMember(ws.workspaceId, 'owner');
    await control!.createKey(ws.workspaceId, member.userId, ['admin']);
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
  const ms = Date.now() - started;
  expect(error).toBeInstanceOf(ControlError);
  expect(ms).toBeLessThan(3 * (TIMEOUT_MS + SLACK_MS));
  if (behaviour === 'silent') expect((error as ControlError).detail).toContain('timeout');
  expect(findLeaks({ error: `${(error as Error).message} ${JSON.stringify(error)}` }, [TOKEN])).toEqual([]);
});

test('control ok: the stub provisions keys that GET /me then answers for', async () => {
  target = await startHostile('silent', { controlToken: TOKEN, meOk: true });
  control = createControlClient({ controlUrl: target.controlUrl!, token: TOKEN, http: { timeoutMs: 1_000 } });
  const { workspaceId } = await control.createWorkspace();
  const { userId } = await control.addMember(workspaceId, 'analyst');
  const { secret } = await control.createKey(workspaceId, userId, ['graph:read']);
  await control.setMemberRole(workspaceId, userId, 'member');
  const res = await fetch(`${target.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
  expect(await res.json()).toMatchObject({ workspaceId, userId, role: 'member', scopes: ['graph:read'] });
  await control.deleteWorkspace(workspaceId);
  expect((await fetch(`${target.baseUrl}/api/v1/me`, { headers: { 'x-api-key': secret } })).status).toBe(401);
});
