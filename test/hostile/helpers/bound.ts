/**
 * The time bound of a run against a hostile target (docs/hostile-targets.md, "The bound"):
 *
 *   T ≤ F × T_fixed  +  N × (t + s)  +  B × w
 *
 * - T_fixed: what a run costs when nothing waits: the wall time of the calibration run, the
 *   same command against the `reset` mode, where every request fails at once;
 * - F: CPU contention: `parallel` runs share `cores` cores, so the fixed part may stretch by
 *   parallel / cores, times 1.5 for scheduling noise on a shared machine;
 * - N: requests that can each take a whole timeout. A check ends its path on a transport
 *   error whatever its kind, so the requests the calibration made (every one a transport
 *   error) are the requests a timing-out target makes the same checks send;
 * - t: the per-request timeout (--timeout); s: the per-request allowance for tearing a
 *   request down (SLACK_MS);
 * - B × w: 429 retries: B retry budgets' worth of retries (one budget per suite session,
 *   one for introspection), each waiting at most w (the longest wait the client honours).
 */
import { availableParallelism } from 'node:os';

/** Per-request allowance beyond the timeout: abort, socket teardown, classification. */
export const SLACK_MS = 400;

export interface BoundInputs {
  /** Wall time of the calibration run (ms). */
  fixedMs: number;
  /** Runs going at once while this one runs. */
  parallel: number;
  /** Requests that can each take the whole timeout. */
  requests: number;
  timeoutMs: number;
  /** Retries the run may spend, and the longest wait of one (ms). */
  retries?: { count: number; waitMs: number };
}

/** The contention factor F. */
export function contention(parallel: number, cores: number = availableParallelism()): number {
  return 1.5 * Math.max(1, parallel / Math.max(1, cores));
}

/** The bound in ms, and the formula with its numbers for messages. */
export function runBound(i: BoundInputs): { ms: number; formula: string } {
  const f = contention(i.parallel);
  const fixed = f * i.fixedMs;
  const waiting = i.requests * (i.timeoutMs + SLACK_MS);
  const retry = i.retries ? i.retries.count * i.retries.waitMs : 0;
  const ms = Math.ceil(fixed + waiting + retry);
  const formula = `${f.toFixed(2)} × ${i.fixedMs} ms + ${i.requests} × (${i.timeoutMs} + ${SLACK_MS}) ms` + (i.retries ? ` + ${i.retries.count} × ${i.retries.waitMs} ms` : '') + ` = ${ms} ms`;
  return { ms, formula };
}
