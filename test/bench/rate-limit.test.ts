/**
 * A staging target behind a gateway's rate limit: 1,200 API calls a minute (as 100 in any 5 s,
 * so the test waits seconds, not minutes), in front of a served reference. Two suites run with
 * the defaults through it and directly: the verdict, the outcome counts and the credits are the
 * same, nothing is failed or not observable because of a 429, the 429s retried stay within the
 * run's retry budget, the report records the waits, and a progress line says the run waited.
 * No timed assertions: the times are printed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLatencyProxy, type LatencyProxy } from '../../src/bench/latency-proxy.ts';
import { serveReference, type ServedReference } from '../../src/bench/server.ts';
import { DEFAULT_RUN_RETRY, retryBudgetFor } from '../../src/engine/context.ts';
import type { RunResult } from '../../src/report/model.ts';

const WGC = fileURLToPath(new URL('../../bin/wgc.mjs', import.meta.url));
const SUITES = 'errors,idempotency';
const LIMIT = { requests: 100, windowMs: 5_000 };

const dir = mkdtempSync(join(tmpdir(), 'wgc-rate-limit-'));
let ref: ServedReference;
let proxy: LatencyProxy;

beforeAll(async () => {
  ref = await serveReference();
  proxy = await startLatencyProxy(ref.origin, 0, { rateLimit: LIMIT });
}, 180_000);
afterAll(async () => {
  await proxy?.close();
  await ref?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  stderr: string;
  report: RunResult;
  ms: number;
}

/** `wgc run` of the two suites against `origin` (its own process: the proxy answers from this event loop). */
async function run(origin: string, name: string): Promise<Outcome> {
  const out = join(dir, name);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WGC_')) env[k] = v;
  env['WGC_CONTROL_TOKEN'] = ref.controlToken;
  const t0 = Date.now();
  const child = spawn(process.execPath, [WGC, 'run', '--base-url', origin, '--control-url', `${origin}/__control/v1`, '--suite', SUITES, '--seed', '3', '--out', out], {
    cwd: dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 2)));
  return { code, stderr, report: JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunResult, ms: Date.now() - t0 };
}

describe('a target that allows 1,200 API calls a minute', () => {
  test('two suites: same verdict, counts and credits as without the limit; waits recorded and said; retries within the budget', async () => {
    const direct = await run(ref.origin, 'direct');
    const limited = await run(proxy.origin, 'limited');
    console.log(
      `rate-limit.test: direct ${direct.ms} ms (${direct.report.meta.requests} requests); limited ${limited.ms} ms (${limited.report.meta.requests} requests, ` +
        `${proxy.limited} answered 429, pace ${JSON.stringify(limited.report.meta.pace)})`,
    );
    expect(direct.code, direct.stderr).toBe(0);
    expect(proxy.limited, 'the run met the limit (else this test shows nothing)').toBeGreaterThan(0);
    expect(limited.code, limited.stderr).toBe(0);
    expect(limited.report.summary.verdict).toBe(direct.report.summary.verdict);
    expect(limited.report.summary.counts).toEqual(direct.report.summary.counts);
    expect(limited.report.meta.creditsCharged).toBe(direct.report.meta.creditsCharged);
    for (const c of limited.report.checks) {
      expect(c.outcome, `${c.checkId}: ${c.reason ?? ''}`).not.toMatch(/failed|harnessError/);
      expect(c.reason ?? '', c.checkId).not.toMatch(/429|rate limit|TOO_MANY_REQUESTS/i);
    }
    const pace = limited.report.meta.pace!;
    expect(pace.rateLimitWaits).toBeGreaterThanOrEqual(1);
    expect(pace.rateLimitWaitedMs).toBeGreaterThan(0);
    expect(pace.ratePerMinute).toBeGreaterThan(0);
    // Attempts on the wire beyond the direct run's: the retries, but for the round trip's samples
    // (a busy machine takes more of them: src/target/pace.ts) and a second attempt of
    // errors/rate-limit-counts-calls in a new workspace, which it makes when a 429 (here the
    // gateway's) came within its workspace's limit; its counted calls ask to see 429s and are
    // never retried. The budget is the run's: at least the default, more for more in flight.
    const requestsOf = (o: Outcome, id: string): number => o.report.checks.find((c) => c.checkId === id)?.requests ?? 0;
    const secondAttempt = requestsOf(limited, 'errors/rate-limit-counts-calls') - requestsOf(direct, 'errors/rate-limit-counts-calls');
    const samples = (o: Outcome): number => o.report.meta.pace?.roundTripSamples ?? Number.NaN;
    const retries = limited.report.meta.requests - direct.report.meta.requests - secondAttempt - (samples(limited) - samples(direct));
    expect(pace.retryBudget).toBe(retryBudgetFor(pace.maxInFlight));
    expect(pace.retryBudget).toBeGreaterThanOrEqual(DEFAULT_RUN_RETRY.budget);
    expect(retries).toBeGreaterThanOrEqual(0);
    expect(retries, 'retries spent').toBeLessThanOrEqual(pace.retryBudget!);
    expect(pace.retries, 'the retries the report counts are those on the wire').toBe(retries);
    expect(limited.stderr).toMatch(/rate limit: the target answered 429; the run waits [\d.]+ s/);
    expect(direct.report.meta.pace?.rateLimitWaits).toBe(0);
  }, 300_000);
});
