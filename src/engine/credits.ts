/**
 * The credit plan: before anything is sent, every selected check's credits are summed twice:
 * the exact figure (what the check is charged on a conformant target that reads the seed as
 * the reference does, in a workspace the suite provisioned) and the ceiling (the most it may
 * be charged on any conformant target). With --max-credits the checks are admitted in suite
 * order by their ceiling until the budget would be exceeded; the rest are disabled. The plan is
 * static (computed from declarations, not from live spending), so it is the same in every
 * worker, every shard and every rerun.
 */
import type { CheckDef, CreditCount, CreditPool, SuiteDef } from './check.ts';
import { hasControl, type RunContext } from './context.ts';
import { measuredCredits } from './measured-credits.ts';

export interface CreditPlanEntry {
  checkId: string;
  suite: string;
  /** The check's exact credits for the run's property-run count. */
  credits: number;
  /** Its ceiling (at least `credits`). */
  maxCredits: number;
  /** Why the check spends nothing (not selected, read-only, needs control), if so. */
  idle?: string;
}

export interface CreditPlan {
  /** Exact credits of the admitted checks: what the ledgers charge on a conformant target like the reference. */
  planned: number;
  /** Ceiling of the admitted checks: the most any conformant target charges them (at most `limit`). */
  ceiling: number;
  /** Exact credits of all selected, runnable checks without a limit. */
  wanted: number;
  limit: number | null;
  entries: CreditPlanEntry[];
  /** Check ids disabled by the limit. */
  excluded: string[];
}

function count(c: CreditCount | undefined, numRuns: number, seed: number): number {
  const n = typeof c === 'function' ? c(numRuns, seed) : c;
  return n !== undefined && Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * The exact credits of one check for the run's property-run count (and seed, for a check whose
 * spending depends on the values drawn): declared, or measured (specs/credit-plan.json).
 */
export function plannedCredits(check: CheckDef, numRuns: number, seed = 0): number {
  return check.credits === undefined ? measuredCredits(check.id, numRuns) : count(check.credits, numRuns, seed);
}

/**
 * Credits that depend on the run's seed as well as its run count (a function of two parameters:
 * a check that prices the values it will draw). The measured plan (fixed + perRun × runs) cannot
 * hold them: such a check declares its credits, and the ledgers hold it to them.
 */
export function seedDependent(check: CheckDef): boolean {
  return typeof check.credits === 'function' && check.credits.length >= 2;
}

/** The ceiling of one check for the run's property-run count (its credits when it declares none, never less). */
export function maxCredits(check: CheckDef, numRuns: number, seed = 0): number {
  const exact = plannedCredits(check, numRuns, seed);
  return check.maxCredits === undefined ? exact : Math.max(exact, count(check.maxCredits, numRuns, seed));
}

/** Why a check outside a --check selection did not run. */
export const CHECK_NOT_SELECTED = 'check not selected (--check)';

/** Why a check will not send anything on this run, or undefined when it will run. */
export function idleReason(suite: SuiteDef, check: CheckDef, run: Pick<RunContext, 'suites' | 'checks' | 'readOnly' | 'controlUrl' | 'controlToken'>): string | undefined {
  if (run.suites.length > 0 && !run.suites.includes(suite.name)) return `suite not selected (--suite ${run.suites.join(', ')})`;
  if (run.checks && run.checks.length > 0 && !run.checks.includes(check.id)) return CHECK_NOT_SELECTED;
  if (check.needs?.mutation && run.readOnly) return '--read-only';
  if ((check.needs?.control || check.needs?.ledger) && !hasControl(run as RunContext)) return 'needs the test-control protocol';
  return undefined;
}

/** Plans the run's credits over `suites` in order. */
export function planCredits(
  suites: readonly SuiteDef[],
  run: Pick<RunContext, 'suites' | 'checks' | 'readOnly' | 'controlUrl' | 'controlToken' | 'numRuns' | 'maxCredits'> & { seed?: number },
): CreditPlan {
  const limit = run.maxCredits ?? null;
  let left = limit ?? Number.POSITIVE_INFINITY;
  let planned = 0;
  let ceiling = 0;
  let wanted = 0;
  const entries: CreditPlanEntry[] = [];
  const excluded: string[] = [];
  // What each shared ceiling (CheckDef.creditPool) still holds for its checks admitted after.
  const pools = new Map<CreditPool, number>();
  for (const suite of suites) {
    for (const check of suite.checks) {
      const credits = plannedCredits(check, run.numRuns, run.seed);
      const own = maxCredits(check, run.numRuns, run.seed);
      const pool = check.creditPool;
      const poolLeft = pool ? (pools.get(pool) ?? count(pool.maxCredits, run.numRuns, run.seed ?? 0)) : Number.POSITIVE_INFINITY;
      // Within a pool a check adds what the pool still holds, never less than its exact credits.
      const most = Math.max(credits, Math.min(own, poolLeft));
      const idle = idleReason(suite, check, run);
      const entry: CreditPlanEntry = { checkId: check.id, suite: suite.name, credits, maxCredits: own };
      if (idle) entry.idle = idle;
      entries.push(entry);
      if (idle) continue;
      wanted += credits;
      // Greedy in suite order, by ceiling: a check that may not fit is skipped, later smaller ones may still fit.
      if (most > left) {
        excluded.push(check.id);
        continue;
      }
      left -= most;
      if (pool) pools.set(pool, Math.max(0, poolLeft - most));
      planned += credits;
      ceiling += most;
    }
  }
  return { planned, ceiling, wanted, limit, entries, excluded };
}

/** The run context with its plan (RunContext.creditPlan): the checks the plan excludes and each check's exact credits. */
export function withCreditPlan(run: RunContext, plan: CreditPlan): RunContext {
  const planned = Object.fromEntries(plan.entries.map((e) => [e.checkId, e.credits]));
  return { ...run, creditPlan: { excluded: plan.excluded, planned } };
}

/** One line for the terminal, e.g. "credit plan: 787 credits for 106 checks (ceiling 1356; limit 1500)". */
export function describeCreditPlan(plan: CreditPlan): string {
  const running = plan.entries.filter((e) => !e.idle && !plan.excluded.includes(e.checkId)).length;
  const limit = plan.limit === null ? 'no --max-credits limit' : `limit ${plan.limit}`;
  const n = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
  const cut = plan.excluded.length > 0 ? `; ${n(plan.excluded.length, 'check')} (${n(plan.wanted - plan.planned, 'credit')}) disabled by --max-credits` : '';
  return `credit plan: ${n(plan.planned, 'credit')} for ${n(running, 'check')} (ceiling ${plan.ceiling}; ${limit})${cut}`;
}
