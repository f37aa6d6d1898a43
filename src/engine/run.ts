/**
 * Running suites without vitest (fault self-test, benchmark, the project's own tests): the
 * same sessions and checks as the vitest glue, in-process, with a bound on parallel suites.
 * Also the run preparation both paths share: key introspection once per run and the credit plan.
 */
import type { Dispatcher } from 'undici';
import type { CheckResult, SuiteDef } from './check.ts';
import { uniform } from './conclude.ts';
import { hasControl, runLimiter, type RunContext } from './context.ts';
import { withInFlightLimit } from '../http/limit.ts';
import { planCredits, plannedCredits, withCreditPlan, type CreditPlan } from './credits.ts';
import { openSession } from './session.ts';
import { createDispatcher, createHttpClient } from '../http/client.ts';
import { SecretRegistry } from '../http/redact.ts';
import { RetryBudget } from '../http/retry.ts';
import { introspectKeys } from '../target/introspect.ts';

export interface PreparedRun {
  run: RunContext;
  plan: CreditPlan;
  /** Requests spent preparing (introspection). */
  requests: number;
}

/**
 * Completes a run context before any check runs: introspects supplied keys once (without
 * control) and fixes the run-wide credit plan, so every worker sees the same decisions.
 */
export async function prepareRun(suites: readonly SuiteDef[], run: RunContext, deps: { dispatcher?: Dispatcher; plan?: CreditPlan } = {}): Promise<PreparedRun> {
  // The plan of these suites for this run, unless the caller has it already (wgc run prints it first).
  const plan = deps.plan ?? planCredits(suites, run);
  // Each check's credits go with the context: a session need not draw a seeded check's values again to price it.
  const out: RunContext = withCreditPlan(run, plan);
  let requests = 0;
  if (!hasControl(run) && !run.introspected && run.keys.length > 0) {
    const secrets = new SecretRegistry();
    for (const k of run.keys) secrets.add(k.secret, k.name);
    const api = createHttpClient({ baseUrl: run.baseUrl, ...run.http, secrets, idPrefix: 'introspect', ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}) });
    out.introspected = await introspectKeys(api, run.keys);
    requests = api.requestCount;
    await api.close();
  }
  return { run: out, plan, requests };
}

export interface InProcessRun {
  /** In suite order, then check order. */
  results: CheckResult[];
  /** Requests sent (preparation, provisioning, checks, teardown). */
  requests: number;
  durationMs: number;
  /** Harness problems outside any check (e.g. a workspace teardown that failed). */
  runErrors: string[];
  /** Credits charged over all provisioned workspaces per their ledgers; null without control. */
  creditsCharged: number | null;
}

/** Runs the suites in-process, at most `concurrency` suites at a time. */
export function runSuitesInProcess(suites: readonly SuiteDef[], runContext: RunContext, opts: { concurrency: number }): Promise<InProcessRun> {
  // Every request of the run counts against its bound on requests in flight (--max-in-flight).
  return withInFlightLimit(runLimiter(runContext), () => runInProcess(suites, runContext, opts));
}

async function runInProcess(suites: readonly SuiteDef[], runContext: RunContext, opts: { concurrency: number }): Promise<InProcessRun> {
  const started = Date.now();
  const dispatcher = createDispatcher({ connectTimeoutMs: runContext.http.timeoutMs });
  const retryBudget = new RetryBudget(runContext.http.retry429.budget);
  const runErrors: string[] = [];
  try {
    const prepared = await prepareRun(suites, runContext, { dispatcher });
    let requests = prepared.requests;
    let creditsCharged: number | null = null;
    const bySuite: CheckResult[][] = suites.map(() => []);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < suites.length; i = next++) {
        const suite = suites[i]!;
        let session;
        try {
          session = await openSession(suite, prepared.run, { dispatcher, retryBudget });
        } catch (e) {
          // openSession captures provisioning problems itself; this is a bug in the harness.
          const reason = `the suite session did not open: ${(e as Error).message}`;
          bySuite[i] = suite.checks.map((c) => ({
            checkId: c.id,
            suite: suite.name,
            title: c.title,
            ...uniform(c, 'harnessError', reason),
            requests: 0,
            plannedCredits: plannedCredits(c, prepared.run.numRuns, prepared.run.seed),
            durationMs: 0,
            seed: prepared.run.seed,
          }));
          continue;
        }
        // All at once: the session runs each lane's checks in order, the lanes side by side.
        const open = session;
        bySuite[i] = await Promise.all(suite.checks.map((check) => open.run(check)));
        try {
          const summary = await session.close();
          if (summary.creditsCharged !== null) creditsCharged = (creditsCharged ?? 0) + summary.creditsCharged;
        } catch (e) {
          runErrors.push(`suite ${suite.name}: teardown failed: ${(e as Error).message}`);
        }
        requests += session.requestCount;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, suites.length)) }, worker));
    return { results: bySuite.flat(), requests, durationMs: Date.now() - started, runErrors, creditsCharged };
  } finally {
    await dispatcher.close();
  }
}
