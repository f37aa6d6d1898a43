/**
 * The run context: everything a suite session needs, resolved once by the CLI (or a test) and
 * handed to every session, through vitest's `provide`/`inject` for worker processes. It must
 * stay JSON-serialisable. It does carry secrets (key secrets, control token) because workers
 * need them to send requests; it is never written to a report (use redactRunContext).
 */
import type { IntrospectedKey, SuppliedKey } from '../target/introspect.ts';
import type { RoleMap } from '../target/roles.ts';
import { RetryBudget, type Retry429Options } from '../http/retry.ts';
import type { Config } from '../config/index.ts';
import { limitTarget, type InFlightLimiter } from '../http/limit.ts';

export interface RunContext {
  /** Target origin plus optional path prefix; the API is at baseUrl + "/api/v1". */
  baseUrl: string;
  /** Test-control protocol URL; with controlToken it turns on provisioning, ledger and control checks. */
  controlUrl?: string;
  controlToken?: string;
  /** Keys supplied by the operator (used without control). */
  keys: SuppliedKey[];
  /** GET /me of every supplied key, done once per run by the runner; sessions introspect when absent. */
  introspected?: IntrospectedKey[];
  /** The target's role names → the document's (the profile's `roles`), for matching supplied keys; see src/target/roles.ts. */
  roles?: RoleMap;
  /** Existing records on targets without control. */
  fixtures?: { accountId?: string; accountPersonId?: string };
  seed: number;
  /** Property-based runs per property. */
  numRuns: number;
  /** Prefix for every record the run creates, e.g. "wgc-1a2b3c-". */
  prefix: string;
  readOnly: boolean;
  /**
   * Multiplier of every wait for an asynchronous effect the document sets no time for
   * (receipts, compute runs, agent quotes, usage-ledger lag); absent: 1.
   */
  patience?: number;
  maxCredits?: number;
  /**
   * The run-wide credit plan, computed once over every selected check (see credits.ts);
   * sessions disable the checks it excludes. Absent: the session plans its own suite alone.
   */
  creditPlan?: {
    excluded: string[];
    /** Each planned check's exact credits (CreditPlanEntry.credits), by check id. */
    planned?: Record<string, number>;
  };
  /** Suites selected by --suite; empty means all. Unselected suites report their checks disabled. */
  suites: string[];
  /** Check ids selected by --check; absent or empty means every check of the selected suites. */
  checks?: string[];
  /** How the run may be stopped before its end (time budget, cancellation; see stop.ts). */
  stop?: import('./stop.ts').StopPlan;
  /**
   * Suites that run side by side at most (the pace's; src/target/pace.ts), kept by the worker
   * (src/engine/vitest.ts): vitest starts before the pace is known. Absent: as many as vitest runs.
   */
  suitesSideBySide?: number;
  http: {
    timeoutMs: number;
    maxResponseBytes: number;
    allowInsecureHttp: boolean;
    /**
     * Retry bounds. `budget` is what one runner may spend: the in-process runner shares it
     * across its sessions; `wgc run` gives each vitest session an equal share of the run's budget.
     */
    retry429: { maxRetries: number; maxWaitMs: number; budget: number };
    /** Requests in flight to the target at once over the whole run (--max-in-flight; see src/http/limit.ts); absent: unbounded. */
    maxInFlight?: number;
    /** Answers slower than this (ms) lower the pace (src/http/limit.ts); absent: only 429s do. */
    slowMs?: number;
  };
  /** Usage balance of each provisioned workspace; default: the control protocol's default. */
  workspaceCredits?: number;
}

/**
 * Retry bounds used when the caller has no opinion. A wait may last a minute (a rate limit of
 * so many calls a minute frees its slots up to a minute later); the whole run waits it once
 * (src/http/limit.ts), and the run's time budget bounds the run whatever the waits.
 */
export const DEFAULT_RUN_RETRY: RunContext['http']['retry429'] = { maxRetries: 2, maxWaitMs: 65_000, budget: 20 } satisfies Retry429Options;

/**
 * The run's retry budget: at least DEFAULT_RUN_RETRY's, and two retries for every request the
 * run may have in flight, since everything in flight when a rate limit is met comes back 429
 * at once and is retried after the one wait.
 */
export function retryBudgetFor(maxInFlight: number | undefined): number {
  return Math.max(DEFAULT_RUN_RETRY.budget, 2 * (maxInFlight ?? 0));
}

