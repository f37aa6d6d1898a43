/**
 * Grant changes (part 5 rules 7-8), made through the control protocol's audited operator
 * change: the secret keeps working, grants are read on each request, GET /me shows them at
 * once, membership stays, and effects already applied are not undone.
 */
import type { CheckContext, CheckDef, KeyHandle, Scope } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable, type Evidence } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { minimalCreateBody } from '../_shared/definitions.ts';
import { brief, isObject } from '../_shared/json.ts';
import { availableKeys, listAll, ok2xx, provisionKey } from './support.ts';

const shown = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`);

/** GET /me of the key: its holder, role and scopes, or the exchange alone when it was refused. */
async function introspect(ctx: CheckContext, key: KeyHandle): Promise<{ ex: Exchange; me?: { userId: unknown; role: unknown; scopes: string[] | undefined } }> {
  const ex = await ctx.api.send({ method: 'GET', path: '/me', key });
  const body = ex.response?.json;
  if (!ok2xx(ex) || !isObject(body)) return { ex };
  const scopes = Array.isArray(body.scopes) ? body.scopes.map(String).sort() : undefined;
  return { ex, me: { userId: body.userId, role: body.role, scopes } };
}

/**
 * After a grant change: GET /me still answers (GRANT-001), shows exactly `granted` (GRANT-005)
 * and the same holder and role as before (GRANT-004).
 */
async function afterChange(ctx: CheckContext, key: KeyHandle, granted: readonly Scope[], before: { userId: unknown; role: unknown }, step: string): Promise<void> {
  const { ex, me } = await introspect(ctx, key);
  const fail = (e: Omit<Evidence, 'exchange'>) => ctx.softFail({ ...e, exchange: ex });
  ctx.judged('GRANT-001');
  if (!me) {
    fail({ clause: 'GRANT-001', message: `${step}: the same secret no longer works (GET /me)`, expected: '2xx', received: shown(ex) });
    fail({ clause: 'GRANT-005', message: `${step}: GET /me does not show the new grants`, expected: `2xx with scopes ${JSON.stringify(granted)}`, received: shown(ex) });
    fail({ clause: 'GRANT-004', message: `${step}: the key's holder no longer shows as a member`, expected: `userId and role as before (${String(before.role)})`, received: shown(ex) });
    return;
  }
  const want = [...granted].sort();
  ctx.judged('GRANT-005');
  if (JSON.stringify(me.scopes) !== JSON.stringify(want)) {
    fail({ clause: 'GRANT-005', message: `${step}: GET /me does not show the current grants`, expected: JSON.stringify(want), received: JSON.stringify(me.scopes ?? null) });
  }
  ctx.judged('GRANT-004');
  if (me.userId !== before.userId || me.role !== before.role) {
    fail({
      clause: 'GRANT-004',
      message: `${step}: the key holder's membership changed with its grants`,
      expected: JSON.stringify(before),
      received: JSON.stringify({ userId: me.userId, role: me.role }),
    });
  }
}

