/**
 * Independent work of one check run together instead of one item after another, so a target far
 * away costs one round trip per wave rather than one per item. The run-wide --max-in-flight
 * bound still applies to every request (src/http/limit.ts). Checks reach it through
 * suites/_shared/parallel.ts; the ledger service uses it for sweeps of free calls (ledger.ts).
 */

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
