/**
 * `wgc run` end to end against every hostile mode (fixtures/hostile): each run ends by itself
 * within the bound of helpers/bound.ts, exits 1 or 2 with report.json saying what happened,
 * never crashes, keeps memory bounded by the size cap, never sends a key to another origin
 * and writes no form of any secret. One mode (echo-key) runs the whole suite set to prove
 * the global bound. Runs are child processes, a few at a time (helpers/run-wgc.ts).
 */
import { retryBudgetFor } from '../../src/engine/context.ts';
import { afterAll, describe, expect, test } from 'vitest';
import { startHostile, type HostileMode, type HostileOptions, type HostileTarget } from '../../fixtures/hostile/server.ts';
import { runBound, type BoundInputs } from './helpers/bound.ts';
import { CALIBRATION_MODE, MODE_CASES, type ModeCase } from './helpers/cases.ts';
import { killAll, limiter, runWgc, type WgcRun, type WgcRunOutcome } from './helpers/run-wgc.ts';
import { expectCalmRun, mb } from './helpers/verdict.ts';

/**
 * Per-request timeout of the small-suite runs (--timeout). It bounds the control calls too,
 * which the same loaded machine answers, several at once since a suite's lanes provision and
 * tear down their workspaces side by side: 600 ms let some of them time out under load.
 */
const TIMEOUT_MS = 1_500;
/**
 * --timeout of the every-suite runs. Their targets answer at once, so the timeout only
 * scales the bound; it is larger because their many control calls are answered by a stub
 * that shares a loaded machine (and this process) with every other target.
 */
const FULL_TIMEOUT_MS = 2_000;
/** Runs at once: each is a wgc process with its vitest worker threads, on a 2-core machine. */
const PARALLEL = 4;
/** The small suite most modes run (one key, eleven checks, every request a mutation or a read). */
const SMALL = ['idempotency'];
/**
 * --max-response-bytes of every run: 1 MiB, so that the memory bound (16 × cap + 48 MiB) sits
 * far below what the streaming modes send (200 MB, 4 GiB). The default 8 MiB cap is covered
 * by client.test.ts and by report.json's size bound.
 */
const CAP = 1024 * 1024;
/** Page cap of suites/_shared/paging.ts, the largest a walk uses: a walk sends at most this many requests. */
const PAGE_CAP = 100;
/** Retry budget of one suite session (DEFAULT_RUN_RETRY.budget, src/engine/context.ts). */
const SESSION_RETRY_BUDGET = 20;
/** vitest's limit for one test: runs queue behind each other, so it covers the queue too. */
const TEST_MS = 900_000;
/** No run may outlive its test: the kill switch stays below the test's limit. */
const KILL_CEILING_MS = TEST_MS - 60_000;

const TOKEN = 'wgct_9d1f0e2c3b4a59687706f5e4d3c2b1a0ffeeddcc';
const OWNER = `wgk_${'5eed'.repeat(10)}`;
const ALL_SCOPES = ['admin', 'graph:read', 'graph:write', 'research:run', 'crm:read', 'crm:write'];

const slot = limiter(PARALLEL);
afterAll(killAll);

interface Calibration {
  ms: number;
  /** API requests of the calibration run: each failed at once; the same checks would wait on each. */
  requests: number;
  peakRss: number;
  timeoutMs: number;
}

type RunSpec = Omit<WgcRun, 'baseUrl' | 'controlUrl' | 'timeoutMs' | 'killAfterMs'> & { timeoutMs?: number; killAfterMs?: number };

/**
 * True when the run could not provision (or delete) its workspace because the test's own control
 * endpoint answered too late: on a loaded machine (npm test beside a benchmark), never because of the
 * hostile API mode, whose control side is well-behaved.
 */