/** A removed scope is refused on the next call, an added one honoured on the next call; the secret, membership and GET /me follow. */
export const grantChange: CheckDef = {
  id: 'auth/grant-change-takes-effect',
  title: 'After an operator grant change the secret keeps working, grants apply on the next call and GET /me shows them; membership stays',
  clauses: ['GRANT-001', 'GRANT-002', 'GRANT-004', 'GRANT-005'],
  needs: { control: true },
  // Two successful listings with graph:read (before the removal and after the re-grant).
  credits: 2,
  async run(ctx) {
    const key = await provisionKey(ctx, ctx.workspaceId, 'analyst', ['graph:read'], 'regranted_key');
    const start = await introspect(ctx, key);
    // The key is used before the change, so a server that caches grants at first use shows it.
    const listed = await ctx.api.send({ method: 'GET', path: '/definitions', key });
    if (!start.me || !ok2xx(listed)) throw new NotObservable(`a fresh graph:read key could not call GET /me and GET /definitions (${shown(start.me ? listed : start.ex)})`);
    const before = { userId: start.me.userId, role: start.me.role };

    // A key created with exactly the grants the change leaves must be refused the listing;
    // if it is not, the target does not need graph:read there (SCOPE-001's finding) and the
    // removal cannot be seen through this endpoint.
    const baseline = await provisionKey(ctx, ctx.workspaceId, 'analyst', ['research:run'], 'baseline_key');
    const needsScope = !ok2xx(await ctx.api.send({ method: 'GET', path: '/definitions', key: baseline }));

    // Remove graph:read (research:run keeps the key's grants non-empty).
    await ctx.control.setKeyScopes(key.keyId!, ['research:run']);
    const removed = await ctx.api.send({ method: 'GET', path: '/definitions', key });
    // Refused is what GRANT-002 asks; which refusal status is SCOPE-001's and ERR-007's
    // business, and a key that stopped working altogether shows in GET /me just after.
    const status = removed.response?.status;
    if (needsScope) ctx.judged('GRANT-002');
    if (needsScope && status !== 403 && status !== 401) {
      ctx.softFail({
        clause: 'GRANT-002',
        message: 'the next call after graph:read was removed was not refused',
        expected: '403 for the missing graph:read, as for a key created without it',
        received: shown(removed),
        exchange: removed,
      });
    }
    await afterChange(ctx, key, ['research:run'], before, 'after graph:read was removed');

    // Add graph:read again.
    await ctx.control.setKeyScopes(key.keyId!, ['graph:read', 'research:run']);
    const added = await ctx.api.send({ method: 'GET', path: '/definitions', key });
    ctx.judged('GRANT-002');
    if (!ok2xx(added)) {
      ctx.softFail({ clause: 'GRANT-002', message: 'the next call after graph:read was added was not honoured', expected: '2xx', received: shown(added), exchange: added });
    }
    await afterChange(ctx, key, ['graph:read', 'research:run'], before, 'after graph:read was added back');
  },
};

/** A definition created under admin remains after admin is removed (read with a graph:read key). */
export const grantRemovalKeepsEffects: CheckDef = {
  id: 'auth/grant-removal-keeps-effects',
  title: 'Removing a grant does not undo effects already applied',
  clauses: ['GRANT-003'],
  needs: { control: true, mutation: true },
  // The create, one listing page, the clean-up archive.
  credits: 3,
  // A second listing page (a workspace holding more, or a walk ending on an empty page).
  maxCredits: 4,
  async run(ctx) {
    const [reader] = availableKeys(ctx, ['reader']);
    const [owner] = availableKeys(ctx, ['owner']);
    if (!reader || !owner) throw new NotObservable('needs the reader and owner cast keys');
    const key = await provisionKey(ctx, ctx.workspaceId, 'admin', ['admin'], 'admin_removed_key');
    const created = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx) });
    const id = ok2xx(created) && isObject(created.response?.json) ? created.response.json.id : undefined;
    if (typeof id !== 'string') throw new NotObservable(`a fresh admin key could not create a definition (${shown(created)})`);
    // The owner archives it at the end: the creating key will have lost admin by then.
    ctx.cleanup(async () => {
      await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key: owner, body: { reason: 'conformance run clean-up' } });
    });

    await ctx.control.setKeyScopes(key.keyId!, ['graph:read']);
    const seen = await listAll(ctx, reader, '/definitions', { maxPages: 2 });
    if (seen.failed) throw new NotObservable(`the graph:read key could not list definitions (${shown(seen.failed)})`);
    const found = seen.items.find((i) => typeof i.id === 'string' && i.id.toLowerCase() === id.toLowerCase());
    if (!found && !seen.complete) throw new NotObservable('the listing did not end within its page cap; the definition may lie beyond it');
    ctx.judged('GRANT-003');
    if (!found || found.state === 'archived' || found.archived_at) {
      throw new Finding({
        clause: 'GRANT-003',
        message: 'a definition created under admin did not remain (listed, not archived) after admin was removed from its creator',
        expected: `definition ${id} listed and not archived`,
        received: found ? brief({ state: found.state, archived_at: found.archived_at }) : 'not listed',
        exchange: seen.exchanges.at(-1)!,
        context: [created],
      });
    }
  },
};
