/**
 * The pace a run starts with, chosen from the target's round trip (measured by the preflight,
 * free keyless GET /me calls) unless the user set it: on loopback the suite's own work is the
 * limit, and two suites side by side with 8 requests in flight keep a 2-core machine busy; a
 * target further away is waited on, not worked on, so every suite runs side by side and more
 * requests are kept in flight, in proportion to the round trip and within a ceiling a staging
 * server takes. From there the run adapts to what the target answers (src/http/limit.ts): a
 * 429 or a slow answer lowers it.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { ApiClient } from '../http/api.ts';
import { DEFAULT_MAX_IN_FLIGHT } from '../http/limit.ts';

/** Round trips below this (ms) are loopback: the defaults of a near target. */
export const NEAR_MS = 5;
/** Suites side by side on a near target. */
export const NEAR_CONCURRENCY = 2;
/** Requests in flight to a far target: round trip × this, within FAR_MIN..FAR_MAX. */
const PER_MS = 2;
const FAR_MIN = 16;
const FAR_MAX = 128;
/** Clean samples of the round trip after the preflight's call (which paid for the first connection). */
export const ROUND_TRIP_SAMPLES = 2;

export interface PaceChoice {
  roundTripMs: number | null;
  concurrency: number;
  maxInFlight: number;
  chosen: { concurrency: 'measured' | 'set'; maxInFlight: 'measured' | 'set' };
  /** Answers slower than this lower the pace; undefined on loopback (the suite's own waits are the slow part there). */
  slowMs: number | undefined;
}

/**
 * The pace for a round trip of `roundTripMs` (null: unknown, the near defaults) and `suites`
 * suites to run, keeping what the user set.
 */
export function choosePace(roundTripMs: number | null, suites: number, set: { concurrency?: number; maxInFlight?: number } = {}): PaceChoice {
  const far = roundTripMs !== null && roundTripMs >= NEAR_MS;
  const concurrency = set.concurrency ?? (far ? Math.max(NEAR_CONCURRENCY, suites) : NEAR_CONCURRENCY);
  const maxInFlight = set.maxInFlight ?? (far ? Math.min(FAR_MAX, Math.max(FAR_MIN, Math.ceil(roundTripMs * PER_MS))) : DEFAULT_MAX_IN_FLIGHT);
  return {
    roundTripMs,
    concurrency,
    maxInFlight,
    chosen: { concurrency: set.concurrency === undefined ? 'measured' : 'set', maxInFlight: set.maxInFlight === undefined ? 'measured' : 'set' },
    slowMs: far ? Math.max(5_000, 25 * roundTripMs) : undefined,
  };
}

/** Samples tried at most: past it the quickest of those taken stands, clean or not. */
export const ROUND_TRIP_TRIES = 6;

/**
 * The round trip: the quickest of ROUND_TRIP_SAMPLES keyless GET /me (free, part 8) sent one
 * after another, ms; null when one got no answer. The quickest, not the median: a busy machine
 * delays some answers, never speeds one up, so the least is the distance and a loaded loopback
 * still reads as near. A sample during which this thread was busy for more than a little of it
 * (what it had just loaded still settling, a garbage collection) is not the target's distance:
 * it is taken again, up to ROUND_TRIP_TRIES in all. One clean sample under NEAR_MS is enough.
 */
export async function measureRoundTrip(api: ApiClient, thread: ThreadMeter = eventLoopMeter): Promise<number | null> {
  const clean: number[] = [];
  const all: number[] = [];
  for (let i = 0; i < ROUND_TRIP_TRIES && clean.length < ROUND_TRIP_SAMPLES; i++) {
    const before = thread.mark();
    const ex = await api.send({ method: 'GET', path: '/me', key: null, retry429: false });
    const busy = thread.busySince(before);
    if (!ex.response) return null;
    all.push(ex.durationMs);
    if (busy > BUSY_ALLOWANCE_MS + BUSY_SHARE * ex.durationMs) continue;
    clean.push(ex.durationMs);
    // Near, or so far that a second sample changes nothing: the pace is decided.
    if (ex.durationMs < NEAR_MS || ex.durationMs >= FAR_MAX / PER_MS) break;
  }
  return Math.min(...(clean.length > 0 ? clean : all));
}

/** How long this thread was busy (not waiting for I/O) since a mark, in ms; tests give their own. */
export interface ThreadMeter {
  mark(): unknown;
  busySince(mark: unknown): number;
}

/** The event loop's own account (its utilisation: time not spent waiting for I/O). */
export const eventLoopMeter: ThreadMeter = {
  mark: () => performance.eventLoopUtilization(),
  busySince: (mark) => performance.eventLoopUtilization(mark as EventLoopUtilization).active,
};

/** What a sample's own work may keep this thread busy for (ms), and the share of the sample beyond it. */
const BUSY_ALLOWANCE_MS = 2;
const BUSY_SHARE = 0.1;

/** The pace in one line, printed with the credit plan. */
export function describePace(p: PaceChoice): string {
  const rtt = p.roundTripMs === null ? 'round trip not measured' : `round trip ${p.roundTripMs.toFixed(1)} ms`;
  const how = (w: 'measured' | 'set'): string => (w === 'set' ? 'set' : 'from the round trip');
  return `pace: ${rtt}; ${p.concurrency} suites side by side (${how(p.chosen.concurrency)}), up to ${p.maxInFlight} requests in flight (${how(p.chosen.maxInFlight)}), lowered on 429s${p.slowMs !== undefined ? ` and answers slower than ${(p.slowMs / 1000).toFixed(1)} s` : ''}`;
}
