/**
 * always-429 against the client: every Retry-After variant ends, waits are bounded by
 * maxWaitMs each and by the budget in total, and a Retry-After the client will not honour
 * (a day, a date years ahead) returns the 429 at once instead of sleeping.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createHttpClient, RetryBudget, SecretRegistry, type HttpClient, type Retry429Options } from '../../src/http/index.ts';
import { DEFAULT_RETRY_WAIT_MS } from '../../src/http/retry.ts';
import { startHostile, type HostileTarget, type RetryAfterVariant } from '../../fixtures/hostile/server.ts';

const TIMEOUT_MS = 300;
/** Scheduling allowance per request on a shared machine (see client.test.ts). */
const SLACK_MS = 400;

let target: HostileTarget | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await target?.close();
  client = target = undefined;
});

async function limited(retryAfter: RetryAfterVariant | 'mixed', retry: Partial<Retry429Options>, sleep?: (ms: number) => Promise<void>): Promise<HttpClient> {
  target = await startHostile('always-429', { settings: { retryAfter } });
  client = createHttpClient({ baseUrl: target.baseUrl, timeoutMs: TIMEOUT_MS, secrets: new SecretRegistry(), retry429: retry, ...(sleep ? { sleep } : {}) });
  return client;
}

const me = { method: 'GET', path: '/me', key: null } as const;

describe('Retry-After values that must not be honoured return the 429 at once', () => {
  test.each(['day', 'far-date'] as const)('%s', async (variant) => {
    const waits: number[] = [];
    const c = await limited(variant, { maxRetries: 5, maxWaitMs: 5_000, budget: 100 }, async (ms) => void waits.push(ms));
    const started = Date.now();
    const ex = await c.send(me);
    expect(ex.response?.status).toBe(429);
    expect(ex.retries).toBe(0);
    expect(waits).toEqual([]);
    expect(c.requestCount).toBe(1);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });
});

describe('honoured waits are bounded per retry, per exchange and per run', () => {
  test.each([
    ['none', DEFAULT_RETRY_WAIT_MS],
    ['garbage', DEFAULT_RETRY_WAIT_MS],
    ['zero', 0],
  ] as const)('%s: waits %i ms, at most maxRetries times', async (variant, wait) => {
    const waits: number[] = [];
    const c = await limited(variant, { maxRetries: 3, maxWaitMs: 5_000, budget: 100 }, async (ms) => void waits.push(ms));
    const ex = await c.send(me);
    expect(ex.response?.status).toBe(429);
    expect(ex.retries).toBe(3);
    expect(waits).toEqual([wait, wait, wait]);
    expect(c.requestCount).toBe(4);
  });

  test('the run-wide budget is shared: once spent, every 429 is returned without a retry', async () => {
    const waits: number[] = [];
    const budget = new RetryBudget(5);
    const c = await limited('none', { maxRetries: 2, maxWaitMs: 5_000, budget }, async (ms) => void waits.push(ms));
    const retries: number[] = [];
    for (let i = 0; i < 6; i++) retries.push((await c.send(me)).retries);
    expect(retries).toEqual([2, 2, 1, 0, 0, 0]);
    expect(budget.left).toBe(0);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5 * DEFAULT_RETRY_WAIT_MS);
  });

  test('in real time: a run of sends ends within budget × maxWait + sends × attempts × (timeout + slack)', async () => {
    const retry = { maxRetries: 2, maxWaitMs: 100, budget: 4 };
    const sends = 3;
    const c = await limited('none', retry);
    const started = Date.now();
    for (let i = 0; i < sends; i++) expect((await c.send(me)).response?.status).toBe(429);
    const bound = retry.budget * retry.maxWaitMs + sends * (retry.maxRetries + 1) * (TIMEOUT_MS + SLACK_MS);
    expect(Date.now() - started).toBeLessThan(bound);
    expect(c.requestCount).toBe(sends + retry.budget);
  });

  test('mixed Retry-After values: nothing waits past maxWaitMs', async () => {
    const waits: number[] = [];
    const c = await limited('mixed', { maxRetries: 2, maxWaitMs: 2_000, budget: 50 }, async (ms) => void waits.push(ms));
    for (let i = 0; i < 10; i++) expect((await c.send(me)).response?.status).toBe(429);
    expect(waits.length).toBeGreaterThan(0);
    expect(Math.max(...waits)).toBeLessThanOrEqual(2_000);
  });
});