function controlTooSlow(out: WgcRunOutcome, meOk: boolean): boolean {
  // Every harness error a control call of the stub's answered too late or with the connection
  // reset by the stub (the bodies a mode streams from this same loaded process: once under npm
  // test beside a benchmark, huge-body): provisioning (a suite's lanes provision workspaces of
  // their own: the checks of a lane provisioned in time still meet the hostile mode and are
  // judged: the workspace, its members and keys), or a check's own control call (a member, a key,
  // a capability switched: the every-suite run beside a benchmark, 31 checks at once).
  const broken = (out.report?.checks ?? []).filter((c) => c.outcome === 'harnessError');
  const provisioning = broken.length > 0 && broken.every((c) => /control (GET|POST|PUT|PATCH|DELETE) \/\S* failed: (timeout|connection: ECONNRESET)/.test(c.reason ?? ''));
  // Or the workspace's deletion at teardown, the same control endpoint too late.
  const runErrors = out.report?.meta.runErrors ?? [];
  const teardown = runErrors.length > 0 && runErrors.every((e) => /control DELETE \/workspaces\/[^ ]+ failed: timeout/.test(e));
  // Or the preflight's look at the control protocol (GET /), too late in the same way.
  const preflight = runErrors.length > 0 && runErrors.every((e) => /control GET \/ failed: timeout/.test(e));
  // Or, where the mode answers GET /me well, the preflight's GET /me too late: the machine, not the mode.
  const me = meOk && runErrors.length > 0 && runErrors.every((e) => /^preflight: the API cannot be reached: GET \S+\/me got no answer \(timeout/.test(e));
  return provisioning || teardown || preflight || me;
}

/**
 * Runs of a mode when the machine was too busy to provision (controlTooSlow): the first and up
 * to two more. On the 2-core host the stub answered a run's provisioning late in 2 to 4 of this
 * file's 28 runs (2026-11-29: three runs of the file beside a benchmark, and npm test), each time
 * in time on the second run; a third keeps one more such coincidence from failing the test.
 */
const RUNS_WHEN_TOO_BUSY = 3;

/** Starts a target, runs wgc against it within a slot, closes the target; again when the machine was too busy to provision (controlTooSlow). */
async function hostileRun(mode: HostileMode, opts: HostileOptions, run: RunSpec): Promise<{ out: WgcRunOutcome; target: HostileTarget }> {
  let done = await hostileRunOnce(mode, opts, run);
  for (let n = 1; n < RUNS_WHEN_TOO_BUSY && controlTooSlow(done.out, opts.meOk !== false); n++) {
    console.log(`[hostile] ${mode}: the control endpoint answered provisioning too late (a loaded machine); running once more`);
    done = await hostileRunOnce(mode, opts, run);
  }
  return done;
}

async function hostileRunOnce(mode: HostileMode, opts: HostileOptions, run: RunSpec): Promise<{ out: WgcRunOutcome; target: HostileTarget }> {
  return slot(async () => {
    const target = await startHostile(mode, { meOk: true, ...opts });
    try {
      const where = { baseUrl: target.baseUrl, ...(target.controlUrl ? { controlUrl: target.controlUrl } : {}) };
      const extra = ['--max-response-bytes', String(CAP), ...(run.extra ?? [])];
      return { out: await runWgc({ ...where, timeoutMs: TIMEOUT_MS, killAfterMs: KILL_CEILING_MS, ...run, extra }), target };
    } finally {
      await target.close();
    }
  });
}

const withControl = { controlToken: TOKEN } as const;

/** Calls `fn` once, on first use, and shares its promise. */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

/** The same command against `reset`: what a run costs when no request waits. */
function calibrate(suites: readonly string[], concurrency: number, timeoutMs: number): Promise<Calibration> {
  return hostileRun(CALIBRATION_MODE, withControl, { ...withControl, suites, concurrency, timeoutMs }).then(({ out, target }) => {
    expect(out.killed, 'the calibration run did not end').toBe(false);
    expect([1, 2]).toContain(out.exitCode);
    return { ms: out.ms, requests: target.stats.modeRequests, peakRss: out.peakRss, timeoutMs };
  });
}
const small = once(() => calibrate(SMALL, 1, TIMEOUT_MS));
const full = once(() => calibrate([], 2, FULL_TIMEOUT_MS));

/** The bound before the run (for the kill switch) from the calibration; `requests` defaults to its count. */
function bound(cal: Calibration, extra: Partial<BoundInputs> = {}): ReturnType<typeof runBound> {
  return runBound({ fixedMs: cal.ms, parallel: PARALLEL, requests: cal.requests, timeoutMs: cal.timeoutMs, ...extra });
}
const killAfter = (ms: number): number => Math.min(2 * ms, KILL_CEILING_MS);

// One concurrent block, so every run queues on the same slots; the longest runs are declared first.
describe.concurrent('hostile targets end to end', () => {
  test(
    'echo-key on every suite: the global bound holds and nothing leaks',
    async () => {
      const cal = await full();
      const b = bound(cal);
      const { out, target } = await hostileRun('echo-key', withControl, { ...withControl, concurrency: 2, timeoutMs: FULL_TIMEOUT_MS, killAfterMs: killAfter(b.ms) });
      // An answering mode: checks may go further than on a dead target, each request still bounded.
      expect(target.stats.modeRequests).toBeLessThanOrEqual(cal.requests * PAGE_CAP);
      const after = bound(cal, { requests: Math.max(cal.requests, target.stats.modeRequests) });
      const text = expectCalmRun('echo-key-all', out, target, { boundMs: after.ms, formula: after.formula, baselineRss: cal.peakRss, cap: CAP, secrets: [TOKEN] });
      expect(text).toMatch(/\\"code\\":\\"ECHO\\"/);
      expect(out.report!.checks.length).toBeGreaterThan(50);
      log('echo-key (all suites)', out, after.formula, target, cal);
    },
    TEST_MS,
  );

  test(
    'silent before introspection (no control, GET /me silent too): the preflight says the API cannot be reached after one timeout, exit 2',
    async () => {
      const cal = await small();
      const b = bound(cal, { requests: 1 });
      const { out, target } = await hostileRun(
        'silent',
        { meOk: false, keys: { [OWNER]: { role: 'owner', scopes: ALL_SCOPES } } },
        { keys: { owner: OWNER }, suites: SMALL, killAfterMs: killAfter(b.ms) },
      );
      const text = expectCalmRun('silent-introspection', out, target, { boundMs: b.ms, formula: b.formula, baselineRss: cal.peakRss, cap: CAP, secrets: [OWNER], harness: true });
      expect(out.exitCode).toBe(2);
      expect(text).toMatch(/preflight: the API cannot be reached: GET [^ ]+\/api\/v1\/me got no answer \(timeout/);
      log('silent (introspection)', out, b.formula, target, cal);
    },
    TEST_MS,
  );

  test(
    'echo-key without control: keys from a profile and env vars never come back in any file',
    async () => {
      const cal = await small();
      const b = bound(cal);
      const { out, target } = await hostileRun('echo-key', { keys: { [OWNER]: { role: 'owner', scopes: ALL_SCOPES } } }, { keys: { owner: OWNER }, suites: SMALL, killAfterMs: killAfter(b.ms) });
      expect(target.stats.modeRequests).toBeGreaterThan(0);
      const after = bound(cal, { requests: Math.max(cal.requests, target.stats.modeRequests) });
      expectCalmRun('echo-key-profile', out, target, { boundMs: after.ms, formula: after.formula, baselineRss: cal.peakRss, cap: CAP, secrets: [OWNER] });
      log('echo-key (profile keys)', out, after.formula, target, cal);
    },
    TEST_MS,
  );

  test(
    'always-429 on two suites: the retries of the whole run stay within the run-wide budget',
    async () => {
      const cal = await full();
      // Requests in flight set, as concurrency is: unset, a loaded machine can measure its own
      // loopback as far (5 ms or more) and the run's retry budget grows with what may be in flight.
      const two = { ...withControl, suites: ['idempotency', 'pagination'], concurrency: 2, extra: ['--max-in-flight', '8'] };
      // Retry-After of a day is never honoured: the same paths with no retry at all.
      const never = await hostileRun('always-429', { ...withControl, settings: { retryAfter: 'day' } }, two);
      const sessions = two.suites.length;
      const b = bound(cal, { requests: never.target.stats.modeRequests, retries: { count: sessions * SESSION_RETRY_BUDGET, waitMs: 1_000 } });
      const { out, target } = await hostileRun('always-429', { ...withControl, settings: { retryAfter: 'none' } }, { ...two, killAfterMs: killAfter(b.ms) });
      expectCalmRun('always-429-two-suites', out, target, { boundMs: b.ms, formula: b.formula, baselineRss: cal.peakRss, cap: CAP, secrets: [TOKEN] });
      const retries = target.stats.modeRequests - never.target.stats.modeRequests;
      log(`always-429 none, 2 suites (${retries} retries)`, out, b.formula, target, cal);
      // The run's budget, shared by its suites: retryBudgetFor its requests in flight (20 at 8).
      const budget = retryBudgetFor(out.report!.meta.pace!.maxInFlight);
      expect(budget).toBe(SESSION_RETRY_BUDGET);
      expect(retries, 'retries spent by the run (each waited 1 s)').toBeLessThanOrEqual(budget);
    },
    TEST_MS,
  );

  test.each(MODE_CASES.map((c) => [c.mode, c] as const))(
    '%s',
    async (_mode, c: ModeCase) => {
      // A mode with a timeout of its own is bounded by that timeout (the calibration's fixed cost stands).
      const cal = { ...(await small()), ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}) };
      const retries = c.retryWaitMs !== undefined ? { retries: { count: SESSION_RETRY_BUDGET, waitMs: c.retryWaitMs } } : {};
      // Before the run: a waiting mode makes the calibration's requests wait; an answering mode
      // may be walked up to the page cap on each path (the kill switch's worst case).
      const apriori = bound(cal, { ...retries, ...(c.waits ? {} : { requests: cal.requests * PAGE_CAP }) });
      const { out, target } = await hostileRun(
        c.mode,
        { ...withControl, ...c.options },
        { ...withControl, suites: SMALL, killAfterMs: killAfter(apriori.ms), ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}) },
      );
      const sent = target.stats.modeRequests;
      if (c.waits) expect(sent, 'a waiting mode took the calibration paths').toBeLessThanOrEqual(cal.requests);
      else expect(sent, 'every path at most a walk to the page cap').toBeLessThanOrEqual(cal.requests * PAGE_CAP + SESSION_RETRY_BUDGET);
      // After the run: the requests it really sent (each bounded by the timeout) against the measured fixed cost.
      const b = c.waits ? apriori : bound(cal, { ...retries, requests: Math.max(cal.requests, sent) });
      const text = expectCalmRun(c.mode, out, target, { boundMs: b.ms, formula: b.formula, baselineRss: cal.peakRss, cap: CAP, secrets: [TOKEN], harness: c.harness ?? false });
      expect(text, `${c.mode}: report.json does not say what happened`).toMatch(c.evidence);
      log(c.mode, out, b.formula, target, cal);
    },
    TEST_MS,
  );
});

/** One line per run for the log: the measured time against its bound, requests, memory. */
function log(label: string, out: WgcRunOutcome, formula: string, target: HostileTarget, cal: Calibration): void {
  console.log(
    `[hostile] ${label}: exit ${out.exitCode} in ${out.ms} ms (bound ${formula}); ${target.stats.modeRequests} API requests ` +
      `(calibration ${cal.requests} in ${cal.ms} ms); peak RSS ${mb(out.peakRss)} (calibration ${mb(cal.peakRss)})`,
  );
}
