import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A bound on the requests in flight to one target (`--max-in-flight`): every attempt a client
 * puts on the wire holds one slot from the moment it is sent until its answer is read (or it
 * fails); the rest wait in order of arrival. The run's work runs inside withInFlightLimit
 * (vitest.ts, run.ts), so every suite session, API and control client of the run shares one
 * limiter (all suites run in one worker), whatever pipelining the checks do: a run never floods a target. Time spent
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
 * The run's limiter of requests in flight to `url`'s origin under the bound `max`: one per
 * origin and bound in the process, so every suite of a run in the worker gets the same one.
 */
export function limitTarget(url: string, max: number): InFlightLimiter {
  const id = `${max} ${new URL(url).origin}`;
  let l = limiters.get(id);
  if (!l) limiters.set(id, (l = new InFlightLimiter(max)));
  return l;
}

const current = new AsyncLocalStorage<InFlightLimiter>();

/**
 * Runs `fn` with every request it sends, directly or through anything it starts, counted
 * against `limiter` (absent: unbounded). Only the run's own work is bounded: another client of
 * the same process (a test's noisy neighbour) is not the run's to throttle.
 */
export function withInFlightLimit<T>(limiter: InFlightLimiter | undefined, fn: () => T): T {
  return limiter ? current.run(limiter, fn) : fn();
}

/** The limiter of the work running now, if any (performRequest waits for a slot of it). */
export function currentLimiter(): InFlightLimiter | undefined {
  return current.getStore();
}
