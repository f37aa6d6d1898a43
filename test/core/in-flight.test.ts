/**
 * The run-wide bound on requests in flight (src/http/limit.ts, --max-in-flight) and the helper
 * checks pipeline independent requests with (suites/_shared/parallel.ts): a real loopback server
 * counts what is open at once; results and failures come back in input order.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHttpClient } from '../../src/http/client.ts';
import { currentLimiter, InFlightLimiter, limitTarget, withFlow, withInFlightLimit } from '../../src/http/limit.ts';
import { SecretRegistry } from '../../src/http/redact.ts';
import { inParallel } from '../../suites/_shared/parallel.ts';

let server: Server;
let origin: string;
let open = 0;
let peak = 0;
const release: (() => void)[] = [];

beforeAll(async () => {
  // Holds every request until the test releases it, so "at once" does not depend on timing.
  server = createServer((req, res) => {
    open++;
    peak = Math.max(peak, open);
    release.push(() => {
      open--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** Waits until the server holds `n` requests (or fails after 5 s). */
async function held(n: number): Promise<void> {
  for (let i = 0; i < 500 && release.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  expect(release.length).toBe(n);
}

describe('--max-in-flight', () => {
  test("every client of the run's work shares the bound; the rest wait and are all answered; other work is not bounded", async () => {
    const limiter = limitTarget(origin, 3);
    expect(limitTarget(`${origin}/api/v1`, 3)).toBe(limiter);
    const clients = [1, 2].map(() => createHttpClient({ baseUrl: origin, timeoutMs: 10_000, secrets: new SecretRegistry() }));
    const sent = withInFlightLimit(limiter, () => {
      expect(currentLimiter()).toBe(limiter);
      return Array.from({ length: 10 }, (_, i) => clients[i % 2]!.send({ method: 'GET', path: `/x/${i}`, key: null }));
    });
    expect(currentLimiter()).toBeUndefined();
    await held(3);
    // Nothing beyond the bound reaches the server while the first three are held.
    await new Promise((r) => setTimeout(r, 100));
    expect(release.length).toBe(3);
    for (let answered = 0; answered < 10; answered++) {
      await held(Math.min(10, answered + 3));
      release[answered]!();
    }
    const exchanges = await Promise.all(sent);
    expect(exchanges.map((e) => e.response?.status)).toEqual(Array(10).fill(200));
    expect(peak).toBe(3);
    expect(limiter.peak).toBe(3);
    expect(limiter.inFlight).toBe(0);
    // Outside the run's work (another client of the process) nothing waits for the run's slots.
    const outside = Array.from({ length: 5 }, (_, i) => clients[0]!.send({ method: 'GET', path: `/y/${i}`, key: null }));
    await held(15);
    for (let i = 10; i < 15; i++) release[i]!();
    expect((await Promise.all(outside)).map((e) => e.response?.status)).toEqual(Array(5).fill(200));
    expect(peak).toBe(5);
    for (const c of clients) await c.close();
  });

  test('a limiter refuses a bound below 1', () => {
    expect(() => new InFlightLimiter(0)).toThrow(RangeError);
  });
});

describe('flows', () => {
  /** Runs `label` holding a slot of `limiter` until `open` resolves; notes when it started. */
  const task = (limiter: InFlightLimiter, started: string[], label: string, open: Promise<void>) =>
    limiter.run(async () => {
      started.push(label);
      await open;
    });

  test('waiters of different flows are served in turn, each flow in order of arrival; without flows, in order of arrival', async () => {
    const limiter = new InFlightLimiter(1);
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const [a, b] = [{}, {}];
    const runs = [
      task(limiter, started, 'held', gate),
      // Flow a queues a sweep of three, then flow b one request: b waits for one of a's, not all three.
      ...['a1', 'a2', 'a3'].map((l) => withFlow(a, () => task(limiter, started, l, Promise.resolve()))),
      withFlow(b, () => task(limiter, started, 'b1', Promise.resolve())),
    ];
    release();
    await Promise.all(runs);
    expect(started).toEqual(['held', 'a1', 'b1', 'a2', 'a3']);

    const fifo: string[] = [];
    let let2!: () => void;
    const gate2 = new Promise<void>((r) => (let2 = r));
    const plain = [task(limiter, fifo, 'held', gate2), ...['x1', 'x2', 'y1'].map((l) => task(limiter, fifo, l, Promise.resolve()))];
    let2();
    await Promise.all(plain);
    expect(fifo).toEqual(['held', 'x1', 'x2', 'y1']);
  });
});

describe('inParallel', () => {
  test('keeps input order and never runs more than n at once', async () => {
    let running = 0;
    let most = 0;
    const out = await inParallel([50, 10, 30, 0, 20, 40], 3, async (ms, i) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i * 10;
    });
    expect(out).toEqual([0, 10, 20, 30, 40, 50]);
    expect(most).toBe(3);
  });

  test('throws the first failure in input order, starts nothing after it, finishes everything before it', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = inParallel([0, 1, 2, 3, 4, 5, 6, 7], 3, async (i) => {
      started.push(i);
      // Item 4 fails at once, item 2 later: item 2's error is the one thrown.
      await new Promise((r) => setTimeout(r, i === 2 ? 40 : 5));
      if (i === 2 || i === 4) throw new Error(`item ${i}`);
      finished.push(i);
    });
    await expect(run).rejects.toThrow('item 2');
    expect(Math.max(...started)).toBeLessThan(6);
    expect(finished).toEqual(expect.arrayContaining([0, 1, 3]));
  });
});
