/**
 * Waits for asynchronous effects the API document sets no time for (a receipt or compute run
 * becoming readable, an agent preview's quote, a charge reaching the usage ledger). Each check
 * names its bound in milliseconds as the suite's assumption (recorded in the clause catalog);
 * the run's --patience multiplies it, so a slow staging target can be given more time without
 * editing the suites, and every finding that follows a wait says which bound was waited.
 */
/** What a wait needs of the run (RunInfo of check.ts has it; kept local so the ledger service can use the waits without a cycle). */
type RunInfo = { patience: number };

/**
 * How long after its answer a charge may still be recorded in the usage ledger: the suite's
 * bound on a lagging ledger (the document sets none; a target may bill asynchronous work when it
 * runs, or record usage through a queue that flushes every few seconds). Used by the billing
 * suite's measurements and by the session's final read of a suite workspace's ledger.
 */
export const LEDGER_LAG_MS = 5_000;

/** The bound to wait for an effect whose assumed bound is `ms`, under the run's --patience. */
export function waitBound(run: Pick<RunInfo, 'patience'>, ms: number): number {
  return ms * Math.max(1, run.patience);
}

/** "3 s (the suite's bound × --patience 1; the document sets none)", for findings after a wait. */
export function describeBound(run: Pick<RunInfo, 'patience'>, ms: number): string {
  const total = waitBound(run, ms);
  const secs = total >= 10_000 ? `${Math.round(total / 1000)} s` : `${(total / 1000).toFixed(total % 1000 === 0 ? 0 : 1)} s`;
  return `${secs} (the suite's bound of ${ms / 1000} s × --patience ${Math.max(1, run.patience)}; the document sets none)`;
}
