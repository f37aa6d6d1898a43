/**
 * A bound on the requests in flight to one target (`--max-in-flight`): every attempt a client
 * puts on the wire holds one slot from the moment it is sent until its answer is read (or it
 * fails); the rest wait in order of arrival. One limiter per target origin in the process
 * (limitTarget), so every suite session, API and control client of a run against that target
 * shares it (all suites run in one worker), whatever pipelining the checks do: a run never floods a target. Time spent
 * waiting for a slot is not part of a request's --timeout (the target is not being asked yet).
 */

/** Requests in flight to one target when nothing else is said: what a staging server should take. */
export const DEFAULT_MAX_IN_FLIGHT = 8;

export class InFlightLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** Most requests seen in flight at once (for tests and the benchmark). */
  peak = 0;
  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max in flight must be a positive integer, got ${max}`);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Runs `fn` holding one slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    this.peak = Math.max(this.peak, this.active);
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter (active stays the same), else it is freed.
      if (next) next();
      else this.active--;
    }
  }
}

const limiters = new Map<string, InFlightLimiter>();

/**
 * Bounds the requests in flight to the origin of `url` (a run's base URL and control URL) to
 * `max` for every client of this process from now on; returns the limiter. Called once per run
 * where its sessions start (the vitest worker, the in-process runner). A new bound for the same
 * origin replaces the old one for requests not yet waiting.
 */
export function limitTarget(url: string, max: number): InFlightLimiter {
  const origin = new URL(url).origin;
  let l = limiters.get(origin);
  if (!l || l.max !== max) limiters.set(origin, (l = new InFlightLimiter(max)));
  return l;
}

/** The limiter of requests to `origin`, if a run set one. */
export function targetLimiter(origin: string): InFlightLimiter | undefined {
  return limiters.size === 0 ? undefined : limiters.get(origin);
}
