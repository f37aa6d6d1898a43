/**
 * The pace of a run: the start chosen from the round trip (src/target/pace.ts) and its adapting
 * to the target's answers (src/http/limit.ts): a retried 429 holds every request for its
 * Retry-After once, halves what may be in flight and spaces requests at the rate the target let
 * through; answers raise it again. Timing-free where it can be: the limiter takes a clock.
 */
import { describe, expect, test } from 'vitest';
import { InFlightLimiter } from '../../src/http/limit.ts';
import { choosePace, describePace, eventLoopMeter, measureRoundTrip, NEAR_MS, ROUND_TRIP_TRIES, type ThreadMeter } from '../../src/target/pace.ts';
import type { ApiClient } from '../../src/http/api.ts';
import type { Exchange } from '../../src/http/exchange.ts';

describe('choosePace', () => {
  test('loopback and unknown round trips keep the near defaults: 2 suites, 8 in flight', () => {
    for (const rtt of [null, 0.3, 4.9]) {
      const p = choosePace(rtt, 9);
      expect([p.concurrency, p.maxInFlight, p.slowMs]).toEqual([2, 8, undefined]);
      expect(p.chosen).toEqual({ concurrency: 'measured', maxInFlight: 'measured' });
    }
  });

  test('a far target runs every suite side by side, in flight twice the round trip in ms, within 16..128', () => {
    expect(choosePace(6, 9)).toMatchObject({ concurrency: 9, maxInFlight: 16 });
    expect(choosePace(25, 9)).toMatchObject({ concurrency: 9, maxInFlight: 50 });
    expect(choosePace(50, 9)).toMatchObject({ concurrency: 9, maxInFlight: 100 });
    expect(choosePace(200, 9)).toMatchObject({ concurrency: 9, maxInFlight: 128 });
    expect(choosePace(50, 1).concurrency).toBe(2);
    expect(choosePace(50, 9).slowMs).toBeGreaterThanOrEqual(5_000);
  });

  test('what the user set is kept, and said to be set', () => {
    const p = choosePace(50, 9, { concurrency: 3, maxInFlight: 5 });
    expect([p.concurrency, p.maxInFlight]).toEqual([3, 5]);
    expect(p.chosen).toEqual({ concurrency: 'set', maxInFlight: 'set' });
    expect(describePace(p)).toMatch(/3 suites side by side \(set\), up to 5 requests in flight \(set\)/);
    expect(describePace(choosePace(50, 9))).toMatch(/round trip 50\.0 ms; 9 suites side by side \(from the round trip\)/);
  });
});

/**
 * Samples of a target `ms` away, the i-th answered while this thread was busy for `busy[i]` ms
 * (what a run had just loaded settling, a garbage collection): that sample reports the hold on
 * top of the distance, and the thread meter says the thread was busy that long. Declared, not
 * timed: what the test sees does not depend on how busy the machine is.
 */
function sampled(ms: number, busy: number[]): { api: ApiClient; meter: ThreadMeter; sent: () => number } {
  let i = 0;
  let held = 0;
  const api: ApiClient = {
    async send() {
      held = busy[i++] ?? 0;
      return { response: { status: 401 }, durationMs: ms + held } as unknown as Exchange;
    },
  };
  const meter: ThreadMeter = { mark: () => undefined, busySince: () => held };
  return { api, meter, sent: () => i };
}

describe('measureRoundTrip', () => {
  test('a sample taken while the thread was busy is taken again: a loopback target whose first samples were held reads as near', async () => {
    const { api, meter, sent } = sampled(1, [60, 60]);
    expect(await measureRoundTrip(api, meter)).toBe(1);
    expect(sent()).toBe(3);
    expect(1).toBeLessThan(NEAR_MS);
  });

  test('a far target: one clean sample far enough decides; one near enough decides; else two clean samples, the quickest', async () => {
    const far = sampled(70, []);
    expect(await measureRoundTrip(far.api, far.meter)).toBe(70);
    expect(far.sent()).toBe(1);
    const mid = sampled(30, [0, 1]);
    expect(await measureRoundTrip(mid.api, mid.meter)).toBe(30);
    expect(mid.sent()).toBe(2);
  });

  test('the tries are bounded: when no sample is clean, the quickest of those taken stands', async () => {
    const held = sampled(1, Array(ROUND_TRIP_TRIES + 2).fill(40));
    expect(await measureRoundTrip(held.api, held.meter)).toBe(41);
    expect(held.sent()).toBe(ROUND_TRIP_TRIES);
  });

  test('no answer: not measured', async () => {
    const api: ApiClient = { send: async () => ({ durationMs: 5 }) as unknown as Exchange };
    expect(await measureRoundTrip(api)).toBeNull();
  });

  test('the event loop meter counts the time the thread was kept busy', () => {
    const mark = eventLoopMeter.mark();
    // The same clock as the meter's (Date.now() counts whole milliseconds, so its 30 may be 29.1).
    const started = performance.now();
    while (performance.now() - started < 30) {
      /* busy */
    }
    expect(eventLoopMeter.busySince(mark)).toBeGreaterThanOrEqual(30);
  });
});

