/** Property checks: failures carry seed, path, counterexample and scenario, and replay. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { CheckContext } from '../../src/engine/check.ts';
import { Disabled, Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkProperty, checkPropertyTrial } from '../../src/engine/property.ts';

/** checkProperty only reads ctx.run. */
function ctxWith(seed: number, numRuns = 50): CheckContext {
  return { run: { seed, numRuns, prefix: 'p-', readOnly: false, hasControl: false, sharedWorkspace: true } } as unknown as CheckContext;
}

async function findingOf(p: Promise<void>): Promise<Finding> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Finding) return e;
    throw e;
  }
  throw new Error('expected a Finding');
}

describe('checkProperty', () => {
  const arbitrary = fc.integer({ min: 0, max: 1000 }).map((n) => ({ scenario: 'limit above maximum', path: '/limit', n }));

  test('a failure carries the seed, path, shrunk counterexample and scenario', async () => {
    const f = await findingOf(checkProperty(ctxWith(777), { clause: 'PAGE-001', arbitrary, predicate: async (v) => v.n < 100, maxShrinkCalls: 1000 }));
    expect(f.evidence).toMatchObject({ clause: 'PAGE-001', seed: 777, scenario: 'limit above maximum at /limit', counterexample: '{"scenario":"limit above maximum","path":"/limit","n":100}' });
    expect(f.evidence.path).toMatch(/^\d+(:\d+)*$/);
  });

  test('a Finding thrown by the predicate keeps its evidence and gains the replay data', async () => {
    const f = await findingOf(
      checkProperty(ctxWith(5), {
        clause: 'PAGE-001',
        arbitrary,
        predicate: async (v) => {
          if (v.n >= 10) throw new Finding({ clause: 'PAGE-002', message: `limit ${v.n} accepted`, expected: '400' });
        },
      }),
    );
    expect(f.evidence).toMatchObject({ clause: 'PAGE-002', expected: '400', seed: 5 });
    expect(f.evidence.message).toMatch(/^limit \d+ accepted$/);
  });

  test('the same seed gives the same counterexample, and the path replays it directly', async () => {
    const opts = { clause: 'X-001', arbitrary: fc.array(fc.integer()), predicate: async (a: number[]) => a.reduce((s, x) => s + x, 0) < 50, maxShrinkCalls: 1000 };
    const a = await findingOf(checkProperty(ctxWith(42), opts));
    const b = await findingOf(checkProperty(ctxWith(42), opts));
    expect(b.evidence).toEqual(a.evidence);
    let calls = 0;
    const replay = await findingOf(checkProperty(ctxWith(42), { ...opts, path: a.evidence.path!, predicate: async (arr) => (calls++, opts.predicate(arr)) }));
    expect(replay.evidence.counterexample).toBe(a.evidence.counterexample);
    expect(calls).toBeLessThan(5);
  });

  test('shrinking is bounded in predicate calls (each may send requests)', async () => {
    let calls = 0;
    let firstFailure = -1;
    await findingOf(
      checkProperty(ctxWith(9, 100), {
        clause: 'X-001',
        arbitrary: fc.array(fc.integer(), { minLength: 20 }),
        maxShrinkCalls: 5,
        predicate: async () => {
          calls++;
          if (firstFailure < 0) firstFailure = calls;
          return false;
        },
      }),
    );
    expect(calls).toBe(firstFailure + 5);
  });

  test('a shared shrink allowance (shrinkPool) bounds the shrinking of every property drawing on it together', async () => {
    const pool = { left: 7 };
    const calls = [0, 0];
    const firsts = [-1, -1];
    const one = (i: number) =>
      findingOf(
        checkProperty(ctxWith(9 + i, 100), {
          clause: 'X-001',
          arbitrary: fc.array(fc.integer(), { minLength: 20 }),
          maxShrinkCalls: 5,
          shrinkPool: pool,
          predicate: async () => {
            calls[i]!++;
            if (firsts[i]! < 0) firsts[i] = calls[i]!;
            return false;
          },
        }),
      );
    const [a, b] = [await one(0), await one(1)];
    // The first takes its own 5; the second only the 2 the pool still holds, and says so.
    expect(calls[0]! - firsts[0]!).toBe(5);
    expect(calls[1]! - firsts[1]!).toBe(2);
    expect(pool.left).toBe(0);
    expect(a.evidence.shrunk).toMatchObject({ calls: 5, minimal: false });
    expect(b.evidence.shrunk).toMatchObject({ calls: 2, minimal: false });
  });

  test('shrinking is bounded in time too: past maxShrinkMs from the first failure no candidate is tried, and the counterexample is marked not minimal', async () => {
    let calls = 0;
    const slow = 40;
    const f = await findingOf(
      checkProperty(ctxWith(9, 100), {
        clause: 'X-001',
        arbitrary: fc.array(fc.integer(), { minLength: 20 }),
        maxShrinkCalls: 1000,
        maxShrinkMs: 200,
        predicate: async () => {
          calls++;
          await new Promise((resolve) => setTimeout(resolve, slow));
          return false;
        },
      }),
    );
    expect(calls).toBeGreaterThan(1);
    expect(f.evidence.shrunk).toMatchObject({ minimal: false });
    // Without the time budget the same property shrinks to the end (a minimal counterexample).
    const whole = await findingOf(checkProperty(ctxWith(9, 100), { clause: 'X-001', arbitrary: fc.array(fc.integer(), { minLength: 20 }), maxShrinkCalls: 1000, predicate: async () => false }));
    expect(whole.evidence.shrunk).toMatchObject({ minimal: true });
  });

  test('past the shrink budget no further candidate is even built, and the counterexample is the one the budget reached', async () => {
    // Every candidate fast-check builds goes through this map; a failure on a big array has a
    // shrink tree of thousands of candidates.
    const run = async (maxShrinkCalls: number) => {
      let built = 0;
      let calls = 0;
      const f = await findingOf(
        checkProperty(ctxWith(9, 100), {
          clause: 'X-001',
          arbitrary: fc.array(fc.integer(), { minLength: 200, maxLength: 200 }).map((a) => (built++, a)),
          maxShrinkCalls,
          predicate: async (a) => (calls++, a.length < 3),
        }),
      );
      return { built, calls, counterexample: f.evidence.counterexample };
    };
    const small = await run(5);
    expect(small.calls).toBe(1 + 5);
    // The first failure, 5 shrink candidates and at most one built past the budget per shrink level.
    expect(small.built).toBeLessThan(1 + 5 + 10);
    // The same budget reached the same counterexample as before the cut-off existed: a larger
    // budget shrinks further.
    const larger = await run(40);
    expect(larger.calls).toBe(1 + 40);
    expect(larger.counterexample!.length).toBeLessThan(small.counterexample!.length);
  });

  test('NotObservable and harness errors stop at once and are rethrown, not shrunk', async () => {
    let calls = 0;
    const p = checkProperty(ctxWith(3), {
      clause: 'X-001',
      arbitrary,
      predicate: async () => {
        calls++;
        throw new NotObservable('no key');
      },
    });
    await expect(p).rejects.toBeInstanceOf(NotObservable);
    expect(calls).toBe(1);
    await expect(
      checkProperty(ctxWith(3), {
        clause: 'X-001',
        arbitrary,
        predicate: async () => {
          throw new TypeError('bug');
        },
      }),
    ).rejects.toThrow(TypeError);
  });

  test('a finding about a request that got no answer stops at once: no shrinking over timeouts', async () => {
    let calls = 0;
    const timedOut = {
      id: 'x-1',
      request: { method: 'GET', url: 'http://127.0.0.1:1/api/v1/definitions', headers: {} },
      error: { kind: 'timeout' as const, message: 'no answer within 500 ms' },
      startedAt: new Date(0).toISOString(),
      durationMs: 500,
      retries: 0,
    };
    const f = await findingOf(
      checkProperty(ctxWith(11), {
        clause: 'PAGE-002',
        arbitrary,
        predicate: async () => {
          calls++;
          throw new Finding({ clause: 'PAGE-002', message: 'no usable response: timeout', exchange: timedOut });
        },
      }),
    );
    expect(calls).toBe(1);
    expect(f.evidence).toMatchObject({ clause: 'PAGE-002', seed: 11 });
    expect(f.evidence.counterexample).toContain('limit above maximum');
  });

  test('a holding property resolves after numRuns runs', async () => {
    let calls = 0;
    await checkProperty(ctxWith(1, 17), { clause: 'X-001', arbitrary, predicate: async () => void calls++ });
    expect(calls).toBe(17);
  });
});

