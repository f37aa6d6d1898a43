import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The pace of a run towards one target: a bound on the requests in flight (`--max-in-flight`)
 * that adapts to what the target answers. Every attempt a client puts on the wire holds one
 * slot from the moment it is sent until its answer is read (or it fails); the rest wait their
 * turn. Waiters are grouped in flows (withFlow: a lane of a suite, from its provisioning to its
 * teardown), each flow's in order of arrival and the flows served in turn, one request each: a
 * lane sending one request at a time (a sequence, a chain of ledger reads) then waits behind one
 * request of each other flow, not behind another lane's whole sweep of a hundred, which against a
 * distant target made those chains the run's longest lanes. The run's work runs inside
 * withInFlightLimit (vitest.ts, run.ts), so every suite
 * session, API and control client of the run shares one limiter (all suites run in one worker),
 * whatever pipelining the checks do: a run never floods a target. Time spent waiting for a slot
 * is not part of a request's --timeout (the target is not being asked yet).
 *
 * Adapting (additive increase, multiplicative decrease, as TCP does):
 * - a 429 the client will retry (a rate limit) halves the requests allowed in flight, holds every
 *   new request until its Retry-After has passed (one wait for the whole run, not one per
 *   request), and from then on spaces requests out at nine tenths of the rate the target let
 *   through on average (every call admitted since the first, over the time since then plus
 *   the wait): a sliding window, a fixed window and a token bucket all come out near their
 *   rate, so the run stops meeting the limit instead of spending its retry budget on it;
 * - an answer slower than `slowMs` (when set) halves the requests allowed in flight;
 * - every run of as many answers as are allowed in flight raises that number by one, up to the
 *   bound, and every 100 admitted requests speed the spacing up by 3 %.
 */

/** Requests in flight to one target when nothing else is said: what a staging server should take. */
export const DEFAULT_MAX_IN_FLIGHT = 8;

/** What a finished attempt tells the pace. */
export interface Answer {
  /** HTTP status; undefined when no answer came (a timeout, a refused connection). */
  status: number | undefined;
  durationMs: number;
  /** For a 429 the client retries: how long it waits first (its Retry-After). */
  retryWaitMs?: number;
}

/** The pace's waits on the target's rate limit, for the report. */
export interface PaceWaits {
  /** Rate-limit waits (one per episode, however many requests it held). */
  count: number;
  /** Their time added up, ms. */
  totalMs: number;
  /** Requests a minute the run kept to after its last wait; null when it never had to. */
  perMinute: number | null;
  /** Requests allowed in flight at the end. */
  inFlight: number;
}

const SPEED_UP_EVERY = 100;

