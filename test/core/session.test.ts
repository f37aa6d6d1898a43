/** Suite sessions against the reference target: outcome mapping, needs, credits, provisioning, redaction. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CheckDef, CheckResult, SuiteDef } from '../../src/engine/check.ts';
import { NOTHING_JUDGED } from '../../src/engine/conclude.ts';
import { expectStatus } from '../../src/engine/expect.ts';
import { Disabled, Finding, NotObservable } from '../../src/engine/finding.ts';
import { openSession } from '../../src/engine/session.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { runContext } from './helpers/run-context.ts';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference();
});
afterAll(async () => {
  await ref?.close();
});

/**
 * A fixture check. Once its `run` completes it counts one judgement of each of its clauses, as a
 * real check does where it compares (src/engine/judged.ts): these tests are about the session,
 * and a clause judged nothing would end not observable (the test of that is below).
 */
const check = (id: string, run: CheckDef['run'], extra: Partial<CheckDef> = {}): CheckDef => {
  const clauses = extra.clauses ?? ['AUTH-001', 'ME-001'];
  return {
    id: `t/${id}`,
    title: id,
    clauses,
    credits: 0,
    ...extra,
    run: async (ctx) => {
      await run(ctx);
      for (const c of clauses) ctx.judged(c);
    },
  };
};

const suiteOf = (checks: CheckDef[]): SuiteDef => ({ name: 't', title: 'test suite', cast: { reader: { role: 'analyst', scopes: ['graph:read'] } }, checks });

async function runAll(checks: CheckDef[], over: Parameters<typeof runContext>[0] extends infer P ? Partial<P> : never = {}): Promise<CheckResult[]> {
  const session = await openSession(suiteOf(checks), runContext({ baseUrl: ref.baseUrl, controlUrl: ref.controlUrl, controlToken: ref.controlToken, ...over }));
  const results: CheckResult[] = [];
  for (const c of checks) results.push(await session.run(c));
  await session.close();
  return results;
}

