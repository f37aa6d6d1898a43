/** Which suite files one shard of a run runs (--shard). */

/**
 * The files of one shard: the selected suite files in the order given, every `count`-th from
 * position `index` - 1 (shard 1/2 takes the 1st, 3rd, ...). Shards split by suite, never inside one.
 */
export function shardFiles<T>(files: readonly T[], shard: { index: number; count: number } | undefined): T[] {
  if (!shard) return [...files];
  return files.filter((_, i) => i % shard.count === shard.index - 1);
}
