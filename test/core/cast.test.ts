/** Cast matching without control: role and exact/superset scopes; unmatched reasons carry no secrets. */
import { describe, expect, test } from 'vitest';
import { matchCast } from '../../src/target/cast.ts';
import type { IntrospectedKey } from '../../src/target/introspect.ts';
import { createControlClient } from '../../src/control/client.ts';
import { runSuitesInProcess } from '../../src/engine/run.ts';
import { startReference } from '../../src/reference/index.ts';
import { suite as example } from './fixtures/suites/example/index.ts';
import { runContext } from './helpers/run-context.ts';

const supplied = [
  { name: 'owner-admin', secret: 'wg_secret_owner_admin' },
  { name: 'analyst-admin', secret: 'wg_secret_analyst_admin' },
  { name: 'analyst-wide', secret: 'wg_secret_analyst_wide' },
  { name: 'broken', secret: 'wg_secret_broken' },
];
const introspected: IntrospectedKey[] = [
  { name: 'owner-admin', ok: true, role: 'owner', scopes: ['admin'], workspaceId: 'w1', userId: 'u1' },
  { name: 'analyst-admin', ok: true, role: 'analyst', scopes: ['admin'], workspaceId: 'w1', userId: 'u2' },
  { name: 'analyst-wide', ok: true, role: 'analyst', scopes: ['graph:read', 'graph:write', 'research:run'], workspaceId: 'w1', userId: 'u3' },
  { name: 'broken', ok: false, problem: 'GET /me answered 401' },
];

describe('matchCast', () => {
  test('role must be allowed and scopes equal (exact, the default)', () => {
    const m = matchCast(
      {
        ownerAdmin: { role: ['owner', 'admin'], scopes: ['admin'] },
        analystAdmin: { role: 'analyst', scopes: ['admin'] },
        reader: { role: 'analyst', scopes: ['graph:read'] },
      },
      supplied,
      introspected,
    );
    expect(m.keys.get('ownerAdmin')).toMatchObject({ name: 'ownerAdmin', secret: 'wg_secret_owner_admin', role: 'owner', workspaceId: 'w1', userId: 'u1' });
    expect(m.keys.get('analystAdmin')?.secret).toBe('wg_secret_analyst_admin');
    // analyst-wide holds graph:read but more too: not an exact match.
    expect(m.keys.has('reader')).toBe(false);
    const why = m.unmatched.get('reader')!;
    expect(why).toBe(
      'needs a key with exactly scopes [graph:read] held by an analyst; the supplied keys are: owner-admin (owner, [admin]); analyst-admin (analyst, [admin]); analyst-wide (analyst, [graph:read, graph:write, research:run]); broken (GET /me answered 401)',
    );
    expect(why).not.toMatch(/wg_secret/);
  });

  test('exact: false accepts a superset and prefers the smallest one', () => {
    const m = matchCast(
      { reader: { role: ['analyst', 'owner'], scopes: ['graph:read'], exact: false }, admin: { role: ['owner', 'analyst'], scopes: ['admin'], exact: false } },
      supplied,
      introspected,
    );
    expect(m.keys.get('reader')?.secret).toBe('wg_secret_analyst_wide');
    expect(m.keys.get('admin')?.secret).toBe('wg_secret_owner_admin');
  });
});

test('without control, supplied keys are introspected once and fill the cast end to end', async () => {
  const ref = await startReference();
  const control = createControlClient({ controlUrl: ref.controlUrl, token: ref.controlToken, http: { timeoutMs: 5000 } });
  try {
    // The operator's side: a workspace and two keys, one of which fits the example cast.
    const { workspaceId } = await control.createWorkspace();
    const analyst = await control.addMember(workspaceId, 'analyst');
    const reader = await control.createKey(workspaceId, analyst.userId, ['graph:read']);
    const wide = await control.createKey(workspaceId, analyst.userId, ['graph:read', 'admin']);
    const run = runContext({
      baseUrl: ref.baseUrl,
      keys: [
        { name: 'wide', secret: wide.secret },
        { name: 'mine', secret: reader.secret },
      ],
    });
    const out = await runSuitesInProcess([example], run, { concurrency: 1 });
    const byId = Object.fromEntries(out.results.map((r) => [r.checkId, r]));
    expect(byId['example/me-beta-boolean']).toMatchObject({ outcome: 'passed' });
    expect(byId['example/both-auth-forms']).toMatchObject({ outcome: 'passed' });
    expect(byId['example/list-costs-one']).toMatchObject({ outcome: 'notObservable' });
    expect(JSON.stringify(out)).not.toContain(reader.secret);
    // Two GET /me (introspection, once per run) + 1 + 1 + 4 checks' requests.
    expect(out.requests).toBe(2 + 1 + 1 + 4);
  } finally {
    await control.close();
    await ref.close();
  }
});