describe('outcome mapping', () => {
  test('completed → every clause passed; a soft finding fails only its clause', async () => {
    const [clean, soft] = await runAll([
      check('clean', async (ctx) => void (await ctx.api.send({ method: 'GET', path: '/me', key: ctx.key('reader') }))),
      check('soft', async (ctx) => ctx.softFail({ clause: 'ME-001', message: 'beta is a string' })),
    ]);
    expect(clean).toMatchObject({ outcome: 'passed', clauses: { 'AUTH-001': 'passed', 'ME-001': 'passed' }, requests: 1, findings: [] });
    expect(clean!.reason).toBeUndefined();
    expect(soft).toMatchObject({ outcome: 'failed', clauses: { 'AUTH-001': 'passed', 'ME-001': 'failed' } });
    expect(soft!.findings).toEqual([{ clause: 'ME-001', message: 'beta is a string' }]);
  });

  test('a check that completes judging nothing of a clause leaves it not observable, "nothing judged", with the counts in the result', async () => {
    const session = await openSession(suiteOf([]), runContext({ baseUrl: ref.baseUrl, controlUrl: ref.controlUrl, controlToken: ref.controlToken }));
    const half: CheckDef = {
      id: 't/half',
      title: 'judges AUTH-001 twice, ME-001 never',
      clauses: ['AUTH-001', 'ME-001'],
      credits: 0,
      run: async (ctx) => {
        const ex = await ctx.api.send({ method: 'GET', path: '/me', key: ctx.key('reader') });
        expectStatus('AUTH-001', ex, 200);
        ctx.judged('AUTH-001');
      },
    };
    const r = await session.run(half);
    await session.close();
    expect(r).toMatchObject({ clauses: { 'AUTH-001': 'passed', 'ME-001': 'notObservable' }, judged: { 'AUTH-001': 2, 'ME-001': 0 } });
    expect(r.reason).toContain(`ME-001 not judged: ${NOTHING_JUDGED}`);
  });

  test('a Finding fails its clause; the others were not reached', async () => {
    const [r] = await runAll([
      check('finding', async () => {
        throw new Finding({ clause: 'AUTH-001', message: 'bearer refused' });
      }),
    ]);
    expect(r).toMatchObject({ outcome: 'failed', clauses: { 'AUTH-001': 'failed', 'ME-001': 'notObservable' }, reason: 'not reached: the check stopped at AUTH-001' });
  });

  test('NotObservable, Disabled and other throws map to all clauses; a TypeError is a harness error with its stack head', async () => {
    const [no, off, bug, undeclared] = await runAll([
      check('no', async () => {
        throw new NotObservable('needs a second workspace');
      }),
      check('off', async () => {
        throw new Disabled('switched off');
      }),
      check('bug', async () => {
        (undefined as unknown as { x: number }).x;
      }),
      check('undeclared', async () => {
        throw new Finding({ clause: 'BILL-001', message: 'x' });
      }),
    ]);
    expect(no).toMatchObject({ outcome: 'notObservable', clauses: { 'AUTH-001': 'notObservable', 'ME-001': 'notObservable' }, reason: 'needs a second workspace' });
    expect(off).toMatchObject({ outcome: 'disabled', reason: 'switched off' });
    expect(bug!.outcome).toBe('harnessError');
    expect(bug!.clauses).toEqual({ 'AUTH-001': 'harnessError', 'ME-001': 'harnessError' });
    expect(bug!.reason).toMatch(/^TypeError: .*\(at .*session\.test\.ts/);
    expect(undeclared).toMatchObject({ outcome: 'harnessError', reason: 'check t/undeclared reported a finding for clause BILL-001, which it does not name' });
  });

  test('a failing cleanup turns a pass into a harness error but keeps a failure', async () => {
    const boom = async (): Promise<void> => {
      throw new Error('archive failed');
    };
    const [pass, fail] = await runAll([
      check('p', async (ctx) => ctx.cleanup(boom)),
      check('f', async (ctx) => {
        ctx.cleanup(boom);
        throw new Finding({ clause: 'ME-001', message: 'm' });
      }),
    ]);
    expect(pass).toMatchObject({ outcome: 'harnessError' });
    expect(pass!.reason).toMatch(/^cleanup failed: Error: archive failed/);
    expect(fail).toMatchObject({ outcome: 'failed', clauses: { 'ME-001': 'failed' } });
    expect(fail!.reason).toContain('cleanup failed');
  });

  test('nothing secret leaves a session, even when a check writes the key into its finding', async () => {
    let secret = '';
    const [r] = await runAll([
      check('leak', async (ctx) => {
        secret = ctx.key('reader').secret;
        throw new Finding({ clause: 'ME-001', message: `key ${secret} misbehaved`, received: secret });
      }),
    ]);
    expect(secret.length).toBeGreaterThan(8);
    expect(JSON.stringify(r)).not.toContain(secret);
    expect(r!.findings[0]!.message).toBe('key [REDACTED:reader] misbehaved');
  });
});

describe('needs, configuration and provisioning', () => {
  const mutation = check('mut', async () => {}, { needs: { mutation: true } });
  const ledger = check('ledger', async (ctx) => void (await ctx.ledger.charged()), { needs: { ledger: true } });
  const costly = check('costly', async () => {}, { credits: (n) => n * 2 });
  const cheap = check('cheap', async () => {}, { credits: 3 });
  const varying = check('varying', async () => {}, { credits: 1, maxCredits: 4 });

  test('--read-only disables mutations; --max-credits disables what would exceed the plan, by ceiling', async () => {
    const [m, c1, c2, v] = await runAll([mutation, costly, cheap, varying], { readOnly: true, maxCredits: 5, numRuns: 10 });
    expect(m).toMatchObject({ outcome: 'disabled', reason: 'disabled by --read-only: the check sends mutations' });
    expect(c1).toMatchObject({ outcome: 'disabled', reason: 'would exceed --max-credits 5 (may be charged up to 20 credits)', plannedCredits: 20 });
    expect(c2).toMatchObject({ outcome: 'passed', plannedCredits: 3 });
    // 3 of 5 are taken: its exact credit would fit, its ceiling of 4 does not.
    expect(v).toMatchObject({ outcome: 'disabled', reason: 'would exceed --max-credits 5 (may be charged up to 4 credits)', plannedCredits: 1 });
  });

  test('without control, control and ledger needs are not observable and unmatched cast keys say what is needed', async () => {
    const askKey = check('key', async (ctx) => void ctx.key('reader'));
    const [l, k] = await runAll([ledger, askKey], { controlUrl: undefined, controlToken: undefined });
    expect(l).toMatchObject({ outcome: 'notObservable' });
    expect(l!.reason).toMatch(/needs the test-control protocol/);
    expect(k!.reason).toBe(
      'cast "reader" needs a key with exactly scopes [graph:read] held by an analyst; the supplied keys are: no keys were supplied (list them in the target profile under "keys")',
    );
  });

  test('with control, the ledger works in the provisioned workspace', async () => {
    const [l] = await runAll([ledger]);
    expect(l).toMatchObject({ outcome: 'passed', requests: 1 });
  });

  test('credits charged count the workspaces checks create, deleted or left behind', async () => {
    // One billed listing in the suite's workspace, two in a workspace the check deletes, one in one it leaves.
    const spender = check('spender', async (ctx) => {
      await ctx.api.send({ method: 'GET', path: '/definitions', key: ctx.key('reader') });
      for (const keep of [false, true]) {
        const { workspaceId } = await ctx.control.createWorkspace();
        const { userId } = await ctx.control.addMember(workspaceId, 'owner');
        const made = await ctx.control.createKey(workspaceId, userId, ['graph:read']);
        const key = { name: 'elsewhere', secret: made.secret, role: 'owner' as const, scopes: ['graph:read' as const] };
        for (let i = keep ? 1 : 0; i < 2; i++) await ctx.api.send({ method: 'GET', path: '/definitions', key });
        // The kept one is left in the (throw-away) reference: the session reads it at close.
        if (!keep) await ctx.control.deleteWorkspace(workspaceId);
      }
    });
    const session = await openSession(suiteOf([spender]), runContext({ baseUrl: ref.baseUrl, controlUrl: ref.controlUrl, controlToken: ref.controlToken }));
    expect(await session.run(spender)).toMatchObject({ outcome: 'passed' });
    expect(await session.close()).toMatchObject({ creditsCharged: 4 });
  });

  test('a provisioning failure makes every check of the suite a harness error', async () => {
    const results = await runAll([mutation, ledger], { controlToken: 'wrong-token-value' });
    for (const r of results) {
      expect(r.outcome).toBe('harnessError');
      expect(r.reason).toMatch(/provisioning suite "t" \(run prefix wgc-test-\) failed: .*control POST \/workspaces failed: 401/);
      expect(r.reason).not.toContain('wrong-token-value');
    }
  });

  test('a suite not selected by --suite reports its checks disabled and sends nothing', async () => {
    const [r] = await runAll([ledger], { suites: ['other'] });
    expect(r).toMatchObject({ outcome: 'disabled', reason: 'suite not selected (--suite other)', requests: 0 });
  });
});

describe('lanes (SuiteDef.lanes)', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A check that notes when it ran, in which workspace, and with which key. */
  const noting = (seen: Map<string, { ws?: string; secret?: string; start: number; end: number }>, id: string, api: boolean) =>
    check(id, async (ctx) => {
      const start = Date.now();
      if (api) await ctx.api.send({ method: 'GET', path: '/me', key: ctx.key('reader') });
      await sleep(100);
      seen.set(id, { ...(api ? { ws: ctx.workspaceId, secret: ctx.key('reader').secret } : {}), start, end: Date.now() });
    });

  test('with control each lane has a workspace of its own; the lanes run side by side, each in order; closing deletes every workspace', async () => {
    const seen = new Map<string, { ws?: string; secret?: string; start: number; end: number }>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => noting(seen, id, true)) as [CheckDef, CheckDef, CheckDef, CheckDef];
    const suite: SuiteDef = { ...suiteOf([a, b, c, d]), lanes: [[c, d]] };
    const session = await openSession(suite, runContext({ baseUrl: ref.baseUrl, controlUrl: ref.controlUrl, controlToken: ref.controlToken }));
    const results = await Promise.all(suite.checks.map((x) => session.run(x)));
    const summary = await session.close();
    expect(results.map((r) => `${r.checkId} ${r.outcome}`)).toEqual(['t/a passed', 't/b passed', 't/c passed', 't/d passed']);
    const at = (id: string) => seen.get(id)!;
    expect(at('a').ws).toBe(at('b').ws);
    expect(at('c').ws).toBe(at('d').ws);
    expect(at('c').ws).not.toBe(at('a').ws);
    // In order within a lane, side by side across lanes.
    expect(at('b').start).toBeGreaterThanOrEqual(at('a').end);
    expect(at('d').start).toBeGreaterThanOrEqual(at('c').end);
    expect(at('c').start).toBeLessThan(at('a').end);
    // Two workspaces provisioned (each with its one member and key in one call: the reference
    // offers the cast addition), read and deleted, and the four checks' calls.
    expect(summary).toMatchObject({ suite: 't', requests: session.requestCount, creditsCharged: 0 });
    expect(summary.requests).toBe(2 * 3 + 4);
    for (const id of ['a', 'c']) {
      const me = await fetch(`${ref.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${at(id).secret}` } });
      expect(me.status).toBe(401);
    }
  });

  test("a lane's checks start once its own workspace is ready, not once the other lanes' are", async () => {
    // The control protocol through a proxy that holds the second workspace's creation HOLD_MS: the
    // check in the other workspace runs meanwhile.
    const HOLD_MS = 600;
    let creates = 0;
    let heldUntil = 0;
    let heldWorkspace: string | undefined;
    const upstream = new URL(ref.controlUrl);
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          if (req.method === 'POST' && /\/workspaces$/.test(req.url ?? '') && ++creates === 2) {
            await sleep(HOLD_MS);
            heldUntil = Date.now();
          }
          const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
          const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
          const answer = await fetch(`${upstream.origin}${req.url}`, { method: req.method, headers, ...(body ? { body } : {}) });
          const text = Buffer.from(await answer.arrayBuffer());
          if (heldUntil > 0 && heldWorkspace === undefined) heldWorkspace = (JSON.parse(text.toString('utf8')) as { workspaceId: string }).workspaceId;
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(text);
        })();
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const controlUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;
      const seen = new Map<string, { ws?: string; secret?: string; start: number; end: number }>();
      const [a, c] = ['a', 'c'].map((id) => noting(seen, id, true)) as [CheckDef, CheckDef];
      const suite: SuiteDef = { ...suiteOf([a, c]), lanes: [[c]] };
      const session = await openSession(suite, runContext({ baseUrl: ref.baseUrl, controlUrl, controlToken: ref.controlToken }));
      const results = await Promise.all(suite.checks.map((x) => session.run(x)));
      await session.close();
      expect(results.map((r) => `${r.checkId} ${r.outcome}`)).toEqual(['t/a passed', 't/c passed']);
      expect(creates).toBe(2);
      // The check whose workspace came first ran while the other's was still being created; the other after it.
      const [waited, first] = seen.get('a')!.ws === heldWorkspace ? ['a', 'c'] : ['c', 'a'];
      expect(seen.get(waited)!.ws).toBe(heldWorkspace);
      expect(seen.get(first)!.end).toBeLessThanOrEqual(heldUntil);
      expect(seen.get(waited)!.start).toBeGreaterThanOrEqual(heldUntil);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  test('under --check only the lanes holding a selected check are opened; the other checks are disabled without a request', async () => {
    const seen = new Map<string, { ws?: string; secret?: string; start: number; end: number }>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => noting(seen, id, true)) as [CheckDef, CheckDef, CheckDef, CheckDef];
    const suite: SuiteDef = { ...suiteOf([a, b, c, d]), lanes: [[c], [d]] };
    const session = await openSession(suite, runContext({ baseUrl: ref.baseUrl, controlUrl: ref.controlUrl, controlToken: ref.controlToken, checks: ['t/c'] }));
    const results = await Promise.all(suite.checks.map((x) => session.run(x)));
    const summary = await session.close();
    expect(results.map((r) => `${r.checkId} ${r.outcome} ${r.requests}`)).toEqual(['t/a disabled 0', 't/b disabled 0', 't/c passed 1', 't/d disabled 0']);
    // The suite's workspace and c's lane only (each made with its cast in one call), not d's.
    expect(summary.requests).toBe(2 * 3 + 1);
    expect([...seen.keys()]).toEqual(['c']);
  });

  test('without control the lanes are one: every check in the order of checks', async () => {
    const seen = new Map<string, { start: number; end: number }>();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => noting(seen, id, false)) as [CheckDef, CheckDef, CheckDef];
    const suite: SuiteDef = { ...suiteOf([a, b, c]), lanes: [[b]] };
    const session = await openSession(suite, runContext({ baseUrl: ref.baseUrl }));
    const results = await Promise.all(suite.checks.map((x) => session.run(x)));
    await session.close();
    expect(results.map((r) => r.outcome)).toEqual(['passed', 'passed', 'passed']);
    expect(seen.get('b')!.start).toBeGreaterThanOrEqual(seen.get('a')!.end);
    expect(seen.get('c')!.start).toBeGreaterThanOrEqual(seen.get('b')!.end);
  });

  test('a lane naming a check the suite does not list is a harness error at once', async () => {
    const seen = new Map<string, { start: number; end: number }>();
    const [a, b] = ['a', 'b'].map((id) => noting(seen, id, false)) as [CheckDef, CheckDef];
    const suite: SuiteDef = { ...suiteOf([a]), lanes: [[b]] };
    await expect(openSession(suite, runContext({ baseUrl: ref.baseUrl, controlUrl: ref.controlUrl, controlToken: ref.controlToken }))).rejects.toThrow(
      /lanes name checks the suite does not list: t\/b/,
    );
  });
});