const budgets = new WeakMap<InFlightLimiter, RetryBudget>();

/**
 * The retry budget every session of the run in this process draws from (one per run limiter,
 * as the limiter is one per run); a fresh one where the run has no limiter.
 */
export function runRetryBudget(run: RunContext): RetryBudget {
  const limiter = runLimiter(run);
  if (!limiter) return new RetryBudget(run.http.retry429.budget);
  let b = budgets.get(limiter);
  if (!b) budgets.set(limiter, (b = new RetryBudget(run.http.retry429.budget)));
  return b;
}

/**
 * The run's bound on its requests in flight (--max-in-flight), shared by every session of the
 * run in this process; undefined when the run sets none. Run the sessions' work inside
 * withInFlightLimit(limiter, ...) (src/http/limit.ts).
 */
export function runLimiter(run: RunContext): InFlightLimiter | undefined {
  if (run.http.maxInFlight === undefined) return undefined;
  const limiter = limitTarget(run.baseUrl, run.http.maxInFlight);
  if (run.http.slowMs !== undefined) limiter.slowMs = run.http.slowMs;
  return limiter;
}

/** True when the run can use the test-control protocol. */
export function hasControl(run: RunContext): boolean {
  return Boolean(run.controlUrl && run.controlToken);
}

/** A random run prefix such as "wgc-3f9a1c-" (records created by the run carry it). */
export function makePrefix(seed: number, random: () => number = Math.random): string {
  const salt = Math.floor(random() * 0xffffff)
    .toString(16)
    .padStart(6, '0');
  return `wgc-${(seed >>> 0).toString(16).slice(-4).padStart(4, '0')}${salt}-`;
}

/** The context without secrets, for logs and reports. */
export function redactRunContext(run: RunContext): Record<string, unknown> {
  const { controlToken, keys, ...rest } = run;
  return { ...rest, controlToken: controlToken ? '[REDACTED:control_token]' : undefined, keys: keys.map((k) => ({ name: k.name })) };
}

/**
 * The run context of an in-process run against a target with the test-control protocol (the
 * embedded reference in the self-test and the project's tests): deterministic prefix, no
 * supplied keys, every suite selected.
 */
export function controlledRunContext(
  target: { baseUrl: string; controlUrl: string; controlToken: string },
  opts: { seed: number; numRuns: number; readOnly?: boolean; timeoutMs?: number },
): RunContext {
  return {
    baseUrl: target.baseUrl,
    controlUrl: target.controlUrl,
    controlToken: target.controlToken,
    keys: [],
    seed: opts.seed,
    numRuns: opts.numRuns,
    // Deterministic: each such run has its own server, so names cannot collide across runs.
    prefix: makePrefix(opts.seed, () => 0),
    readOnly: opts.readOnly ?? false,
    suites: [],
    http: { timeoutMs: opts.timeoutMs ?? 10_000, maxResponseBytes: 8 * 1024 * 1024, allowInsecureHttp: false, retry429: DEFAULT_RUN_RETRY },
  };
}

/** The run context of a resolved config against a target (secrets included: never log it). */
export function runContextFor(config: Config, target: { baseUrl: string; controlUrl?: string; controlToken?: string }): RunContext {
  return {
    baseUrl: target.baseUrl,
    keys: config.keys.map((k) => ({ name: k.name, secret: k.secret })),
    seed: config.seed,
    numRuns: config.runs,
    prefix: makePrefix(config.seed),
    readOnly: config.readOnly,
    patience: config.patience,
    suites: config.suites,
    ...(config.checks.length > 0 ? { checks: config.checks } : {}),
    http: {
      timeoutMs: config.timeoutMs,
      maxResponseBytes: config.maxResponseBytes,
      allowInsecureHttp: config.allowInsecureHttp,
      retry429: { ...DEFAULT_RUN_RETRY, budget: retryBudgetFor(config.maxInFlight) },
      maxInFlight: config.maxInFlight,
    },
    ...(target.controlUrl ? { controlUrl: target.controlUrl, controlToken: target.controlToken! } : {}),
    ...(config.fixtures ? { fixtures: config.fixtures } : {}),
    ...(config.roles ? { roles: config.roles } : {}),
    ...(config.maxCredits !== undefined ? { maxCredits: config.maxCredits } : {}),
  };
}
