/**
 * The credit plan: before anything is sent, every selected check's planned credits are
 * summed, and with --max-credits the checks are admitted in suite order until the budget
 * would be exceeded; the rest are disabled. The plan is static (computed from declarations,
 * not from live spending), so it is the same in every worker, every shard and every rerun.
 */
import type { CheckDef, SuiteDef } from './check.ts';
import { hasControl, type RunContext } from './context.ts';

export interface CreditPlanEntry {
  checkId: string;
  suite: string;
  credits: number;
  /** Why the check spends nothing (not selected, read-only, needs control), if so. */
  idle?: string;
}

export interface CreditPlan {
  /** Credits the admitted checks plan to spend. */
  planned: number;
  /** Credits all selected, runnable checks would spend without a limit. */
  wanted: number;
  limit: number | null;
  entries: CreditPlanEntry[];
  /** Check ids disabled by the limit. */
  excluded: string[];
}

/** The planned credits of one check for the run's property-run count. */
export function plannedCredits(check: CheckDef, numRuns: number): number {
  const c = typeof check.credits === 'function' ? check.credits(numRuns) : check.credits;
  return Number.isFinite(c) && c > 0 ? c : 0;
}

/** Why a check will not send anything on this run, or undefined when it will run. */
export function idleReason(suite: SuiteDef, check: CheckDef, run: Pick<RunContext, 'suites' | 'readOnly' | 'controlUrl' | 'controlToken'>): string | undefined {
  if (run.suites.length > 0 && !run.suites.includes(suite.name)) return `suite not selected (--suite ${run.suites.join(', ')})`;
  if (check.needs?.mutation && run.readOnly) return '--read-only';
  if ((check.needs?.control || check.needs?.ledger) && !hasControl(run as RunContext)) return 'needs the test-control protocol';
  return undefined;
}

/** Plans the run's credits over `suites` in order. */
export function planCredits(suites: readonly SuiteDef[], run: Pick<RunContext, 'suites' | 'readOnly' | 'controlUrl' | 'controlToken' | 'numRuns' | 'maxCredits'>): CreditPlan {
  const limit = run.maxCredits ?? null;
  let left = limit ?? Number.POSITIVE_INFINITY;
  let planned = 0;
  let wanted = 0;
  const entries: CreditPlanEntry[] = [];
  const excluded: string[] = [];
  for (const suite of suites) {
    for (const check of suite.checks) {
      const credits = plannedCredits(check, run.numRuns);
      const idle = idleReason(suite, check, run);
      const entry: CreditPlanEntry = { checkId: check.id, suite: suite.name, credits };
      if (idle) entry.idle = idle;
      entries.push(entry);
      if (idle) continue;
      wanted += credits;
      // Greedy in suite order: a check that does not fit is skipped, later smaller ones may still fit.
      if (credits > left) {
        excluded.push(check.id);
        continue;
      }
      left -= credits;
      planned += credits;
    }
  }
  return { planned, wanted, limit, entries, excluded };
}

/** One line for the terminal, e.g. "credit plan: 412 credits for 88 checks (limit 500)". */
export function describeCreditPlan(plan: CreditPlan): string {
  const running = plan.entries.filter((e) => !e.idle && !plan.excluded.includes(e.checkId)).length;
  const limit = plan.limit === null ? 'no --max-credits limit' : `limit ${plan.limit}`;
  const n = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
  const cut = plan.excluded.length > 0 ? `; ${n(plan.excluded.length, 'check')} (${n(plan.wanted - plan.planned, 'credit')}) disabled by --max-credits` : '';
  return `credit plan: at most ${n(plan.planned, 'credit')} for ${n(running, 'check')} (${limit})${cut}`;
}
