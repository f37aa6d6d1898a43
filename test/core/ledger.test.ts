/**
 * The engine's ledger service (src/engine/ledger.ts) against an in-memory usage ledger that can
 * record charges late: a call's price is the entries attributed to it, never the growth of the
 * total around it, so a late charge of an earlier call is not blamed on the next one.
 */
import { describe, expect, test } from 'vitest';
import { LedgerBook, pollUntil, settleReads, type Ledger, type LedgerEntry } from '../../src/engine/ledger.ts';
import type { Evidence } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';

/** A workspace ledger whose charges are recorded `lagMs` after the call's answer. */
function fakeLedger() {
  const entries: LedgerEntry[] = [];
  const ledger: Ledger = {
    charged: async () => entries.reduce((t, e) => t + e.credits, 0),
    entries: async () => entries.map((e) => ({ ...e })),
  };
  const charge = (method: string, path: string, status: number, credits: number, lagMs: number): void => {
    const add = () => entries.push({ seq: entries.length + 1, method, path, status, credits, surface: 'api' });
    if (lagMs === 0) add();
    else setTimeout(add, lagMs);
  };
  return { ledger, charge, entries };
}

let n = 0;
function exchange(method: string, path: string, status: number): Exchange {
  return {
    id: `t-${++n}`,
    request: { method, url: `http://127.0.0.1/api/v1${path}`, headers: {} },
    response: { status, headers: {}, text: '{}', json: {}, isJson: true, bytes: 2, truncated: false },
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1,
    retries: 0,
  };
}

/**
 * A book, its service, and a `send` that logs the call as the session's client does and charges
 * it; the book reads `ledger` (default: the fake's own).
 */
function setup(fake = fakeLedger(), ledger: Ledger = fake.ledger) {
  const book = new LedgerBook({ ledger, run: { patience: 1 } });
  const soft: Evidence[] = [];
  const service = book.service((e) => soft.push(e));
  const send = async (method: string, path: string, status: number, credits: number, lagMs = 0): Promise<Exchange> => {
    const answered = book.sent({ method, path });
    const ex = exchange(method, path, status);
    answered(ex);
    if (credits > 0) fake.charge(method, path, status, credits, lagMs);
    return ex;
  };
  return { fake, book, service, soft, send };
}