describe('checkPropertyTrial (cases side by side, one at a time where needed)', () => {
  const arbitrary = fc.integer({ min: 0, max: 1000 }).map((n) => ({ scenario: 'limit above maximum', path: '/limit', n }));

  test('every case passes the trial: each drawn value runs once, n at a time, and the results come back in order', async () => {
    const drawn: number[] = [];
    await checkProperty(ctxWith(42, 20), { clause: 'PAGE-001', arbitrary, predicate: async (v) => void drawn.push(v.n) });
    let inFlight = 0;
    let peak = 0;
    const trialRuns: number[] = [];
    const out = await checkPropertyTrial(
      ctxWith(42, 20),
      { clause: 'PAGE-001', arbitrary, predicate: async () => expect.unreachable('no case runs one at a time') },
      {
        n: 4,
        run: async (v) => {
          trialRuns.push(v.n);
          peak = Math.max(peak, ++inFlight);
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
          return v.n * 2;
        },
      },
    );
    expect(out).toEqual(drawn.map((n) => n * 2));
    expect(trialRuns.sort((a, b) => a - b)).toEqual([...drawn].sort((a, b) => a - b));
    expect(peak).toBe(4);
  });

  test('a case that fails the trial sets it aside: the property runs one case at a time and its finding is checkProperty’s', async () => {
    const opts = { clause: 'PAGE-001', arbitrary, predicate: async (v: { n: number }) => v.n < 100, maxShrinkCalls: 1000 };
    const alone = await findingOf(checkProperty(ctxWith(777), opts));
    let sequential = 0;
    const trialled = await findingOf(checkPropertyTrial(ctxWith(777), { ...opts, predicate: async (v) => (sequential++, v.n < 100) }, { n: 8, run: async (v) => v.n < 100 }).then(() => undefined));
    expect(sequential).toBeGreaterThan(0);
    expect(trialled.evidence).toEqual(alone.evidence);
  });

  test('a stop during the trial (Disabled) ends the check at once', async () => {
    await expect(
      checkPropertyTrial(
        ctxWith(1, 10),
        { clause: 'PAGE-001', arbitrary, predicate: async () => expect.unreachable('not run one at a time after a stop') },
        {
          n: 2,
          run: async () => {
            throw new Disabled('stopped: --max-duration 1 s while the check ran');
          },
        },
      ),
    ).rejects.toBeInstanceOf(Disabled);
  });
});