/** A limiter on a clock the test moves; `starts` records when each request got its slot. */
function clocked(max: number) {
  let now = 1_000_000;
  let timers: { at: number; fn: () => void }[] = [];
  const limiter = new InFlightLimiter(max, {
    now: () => now,
    setTimeout: (fn, ms) => {
      const t = { at: now + ms, fn };
      timers.push(t);
      return t;
    },
    clearTimeout: (h) => (timers = timers.filter((t) => t !== h)),
  });
  const starts: number[] = [];
  const lines: string[] = [];
  limiter.onEvent = (l) => lines.push(l);
  /** Starts a request that holds its slot until the returned function is called. */
  const hold = (): { started: Promise<void>; done: () => void } => {
    let release!: () => void;
    let started!: () => void;
    const s = new Promise<void>((r) => (started = r));
    void limiter.run(async () => {
      starts.push(now);
      started();
      await new Promise<void>((r) => (release = r));
    });
    return { started: s, done: () => void s.then(() => release()) };
  };
  return {
    limiter,
    starts,
    lines,
    hold,
    /** Moves the clock and fires the timers that came due. */
    advance: (ms: number) => {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fn();
    },
    get now() {
      return now;
    },
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('InFlightLimiter adapting to the answers', () => {
  test('a retried 429 halves what may be in flight, once for all the 429s of one episode', () => {
    const c = clocked(8);
    for (let i = 0; i < 40; i++) c.limiter.answered({ status: 200, durationMs: 5 });
    c.limiter.answered({ status: 429, durationMs: 5, retryWaitMs: 2_000 });
    c.limiter.answered({ status: 429, durationMs: 5, retryWaitMs: 2_000 });
    c.limiter.answered({ status: 429, durationMs: 5, retryWaitMs: 2_000 });
    expect(c.limiter.allowedInFlight).toBe(4);
    expect(c.limiter.waits.count).toBe(1);
    expect(c.limiter.waits.totalMs).toBe(2_000);
    expect(c.lines).toHaveLength(1);
    expect(c.lines[0]).toMatch(/rate limit: the target answered 429; the run waits 2\.0 s/);
  });

  test('a 429 the client does not retry (a check provoking it) and a missing answer change nothing', () => {
    const c = clocked(8);
    c.limiter.answered({ status: 429, durationMs: 5 });
    c.limiter.answered({ status: undefined, durationMs: 10_000 });
    expect(c.limiter.allowedInFlight).toBe(8);
    expect(c.limiter.waits.count).toBe(0);
  });

  test('no request starts during the wait; they start, spaced at 90 % of the admitted rate, after it', async () => {
    const c = clocked(8);
    // 100 requests admitted over 5 s, then a 429 asking for 5 s: 100 in 10 s, 10/s; 90 %: one each 111 ms.
    c.hold().done();
    await tick();
    for (let i = 0; i < 100; i++) c.limiter.answered({ status: 200, durationMs: 5 });
    c.advance(5_000);
    c.limiter.answered({ status: 429, durationMs: 5, retryWaitMs: 5_000 });
    expect(c.limiter.waits.perMinute).toBe(540);
    const before = c.starts.length;
    const a = c.hold();
    const b = c.hold();
    await tick();
    expect(c.starts.length, 'nothing starts while the gate is closed').toBe(before);
    c.advance(5_000);
    // The limiter wakes itself with a timer; the clock has moved past the gate.
    await a.started;
    expect(c.starts.length).toBe(before + 1);
    await tick();
    expect(c.starts.length, 'the next waits for the spacing').toBe(before + 1);
    c.advance(112);
    await b.started;
    expect(c.starts.at(-1)! - c.starts.at(-2)!).toBeGreaterThanOrEqual(111);
    a.done();
    b.done();
  });

  test('answers raise what may be in flight again, one per round of answers, up to the bound', () => {
    const c = clocked(8);
    c.limiter.answered({ status: 429, durationMs: 5, retryWaitMs: 1_000 });
    expect(c.limiter.allowedInFlight).toBe(4);
    for (let i = 0; i < 4; i++) c.limiter.answered({ status: 200, durationMs: 5 });
    expect(c.limiter.allowedInFlight).toBe(5);
    for (let i = 0; i < 200; i++) c.limiter.answered({ status: 200, durationMs: 5 });
    expect(c.limiter.allowedInFlight).toBe(8);
  });

  test('a slow answer halves what may be in flight, at most once per slowMs', () => {
    const c = clocked(16);
    c.limiter.slowMs = 1_000;
    c.limiter.answered({ status: 200, durationMs: 1_500 });
    c.limiter.answered({ status: 200, durationMs: 1_500 });
    expect(c.limiter.allowedInFlight).toBe(8);
    c.advance(1_000);
    c.limiter.answered({ status: 200, durationMs: 1_500 });
    expect(c.limiter.allowedInFlight).toBe(4);
  });

  test('the bound holds while waiting: never more in flight than allowed', async () => {
    const c = clocked(2);
    const held = [c.hold(), c.hold(), c.hold()];
    await tick();
    expect(c.limiter.inFlight).toBe(2);
    held[0]!.done();
    await held[2]!.started;
    expect(c.limiter.peak).toBe(2);
    held[1]!.done();
    held[2]!.done();
  });
});