/** Time as the limiter sees it. */
export interface Clock {
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** The flow of requests made outside any withFlow. */
const NO_FLOW = {};
const flows = new AsyncLocalStorage<object>();

/**
 * Runs `fn` with every request it sends, directly or through anything it starts, in `flow`: the
 * limiter serves the flows that wait in turn (see the module comment).
 */
export function withFlow<T>(flow: object, fn: () => T): T {
  return flows.run(flow, fn);
}

export class InFlightLimiter {
  private active = 0;
  /** Waiters by flow, each in order of arrival. */
  private readonly queues = new Map<object, (() => void)[]>();
  /** The flows that have waiters, in the order they are served (round robin). */
  private readonly turn: object[] = [];
  private waitingCount = 0;
  /** Most requests seen in flight at once (for tests and the benchmark). */
  peak = 0;
  /** Requests allowed in flight now: `max`, lowered by throttling, raised again one by one. */
  private allowed: number;
  private raiseCount = 0;
  /** No request starts before this time (a rate-limit wait). */
  private gateUntil = 0;
  /** Least time between two request starts once a rate limit was met (0: none). */
  private spacingMs = 0;
  private nextStartAt = 0;
  private timer: unknown;
  private timerAt = Infinity;
  /** Since when `admitted` counts: the first API call answered. */
  private epochStart: number | undefined;
  private admitted = 0;
  private admittedSinceSpeedUp = 0;
  private lastDecreaseAt = -Infinity;
  private readonly waitsSeen = { count: 0, totalMs: 0 };
  /** Lines for the person watching the run (a rate-limit wait); absent: silent. */
  onEvent: ((line: string) => void) | undefined;
  /** Answers slower than this (ms) lower the pace; undefined: duration never does. */
  slowMs: number | undefined;

  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  /** `clock` is for tests: a clock and timers of their own. */
  constructor(
    readonly max: number,
    clock: Clock = REAL_CLOCK,
  ) {
    this.now = clock.now;
    this.setTimer = clock.setTimeout;
    this.clearTimer = clock.clearTimeout;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max in flight must be a positive integer, got ${max}`);
    this.allowed = max;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Requests allowed in flight now (at most `max`). */
  get allowedInFlight(): number {
    return this.allowed;
  }

  get waits(): PaceWaits {
    return { ...this.waitsSeen, perMinute: this.spacingMs > 0 ? Math.round(60_000 / this.spacingMs) : null, inFlight: this.allowed };
  }

  /** Runs `fn` holding one slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.active--;
      this.pump();
    }
  }

  /** What an attempt's answer says about the pace (see the module comment). */
  answered(a: Answer): void {
    const t = this.now();
    this.epochStart ??= t - a.durationMs;
    if (a.status === 429 && a.retryWaitMs !== undefined) return this.throttled(t, a.retryWaitMs);
    if (a.status !== undefined && a.status !== 429) {
      this.admitted++;
      if (this.spacingMs > 0 && ++this.admittedSinceSpeedUp >= SPEED_UP_EVERY) {
        this.admittedSinceSpeedUp = 0;
        this.spacingMs *= 0.97;
      }
    }
    if (this.slowMs !== undefined && a.durationMs > this.slowMs) {
      if (t - this.lastDecreaseAt >= this.slowMs) this.decrease(t);
      return;
    }
    if (a.status !== undefined && this.allowed < this.max && ++this.raiseCount >= this.allowed) {
      this.raiseCount = 0;
      this.allowed++;
      this.pump();
    }
  }

  private throttled(t: number, waitMs: number): void {
    const until = t + waitMs;
    // The answers of one episode (everything in flight when the limit was met) count once.
    if (t < this.gateUntil || t - this.lastDecreaseAt < 1000) {
      this.gateUntil = Math.max(this.gateUntil, until);
      return;
    }
    this.decrease(t);
    const since = this.epochStart ?? t;
    const seconds = (t - since + waitMs) / 1000;
    if (this.admitted >= 5 && seconds > 0) {
      const rate = (0.9 * this.admitted) / seconds;
      this.spacingMs = 1000 / rate;
      this.admittedSinceSpeedUp = 0;
    }
    this.gateUntil = Math.max(this.gateUntil, until);
    this.waitsSeen.count++;
    this.waitsSeen.totalMs += waitMs;
    const pace = this.spacingMs > 0 ? `, then at most ${Math.round(60_000 / this.spacingMs)} requests a minute` : '';
    this.onEvent?.(`rate limit: the target answered 429; the run waits ${(waitMs / 1000).toFixed(1)} s (its Retry-After)${pace}, ${this.allowed} in flight`);
    this.pump();
  }

  private decrease(t: number): void {
    this.lastDecreaseAt = t;
    this.allowed = Math.max(1, Math.floor(this.allowed / 2));
    this.raiseCount = 0;
  }

  private acquire(): Promise<void> {
    if (this.waitingCount === 0 && this.canStartNow()) {
      this.start();
      return Promise.resolve();
    }
    const flow = flows.getStore() ?? NO_FLOW;
    return new Promise<void>((resolve) => {
      let queue = this.queues.get(flow);
      if (!queue) {
        this.queues.set(flow, (queue = []));
        this.turn.push(flow);
      }
      queue.push(resolve);
      this.waitingCount++;
      this.pump();
    });
  }

  private canStartNow(): boolean {
    const t = this.now();
    return this.active < this.allowed && t >= this.gateUntil && t >= this.nextStartAt;
  }

  private start(): void {
    const t = this.now();
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    if (this.spacingMs > 0) this.nextStartAt = Math.max(t, this.nextStartAt) + this.spacingMs;
  }

  /** Starts waiters while slots and time allow; else wakes itself when the time comes. */
  private pump(): void {
    while (this.waitingCount > 0 && this.active < this.allowed) {
      const wait = Math.max(this.gateUntil, this.nextStartAt) - this.now();
      if (wait > 0) {
        this.wakeIn(wait);
        return;
      }
      this.start();
      // The flow whose turn it is sends its oldest waiter, then goes to the back of the turn.
      const flow = this.turn.shift()!;
      const queue = this.queues.get(flow)!;
      const next = queue.shift()!;
      this.waitingCount--;
      if (queue.length > 0) this.turn.push(flow);
      else this.queues.delete(flow);
      next();
    }
  }

  private wakeIn(ms: number): void {
    const at = this.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) this.clearTimer(this.timer);
    this.timerAt = at;
    this.timer = this.setTimer(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.ceil(ms));
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
