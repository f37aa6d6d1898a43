/**
 * Merges shard partials into the report an unsharded run would have produced: the check
 * results are simply pooled (the builder orders them), and the run facts are combined —
 * only timing and shard fields can differ from an unsharded run.
 */
import type { Catalog } from '../catalog/load.ts';
import type { RunResult } from './model.ts';
import type { RunMetaInput } from './meta.ts';
import type { ShardPartial } from './partial.ts';
import { buildRunResult } from './build.ts';

/** The partials do not belong together (or are incomplete); the message says why. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

/** Facts every shard of one run must agree on. */
const SAME: readonly (keyof RunMetaInput)[] = ['specHash', 'targetBaseUrl', 'control', 'seed', 'creditPlan'];

/**
 * One RunResult from the partials of every shard of a run. Throws MergeError when shards are
 * missing or duplicated, or when partials disagree on catalog, spec, target, control, seed
 * or credit plan. Per-shard facts (requests, credits charged, run errors) are summed or pooled.
 */
export function mergePartials(partials: readonly ShardPartial[], catalog: Catalog): RunResult {
  if (partials.length === 0) throw new MergeError('no partials to merge');
  const sorted = [...partials].sort((a, b) => a.shard.index - b.shard.index);
  const first = sorted[0]!;
  const count = first.shard.count;
  const seen = new Set<number>();
  for (const p of sorted) {
    const at = `shard ${p.shard.index} of ${p.shard.count}`;
    if (p.shard.count !== count) throw new MergeError(`${at}: shard count differs from shard ${first.shard.index}'s (${count})`);
    if (seen.has(p.shard.index)) throw new MergeError(`${at}: given twice`);
    seen.add(p.shard.index);
    if (p.catalogHash !== catalog.hash) {
      throw new MergeError(`${at}: ran against a different clause catalog (sha256 ${p.catalogHash}, this catalog is ${catalog.hash})`);
    }
    for (const key of SAME) {
      if (JSON.stringify(p.meta[key]) !== JSON.stringify(first.meta[key])) {
        throw new MergeError(`${at}: ${key} ${JSON.stringify(p.meta[key])} differs from shard ${first.shard.index}'s ${JSON.stringify(first.meta[key])}`);
      }
    }
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new MergeError(`missing shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count}`);

  const results = sorted.flatMap((p) => p.results);
  const start = Math.min(...sorted.map((p) => Date.parse(p.meta.startedAt)));
  const end = Math.max(...sorted.map((p) => Date.parse(p.meta.startedAt) + p.meta.durationMs));
  const charged = sorted.map((p) => p.meta.creditsCharged);
  const meta: RunMetaInput = {
    ...first.meta,
    startedAt: new Date(start).toISOString(),
    durationMs: Math.max(0, end - start),
    requests: sorted.reduce((n, p) => n + (p.meta.requests ?? p.results.reduce((m, r) => m + r.requests, 0)), 0),
    creditsCharged: charged.every((c) => c !== null) ? charged.reduce<number>((n, c) => n + (c ?? 0), 0) : null,
    // The credit plan is run-wide and static (src/engine/credits.ts): every shard holds the same one.
    creditPlan: first.meta.creditPlan,
    shard: null,
    runErrors: [...new Set(sorted.flatMap((p) => p.meta.runErrors ?? []))],
    disabledClauses: Object.assign({}, ...sorted.map((p) => p.meta.disabledClauses ?? {})) as Record<string, string>,
  };
  const result = buildRunResult(results, catalog, meta);
  result.meta.mergedShards = sorted.length;
  return result;
}
