/**
 * Every suite run in-process against one reference variant (the same sessions and checks as
 * `wgc run`, with the self-test's seed and property size), and the comparisons the variant
 * tests make between a conformant variant and the default: failed clauses, harness errors,
 * verified clauses, per-check outcomes. Shared by test/reference/alternative.test.ts, which
 * runs the variants side by side.
 */
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '../../src/catalog/load.ts';
import type { CheckResult } from '../../src/engine/check.ts';
import { controlledRunContext } from '../../src/engine/context.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';
import { runSuitesInProcess } from '../../src/engine/run.ts';
import { startReference, type VariantName } from '../../src/reference/index.ts';
import { buildRunResult } from '../../src/report/build.ts';
import { DEFAULT_SPEC_PATH, hashFile } from '../../src/report/meta.ts';
import type { ClauseEntry } from '../../src/report/model.ts';

const SUITES_DIR = fileURLToPath(new URL('../../suites/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The self-test's seed and property size: the same generated cases run after run. */
const SEED = 20_240_611;
const NUM_RUNS = 10;
/** Suites side by side within one run (checks wait on polls and ledger settling). */
const SUITE_CONCURRENCY = 4;

/**
 * The ambient ERR-001/ERR-002 (every error answer's envelope) are left out of the per-check
 * comparison: which checks meet a refusal depends on the reading (e.g. the alternative answers
 * 200 where the default refuses with 409), and the errors suite verifies both clauses on its own.
 */
const AMBIENT = new Set(['ERR-001', 'ERR-002']);

export interface VariantRun {
  variant: VariantName;
  clauses: ClauseEntry[];
  checks: CheckResult[];
  runErrors: string[];
  durationMs: number;
  requests: number;
}

/** How a variant is run: `patience` multiplies the suites' waits for asynchronous effects (--patience). */
export interface RunOptions {
  patience?: number;
}

/** Every suite against a fresh reference of `variant`. */
export async function runAgainst(variant: VariantName, opts: RunOptions = {}): Promise<VariantRun> {
  const catalog = loadCatalog();
  const suites = await loadSuiteDefs(await discoverSuites(SUITES_DIR), ROOT);
  const started = Date.now();
  const ref = await startReference({ variant });
  try {
    const run = { ...controlledRunContext(ref, { seed: SEED, numRuns: NUM_RUNS, timeoutMs: 20_000 }), ...(opts.patience !== undefined ? { patience: opts.patience } : {}) };
    const out = await runSuitesInProcess(suites, run, { concurrency: SUITE_CONCURRENCY });
    const result = buildRunResult(out.results, catalog, {
      specHash: hashFile(DEFAULT_SPEC_PATH),
      targetBaseUrl: ref.baseUrl,
      control: true,
      config: { variant },
      seed: SEED,
      startedAt: new Date(started).toISOString(),
      durationMs: out.durationMs,
      requests: out.requests,
      creditsCharged: out.creditsCharged,
      runErrors: out.runErrors,
    });
    return {
      variant,
      clauses: result.clauses.filter((c) => c.observable && c.checks.length > 0),
      checks: out.results,
      runErrors: [...result.meta.runErrors],
      durationMs: Date.now() - started,
      requests: out.requests,
    };
  } finally {
    await ref.close();
  }
}

/** One line per clause: outcome, the checks that did not pass, the first evidence or reason. */
export function table(r: VariantRun): string {
  const lines = r.clauses.map((c) => {
    const checks = c.checks.filter((k) => k.outcome !== 'passed').map((k) => `${k.checkId}: ${k.outcome}`);
    const why = c.evidence[0]?.message ?? c.reason ?? '';
    return `${c.id.padEnd(10)} ${c.outcome.padEnd(13)} ${checks.join(', ')}${why ? ` — ${why.replace(/\s+/g, ' ').slice(0, 300)}` : ''}`;
  });
  return `${r.variant} (${r.durationMs} ms, ${r.requests} requests):\n${lines.join('\n')}`;
}

/** The clauses failed against the variant. */
export const failedClauses = (r: VariantRun): string[] => r.clauses.filter((c) => c.outcome === 'failed').map((c) => c.id);

/** Checks with a harness error ("checkId: reason"), then the run's own errors. */
export function harnessErrors(r: VariantRun): string[] {
  const harness = r.checks.filter((c) => Object.values(c.clauses).includes('harnessError')).map((c) => `${c.checkId}: ${c.reason ?? 'no reason given'}`);
  return [...harness, ...r.runErrors];
}

const verified = (r: VariantRun): Set<string> => new Set(r.clauses.filter((c) => c.outcome === 'passed').map((c) => c.id));

/**
 * Clauses verified against the default but not against the variant (`lost`, less the allowed
 * ones) and the reverse (`gained`); `stale` names allowances no longer needed.
 */
export function verifiedDifference(def: VariantRun, other: VariantRun, allowed: Readonly<Record<string, string>>): { lost: string[]; gained: string[]; stale: string[] } {
  const onDefault = verified(def);
  const onOther = verified(other);
  return {
    lost: [...onDefault].filter((id) => !onOther.has(id) && !(id in allowed)).sort(),
    gained: [...onOther].filter((id) => !onDefault.has(id)).sort(),
    stale: Object.keys(allowed).filter((id) => onOther.has(id) || !onDefault.has(id)),
  };
}

/** "checkId clause → outcome" for every clause a check spoke of, ambient envelope clauses left out. */
function checkOutcomes(r: VariantRun): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of r.checks)
    for (const [clause, outcome] of Object.entries(c.clauses))
      if (!AMBIENT.has(clause)) out.set(`${c.checkId} ${clause}`, `${outcome}${c.reason ? ` (${c.reason.replace(/\s+/g, ' ').slice(0, 200)})` : ''}`);
  return out;
}

/** Checks whose outcome for a clause differs between the default and the variant, but for the expected ("checkId clause"). */
export function checkDifferences(def: VariantRun, other: VariantRun, expected: ReadonlySet<string>): string[] {
  const a = checkOutcomes(def);
  const b = checkOutcomes(other);
  return [...new Set([...a.keys(), ...b.keys()])]
    .filter((k) => (a.get(k)?.split(' ')[0] ?? 'absent') !== (b.get(k)?.split(' ')[0] ?? 'absent') && !expected.has(k))
    .sort()
    .map((k) => `${k}: default ${a.get(k) ?? 'absent'} → ${other.variant} ${b.get(k) ?? 'absent'}`);
}
