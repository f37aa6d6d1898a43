/**
 * Independent requests of one check sent together (pipelined) instead of one after another, so
 * a target far away costs one round trip per batch rather than one per request. The run-wide
 * --max-in-flight bound still applies (src/http/limit.ts). Only for requests whose order the
 * target cannot observe: never idempotency replays, ledger measurements, rate limits, or
 * anything that counts a shared listing.
 */

/** How many of a check's independent requests are in flight at once (the run's bound caps the total). */
export const CHECK_PARALLEL = 8;

/**
 * Calls `fn` on every item, at most `n` at a time, and returns the results in input order.
 * Deterministic on failure: once item i throws, no item after i is started; the items before
 * it all finish, and the error of the first failing item in input order is thrown. So the
 * finding a check reports is the one it reported when it went one item at a time.
 */
export async function inParallel<T, R>(items: readonly T[], n: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let failedAt = items.length;
  let error: unknown;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length && i < failedAt; i = next++) {
      try {
        results[i] = await fn(items[i]!, i);
      } catch (e) {
        if (i < failedAt) {
          failedAt = i;
          error = e;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  if (failedAt < items.length) throw error;
  return results;
}
