/**
 * The vitest glue: a suites/<area>.test.ts file is one line, `defineSuite(suite)`. Each check
 * becomes one test named "<checkId> <title> [<clause ids>]" that stores its CheckResult in
 * `task.meta.wgc` for the reporter (reporters/wgc-reporter.ts). Failed checks and harness
 * errors fail the test so vitest shows them; not-observable and disabled checks are skipped
 * with their reason (vitest 4.1 delivers meta set before `skip` to reporters: see
 * test/core/vitest-meta.test.ts).
 */
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import type { CheckResult, SuiteDef } from './check.ts';
import { runLimiter, runRetryBudget, type RunContext } from './context.ts';
import { PACE_LINE } from './progress.ts';
import { withInFlightLimit } from '../http/limit.ts';
import { openSession, type SessionSummary, type SuiteSession } from './session.ts';
import { passGate } from './gate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run context, provided by `wgc run` (startVitest's `provide`)... */
    wgcRun: RunContext;
    /** ...or the gate that hands it over once the command has planned the run (src/engine/gate.ts). */
    wgcGate: string;
    /** How long a suite's session may take to open or close (ms; launch.ts). */
    wgcHookTimeoutMs: number;
  }
  interface TaskMeta {
    /** What the check concluded; read by the collecting reporter. */
    wgc?: CheckResult;
    /** On the suite's describe: what its session reported when it closed (requests, ledger total). */
    wgcSession?: SessionSummary;
  }
}

/** The test name of a check (parsed back by src/report/test-name.ts). */
export function testName(checkId: string, title: string, clauses: readonly string[]): string {
  return `${checkId} ${title} [${clauses.join(', ')}]`;
}

/**
 * The suites of one run that hold a place to run (RunContext.suitesSideBySide): a suite takes one
 * before its session opens and gives it back once its session has closed, in the order the
 * suites asked (the order of the suite files, as vitest starts them). Vitest itself runs every
 * suite of a gated run at once (launch.ts): it starts before the pace is known.
 */
class SuitePlaces {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(places: number) {
    this.#free = Math.max(1, places);
  }
  /** Resolves with the function that gives the place back (once). */
  async take(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}

const places = new WeakMap<RunContext, SuitePlaces>();

/** A place for one suite of `run`; without a limit (no pace in the context), at once. */
function suitePlace(run: RunContext): Promise<() => void> {
  if (run.suitesSideBySide === undefined) return Promise.resolve(() => undefined);
  let p = places.get(run);
  if (!p) places.set(run, (p = new SuitePlaces(run.suitesSideBySide)));
  return p.take();
}

/** `work`, failed after `ms` (the safety net vitest's hook timeout was before a hook could wait for its place). */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Summary thrown for a failed check so vitest's own output says what failed. */
function failureMessage(result: CheckResult): string {
  if (result.outcome === 'harnessError') return `harness error (not a target failure): ${result.reason ?? 'unknown'}`;
  const lines = result.findings.map((f) => `${f.clause}: ${f.message}${f.received ? ` (received ${f.received})` : ''}`);
  return lines.join('\n') || `failed: ${result.reason ?? ''}`;
}

/**
 * Declares the suite's tests. Call once per suite file. Without a run context (the file was
 * collected by a plain vitest run, e.g. a fixture suite under test/), the suite is declared
 * skipped with that reason instead of failing: it needs `wgc run` to mean anything.
 */
export function defineSuite(suite: SuiteDef): void {
  const given = inject('wgcRun');
  const gate = inject('wgcGate');
  if (!given && !gate) {
    describe.skip(`${suite.name}: no run context (run suites through \`wgc run\`, which provides wgcRun)`, () => {
      for (const check of suite.checks) test(testName(check.id, check.title, check.clauses), () => {});
    });
    return;
  }
  const ready = given ? Promise.resolve(given) : passGate(gate);
  const hookTimeoutMs = inject('wgcHookTimeoutMs') ?? 10 * 60_000;
  // Concurrent with the other suites' describes (suites.entry.ts); its own checks run in order
  // (they share the suite's workspace), but for its lanes', which run side by side (session.ts).
  describe(`${suite.name}: ${suite.title}`, { concurrent: true }, () => {
    let session: SuiteSession | undefined;
    let limiter: ReturnType<typeof runLimiter>;
    /** Each check's result, all asked for at once: the session runs each lane's checks in order, the lanes side by side. */
    const results = new Map<string, Promise<CheckResult>>();

    let givePlaceBack: (() => void) | undefined;
    let retryBudget: ReturnType<typeof runRetryBudget> | undefined;

    // No vitest timeout on the hooks: a suite waits here for the gate and for its place, as long
    // as the suites before it run. Opening and closing its session are bounded instead.
    beforeAll(async () => {
      // Nothing is sent before the command has the run planned (the gate opens).
      const run = await ready;
      givePlaceBack = await suitePlace(run);
      // Every suite of the run shares one bound on its requests in flight (--max-in-flight): the
      // session's work runs inside it.
      limiter = runLimiter(run);
      // The pace's lines (a rate-limit wait) reach the person watching through the progress reporter.
      if (limiter && !limiter.onEvent) limiter.onEvent = (line) => console.error(`${PACE_LINE}${line}`);
      const retries = (retryBudget = runRetryBudget(run));
      session = await within(
        hookTimeoutMs,
        `opening the ${suite.name} session`,
        withInFlightLimit(limiter, () => openSession(suite, run, { retryBudget: retries })),
      );
      const open = session;
      withInFlightLimit(limiter, () => {
        for (const check of suite.checks) results.set(check.id, open.run(check));
      });
    }, 0);

    // Vitest 4.1 demands an object pattern as the hook's first parameter; the suite task is the second.
    afterAll(async ({}, task) => {
      try {
        // A failed teardown (workspace not deleted) fails this hook: a harness problem the run reports.
        const summary = await within(
          hookTimeoutMs,
          `closing the ${suite.name} session`,
          withInFlightLimit(limiter, async () => session?.close()),
        );
        if (summary) task.meta.wgcSession = { ...summary, ...(limiter ? { paceWaits: limiter.waits } : {}), ...(retryBudget ? { retriesSpent: retryBudget.spent } : {}) };
      } finally {
        givePlaceBack?.();
      }
    }, 0);

    for (const check of suite.checks) {
      test(testName(check.id, check.title, check.clauses), { concurrent: false }, async (ctx) => {
        const pending = results.get(check.id);
        if (!session || !pending) throw new Error('the suite session did not open');
        const result = await pending;
        ctx.task.meta.wgc = result;
        if (result.outcome === 'failed' || result.outcome === 'harnessError') throw new Error(failureMessage(result));
        if (result.outcome === 'notObservable' || result.outcome === 'disabled') ctx.skip(result.reason ?? result.outcome);
      });
    }
  });
}