describe('expectCharged', () => {
  test("a charge recorded late is still the call's; a wrong price is a finding with the ledger's entries", async () => {
    const { service, send } = setup();
    await service.quiet();
    await expect(service.expectCharged('BILL-001', 1, () => send('POST', '/definitions', 201, 1, 150))).resolves.toMatchObject({ request: { method: 'POST' } });
    await expect(service.expectCharged('BILL-001', 1, () => send('POST', '/definitions', 201, 2))).rejects.toMatchObject({
      evidence: {
        clause: 'BILL-001',
        expected: '1 credit charged',
        message: expect.stringMatching(/^POST \/definitions → 201 was charged 2 by the usage ledger's entries for it, expected 1 credit$/),
      },
    });
  });

  test('a billed call that shows no charge within the wait is a finding naming the wait', async () => {
    const { service, send } = setup();
    await service.quiet();
    await expect(service.expectCharged('BILL-001', 1, () => send('POST', '/definitions', 201, 0))).rejects.toMatchObject({
      evidence: { clause: 'BILL-001', message: expect.stringContaining('waited') },
    });
  }, 60_000);
});

describe('a ledger the suite cannot read', () => {
  test('an entry that is not one, or no entries array, breaks the measurement instead of pricing from what was readable', async () => {
    for (const raw of [
      [{ seq: 1, method: 'POST', path: '/definitions', status: 201, credits: 1, surface: 'api' }, 'Stryker was here'],
      [{ seq: 1, method: 'POST', path: '/x', status: 201 }],
      undefined,
    ]) {
      const ledger: Ledger = { charged: async () => 1, entries: async () => raw as LedgerEntry[] };
      const service = new LedgerBook({ ledger, run: { patience: 1 } }).service(() => undefined);
      await expect(service.quiet(), JSON.stringify(raw)).rejects.toThrow(/usage ledger of the test-control protocol .*(entry without a numeric seq|no entries array)/);
    }
  });
});

describe('expectFree', () => {
  test('the late charge of an earlier billed call is not blamed on the free call after it', async () => {
    const { service, soft, send } = setup();
    await service.quiet();
    // The billed call's charge lands 300 ms after its answer, while the free call is measured.
    const billed = await service.measure(() => send('POST', '/definitions', 201, 1, 300), { atLeast: () => 1, defer: true });
    const free = await service.expectFree('BILL-002', () => send('GET', '/me', 200, 0));
    await service.concludeAll([free]);
    expect(soft).toEqual([]);
    expect((await billed.final()).delta).toBe(1);
  });

  test('a charged refusal is a soft finding on its clause; an unjudged answer is only measured', async () => {
    const { service, soft, send } = setup();
    await service.quiet();
    const refused = await service.expectFree('BILL-006', () => send('POST', '/definitions', 400, 1), { judged: (s) => s >= 400 });
    const ok = await service.expectFree('BILL-006', () => send('GET', '/definitions', 200, 0), { judged: (s) => s >= 400, billed: false });
    expect([refused.judged, ok.judged]).toEqual([true, false]);
    await service.concludeAll([refused, ok]);
    expect(soft).toHaveLength(1);
    expect(soft[0]).toMatchObject({ clause: 'BILL-006', expected: '0 credits charged' });
  });
});

describe('expectFreeEach (a sweep measured together)', () => {
  /** A sweep of 12 refusals (404) of distinct paths; `charged` of them (by index) are charged a credit, `lagMs` late. */
  async function sweep(charged: readonly number[], lagMs = 0) {
    const t = setup();
    await t.service.quiet();
    let sends = 0;
    const calls = Array.from({ length: 12 }, (_, i) => ({
      send: () => (sends++, t.send('GET', `/data/accounts/a${i}`, 404, charged.includes(i) ? 1 : 0, lagMs)),
      judged: (s: number) => s >= 400,
    }));
    const answered: number[] = [];
    const pending = await t.service.expectFreeEach('BILL-006', calls, { n: 4, answered: (_, i) => answered.push(i) });
    await t.service.concludeAll(pending);
    return { ...t, pending, sends, answered };
  }

  test('a clean sweep is concluded from the batch: every call sent once, nothing found', async () => {
    const { soft, pending, sends, answered } = await sweep([]);
    expect(sends).toBe(12);
    expect(answered.sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
    expect(pending.map((p) => p.judged)).toEqual(Array(12).fill(true));
    expect(soft).toEqual([]);
  });

  test('a batch that was charged is sent again one call at a time: the findings and blame of a one-at-a-time sweep', async () => {
    const batched = await sweep([3, 7]);
    expect(batched.sends).toBe(24);
    expect(batched.answered).toHaveLength(24);
    // One at a time, the same calls and charges.
    const t = setup();
    await t.service.quiet();
    const one = [];
    for (let i = 0; i < 12; i++) one.push(await t.service.expectFree('BILL-006', () => t.send('GET', `/data/accounts/a${i}`, 404, [3, 7].includes(i) ? 1 : 0), { judged: (s) => s >= 400 }));
    await t.service.concludeAll(one);
    const found = (soft: Evidence[]) => soft.map((e) => `${e.clause} ${e.message}`);
    expect(found(batched.soft)).toEqual(found(t.soft));
    expect(found(batched.soft)).toEqual([
      "BILL-006 GET /data/accounts/a3 → 404 was charged 1 by the usage ledger's entries for it, expected 0 credits",
      "BILL-006 GET /data/accounts/a7 → 404 was charged 1 by the usage ledger's entries for it, expected 0 credits",
    ]);
  });

  test('on a ledger seen to lag, a late wrong charge inside the free window still sends the sweep again and is found', async () => {
    const t = setup();
    await t.service.quiet();
    // Teach the book the lag: a billed call charged 150 ms late.
    await t.service.expectCharged('BILL-001', 1, () => t.send('POST', '/definitions', 201, 1, 150));
    const calls = Array.from({ length: 6 }, (_, i) => ({ send: () => t.send('GET', `/data/people/p${i}`, 404, i === 5 ? 1 : 0, 150), judged: (s: number) => s >= 400 }));
    await t.service.concludeAll(await t.service.expectFreeEach('BILL-006', calls, { n: 6 }));
    expect(t.soft.map((e) => e.message)).toEqual([expect.stringMatching(/^GET \/data\/people\/p5 → 404 was charged 1/)]);
  });
});

describe('reads of the ledger', () => {
  /** A ledger answering its total and entries together (the control protocol's GET usage), counting each kind of read. */
  function countingLedger(opts: { offBy?: number } = {}) {
    const fake = fakeLedger();
    const reads = { usage: 0, charged: 0, entries: 0 };
    let off = opts.offBy ?? 0;
    const ledger: Ledger = {
      charged: async () => (reads.charged++, fake.ledger.charged()),
      entries: async () => (reads.entries++, fake.ledger.entries()),
      usage: async () => {
        reads.usage++;
        // Once: the total read a moment before a charge landed that the entries already show.
        const charged = (await fake.ledger.charged()) - off;
        off = 0;
        return { charged, entries: await fake.ledger.entries() };
      },
    };
    return { ...setup(fake, ledger), reads };
  }
  const total = (r: { usage: number; charged: number; entries: number }) => r.usage + r.charged + r.entries;

  test('a ledger whose one answer adds up is consistent after that one read; one that does not is read between two equal totals', async () => {
    const one = countingLedger();
    one.fake.charge('POST', '/definitions', 201, 1, 0);
    await one.service.measure(async () => undefined, { defer: true });
    expect(one.reads).toEqual({ usage: 1, charged: 0, entries: 0 });

    const off = countingLedger({ offBy: 1 });
    off.fake.charge('POST', '/definitions', 201, 1, 0);
    await off.service.measure(async () => undefined, { defer: true });
    expect(off.reads).toEqual({ usage: 1, charged: 2, entries: 1 });
    // Either way the measurements that follow price by the entries.
    const m = await off.service.measure(() => off.send('POST', '/definitions', 201, 1), { atLeast: () => 1 });
    expect(m).toMatchObject({ basis: 'entries', delta: 1 });
  });

  test('deferred measurements on a ledger whose every entry was attributed read nothing before their calls, and still price each call', async () => {
    const t = countingLedger();
    await t.service.quiet();
    const before = total(t.reads);
    const ms = [];
    for (let i = 0; i < 5; i++) ms.push(await t.service.measure(() => t.send('POST', `/definitions/d${i}/archive`, 200, i === 3 ? 2 : 1, 50), { atLeast: () => 1, defer: true }));
    expect(total(t.reads)).toBe(before);
    const finals = await Promise.all(ms.map((m) => m.final()));
    expect(finals.map((f) => f.delta)).toEqual([1, 1, 1, 2, 1]);
  });

  test('once an entry no call explains has shown, a deferred measurement reads the ledger before its call again', async () => {
    const t = countingLedger();
    await t.service.quiet();
    // A charge no call of the book explains.
    t.fake.charge('POST', '/somewhere-else', 200, 1, 0);
    await t.service.quiet();
    const before = total(t.reads);
    const m = await t.service.measure(() => t.send('POST', '/definitions', 201, 1), { atLeast: () => 1, defer: true });
    expect(total(t.reads)).toBe(before + 1);
    expect((await m.final()).delta).toBe(1);
  });
});

describe('the settle policy', () => {
  test('pollUntil reads until the predicate holds, or reports that it did not by the deadline', async () => {
    let v = 0;
    await expect(
      pollUntil(
        async () => ++v,
        (x) => x >= 3,
        Date.now() + 5_000,
      ),
    ).resolves.toEqual({ value: 3, held: true });
    const r = await pollUntil(
      async () => 0,
      (x) => x > 0,
      Date.now() + 100,
    );
    expect(r.held).toBe(false);
  });

  test('settleReads returns once two reads agree, and follows a value that is still moving', async () => {
    const values = [1, 2, 3, 3, 3];
    let i = 0;
    await expect(
      settleReads(
        async () => values[Math.min(i++, values.length - 1)]!,
        (a, b) => a === b,
        5_000,
      ),
    ).resolves.toBe(3);
    expect(i).toBe(4);
  });
});
