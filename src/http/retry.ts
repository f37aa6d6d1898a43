/**
 * 429 handling: a target that rate-limits the suite is honoured (Retry-After, within a bound)
 * instead of being reported as failing, but never at the cost of an unbounded run: each
 * exchange retries at most `maxRetries` times, each wait is at most `maxWaitMs`, and all
 * retries of a run draw from one budget.
 */

export interface Retry429Options {
  /** Retries per exchange. 0 disables retrying. */
  maxRetries: number;
  /** Longest single wait; a Retry-After beyond it is not honoured (the 429 is returned). */
  maxWaitMs: number;
  /** Retries for the whole run (shared by every client given the same RetryBudget). */
  budget: number | RetryBudget;
}

/** Wait used when a 429 carries no (parsable) Retry-After. */
export const DEFAULT_RETRY_WAIT_MS = 1000;

export const DEFAULT_RETRY_429: Retry429Options = { maxRetries: 2, maxWaitMs: 5000, budget: 20 };

/** A run-wide count of retries left. Share one instance between clients of the same run. */
export class RetryBudget {
  #left: number;
  readonly total: number;
  constructor(total: number) {
    this.total = Math.max(0, Math.floor(total));
    this.#left = this.total;
  }
  get left(): number {
    return this.#left;
  }
  /** Retries taken so far. */
  get spent(): number {
    return this.total - this.#left;
  }
  /** Takes one retry from the budget; false when none is left. */
  take(): boolean {
    if (this.#left <= 0) return false;
    this.#left -= 1;
    return true;
  }
}

/**
 * Parses a Retry-After value (delay-seconds or an HTTP date) into milliseconds from `now`.
 * Returns undefined when absent or unparsable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Decides whether to retry a 429: the wait in ms, or a reason not to retry.
 * `attempt` is the number of retries already made for this exchange.
 */
export function planRetry(
  retryAfter: string | undefined,
  attempt: number,
  opts: { maxRetries: number; maxWaitMs: number },
  budget: RetryBudget,
  now: number = Date.now(),
): { waitMs: number } | { stop: string } {
  if (attempt >= opts.maxRetries) return { stop: `retry limit ${opts.maxRetries} reached` };
  const parsed = parseRetryAfter(retryAfter, now);
  const waitMs = parsed ?? Math.min(DEFAULT_RETRY_WAIT_MS, opts.maxWaitMs);
  if (waitMs > opts.maxWaitMs) return { stop: `Retry-After ${retryAfter} exceeds the ${opts.maxWaitMs} ms bound` };
  if (!budget.take()) return { stop: 'the run-wide retry budget is spent' };
  return { waitMs };
}
