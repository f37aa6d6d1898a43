/**
 * Independent requests of one check sent together (pipelined) instead of one after another, so
 * a target far away costs one round trip per batch rather than one per request. The run-wide
 * --max-in-flight bound still applies (src/http/limit.ts). Only for requests whose order the
 * target cannot observe: never idempotency replays, rate limits, or anything that counts a
 * shared listing; ledger measurements only through ctx.ledger.expectFreeEach (sweeps of free
 * calls, sent again one at a time when anything was charged).
 */

/** How many of a check's independent requests are in flight at once (the run's bound caps the total). */
export const CHECK_PARALLEL = 8;

/**
 * For many independent requests of one kind (a sweep of free calls, seeding, the cases of a
 * property trial): a far target then costs a wave or two, not one per CHECK_PARALLEL. The run's
 * --max-in-flight still bounds what reaches the target (8 by default).
 */
export const WIDE_PARALLEL = 32;

export { inParallel } from '../../src/engine/parallel.ts';
