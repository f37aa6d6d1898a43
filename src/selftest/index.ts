/**
 * The fault self-test: runs every suite against the conformant reference and against the
 * reference with each named fault (one fresh server per run), and builds the kill matrix:
 * which faults the suites catch, what they fail besides, and what nothing can catch.
 * See docs/self-test.md.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '../catalog/load.ts';
import { FAULTS, resolveFaults, type FaultDef } from '../reference/faults.ts';
import { familyFaults, suitesFor, type Family } from './families.ts';
import { buildKillMatrix } from './matrix.ts';
import { AMBIENT_ENVELOPE } from '../engine/ambient.ts';

const AMBIENT_CLAUSES: ReadonlySet<string> = new Set(Object.values(AMBIENT_ENVELOPE));
import type { KillMatrix, TargetRunSummary } from './model.ts';
import { runPool, WORKER_MODE_DEFAULT, type Job, type WorkerMode } from './pool.ts';

export { SelfTestSetupError, WORKER_MODES, type WorkerMode } from './pool.ts';
export type * from './model.ts';

/** The fixed seed: the self-test must give the same matrix run after run. */
export const SELFTEST_SEED = 20_240_611;

/**
 * Generated cases per property (`wgc run` uses 25). Measured on one snapshot of the suites
 * (docs/self-test.md): 25, 10 and 5 runs catch the same faults; 10 costs 14% less CPU than 25
 * and finds the same failures except two side effects (extras), 5 loses four. Raise it if a
 * fault is ever caught only with more runs.
 */
export const SELFTEST_NUM_RUNS = 10;

/**
 * Suites run one after the other within one fault run. Side by side they would share the
 * worker's event loop, and a suite's CPU-heavy step could eat another's time budgets (polls,
 * ledger settling, request timeouts): a false finding. The waits are filled by the other workers.
 */
export const SELFTEST_SUITE_CONCURRENCY = 1;

/**
 * Per-request time limit. The reference is local and answers at once; a slow answer only
 * means a loaded host, which must not turn into a finding.
 */
export const SELFTEST_REQUEST_TIMEOUT_MS = 30_000;

/** A single run taking longer than this is killed and reported as a harness error. */
export const SELFTEST_JOB_TIMEOUT_MS = 240_000;

/**
 * Default workers: one more than the cores. A run waits part of the time (receipt polls,
 * ledger settling) and the extra worker fills those gaps; see docs/self-test.md.
 */
export function defaultWorkers(): number {
  return availableParallelism() + 1;
}

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEFAULT_SUITES_DIR = fileURLToPath(new URL('../../suites/', import.meta.url));

/** One finished run, for progress output. */
export interface SelfTestProgress {
  /** Fault name, or null for the conformant run. */
  fault: string | null;
  /** caught / escaped for faults; clean / unclean for the conformant run. */
  status: 'caught' | 'escaped' | 'clean' | 'unclean';
  done: number;
  total: number;
  durationMs: number;
}

export interface SelfTestOptions {
  /** Fault names to run (default: every fault of the families). Unknown names reject. */
  faults?: readonly string[];
  /** Fault families to run (default: all, FAMILIES); names of generated faults may be given in `faults` too. */
  families?: readonly Family[];
  /**
   * Every n-th fault of each generated family (default 1: all). The named faults always run
   * in full; `npm test` samples the generated families to stay fast.
   */
  sampleEvery?: number;
  /** Workers (processes) running faults side by side. Default: defaultWorkers(). */
  concurrency?: number;
  numRuns?: number;
  seed?: number;
  onProgress?: (p: SelfTestProgress) => void;
  /** Default: suites/ of this checkout. */
  suitesDir?: string;
  /** Default: WORKER_MODE_DEFAULT. */
  mode?: WorkerMode;
  suiteConcurrency?: number;
  jobTimeoutMs?: number;
  /**
   * A fault runs only the checks that name one of its declared clauses (the only checks that
   * can fail them: a check failing a clause it does not name is a harness error), the others
   * disabled as by --check, in the suites holding them (a generated fault: in its family's
   * suites): the same kills, fewer extras seen. A fault declaring an error-envelope clause,
   * which every check judges, runs every check. For `npm test`; `wgc selftest` runs all.
   */
  narrowNamed?: boolean;
  /**
   * Only these suites run, for every job (the conformant run too), against the faults whose
   * declared clauses their checks all name: what those suites catch alone (`wgc selftest
   * --suite`). An unknown suite name rejects.
   */
  onlySuites?: readonly string[];
}

/** Per clause, the checks that name it, with their suites. */
async function checksByClause(dir: string): Promise<Map<string, { suite: string; check: string }[]>> {
  const { discoverSuites, loadSuiteDefs } = await import('../engine/discover.ts');
  const defs = await loadSuiteDefs(await discoverSuites(dir), PACKAGE_ROOT);
  const map = new Map<string, { suite: string; check: string }[]>();
  for (const d of defs) for (const c of d.checks) for (const id of c.clauses) map.set(id, [...(map.get(id) ?? []), { suite: d.name, check: c.id }]);
  return map;
}

/** Every clause the checks of the named suites name; an unknown name rejects. */
async function clausesOfSuites(dir: string, names: readonly string[]): Promise<Set<string>> {
  const { discoverSuites, loadSuiteDefs } = await import('../engine/discover.ts');
  const defs = await loadSuiteDefs(await discoverSuites(dir), PACKAGE_ROOT);
  const unknown = names.filter((n) => !defs.some((d) => d.name === n));
  if (unknown.length > 0) throw new Error(`unknown suite ${unknown.join(', ')}; suites: ${defs.map((d) => d.name).join(', ')}`);
  return new Set(defs.filter((d) => names.includes(d.name)).flatMap((d) => d.checks.flatMap((c) => c.clauses)));
}

/** Runs the self-test and returns its kill matrix. Rejects on unknown fault names or unloadable suites. */
export async function runSelfTest(opts: SelfTestOptions = {}): Promise<KillMatrix> {
  const started = Date.now();
  const catalog = loadCatalog();
  const all = await familyFaults(FAULTS, opts.families);
  const only = opts.onlySuites ? await clausesOfSuites(opts.suitesDir ?? DEFAULT_SUITES_DIR, opts.onlySuites) : undefined;
  const inArea = (f: FaultDef): boolean => only === undefined || f.clauses.every((c) => only.has(c));
  const chosen = sample(selectFaults(opts.faults, all), opts.sampleEvery ?? 1).filter(inArea);
  const unobservable = chosen.flatMap((f) => (f.unobservable ? [{ fault: f, reason: f.unobservable }] : []));
  const selected = chosen.filter((f) => !f.unobservable);
  const seed = opts.seed ?? SELFTEST_SEED;
  const numRuns = opts.numRuns ?? SELFTEST_NUM_RUNS;
  const concurrency = Math.max(1, opts.concurrency ?? defaultWorkers());
  // The conformant run goes first: every row is judged against it. A generated fault runs only
  // the suites that can catch it (suitesFor).
  const byClause = opts.narrowNamed ? await checksByClause(opts.suitesDir ?? DEFAULT_SUITES_DIR) : undefined;
  const narrowed = (f: FaultDef): Pick<Job, 'suites' | 'checks'> => {
    const own = suitesFor(f);
    // Error envelopes are judged on every error any check provokes (src/engine/ambient.ts): a
    // fault declaring one of those clauses may be caught by any check.
    if (!byClause || f.clauses.some((c) => AMBIENT_CLAUSES.has(c))) return own ? { suites: own } : {};
    const naming = f.clauses.flatMap((c) => byClause.get(c) ?? []).filter((n) => own === undefined || own.includes(n.suite));
    if (naming.length === 0) return own ? { suites: own } : {};
    return { suites: [...new Set(naming.map((n) => n.suite))].sort(), checks: [...new Set(naming.map((n) => n.check))].sort() };
  };
  const scopeOf = (f: FaultDef): Pick<Job, 'suites' | 'checks'> => (opts.onlySuites ? { suites: [...opts.onlySuites] } : narrowed(f));
  const jobs: Job[] = [{ faults: [], ...(opts.onlySuites ? { suites: [...opts.onlySuites] } : {}) }, ...selected.map((f) => ({ faults: [f.name], ...scopeOf(f) }))];
  let done = 0;
  const { summaries, suites } = await runPool(jobs, {
    workers: concurrency,
    mode: opts.mode ?? WORKER_MODE_DEFAULT,
    jobTimeoutMs: opts.jobTimeoutMs ?? SELFTEST_JOB_TIMEOUT_MS,
    init: {
      suitesDir: opts.suitesDir ?? DEFAULT_SUITES_DIR,
      root: PACKAGE_ROOT,
      seed,
      numRuns,
      suiteConcurrency: opts.suiteConcurrency ?? SELFTEST_SUITE_CONCURRENCY,
      timeoutMs: SELFTEST_REQUEST_TIMEOUT_MS,
    },
    onResult: (job, summary) => opts.onProgress?.(progressOf(job, summary, selected, ++done, jobs.length)),
  });
  return buildKillMatrix({
    catalog,
    allFaults: FAULTS,
    runs: selected.map((fault, i) => ({ fault, summary: summaries[i + 1]! })),
    unobservable,
    conformant: summaries[0]!,
    suites,
    seed,
    numRuns,
    concurrency,
    totalMs: Date.now() - started,
    generatedAt: new Date(started).toISOString(),
  });
}

/** The named faults of `pool` in its order; all of them when none are named. */
export function selectFaults(names: readonly string[] | undefined, pool: readonly FaultDef[] = FAULTS): FaultDef[] {
  if (!names || names.length === 0) return [...pool];
  resolveFaults(names); // throws naming the unknown ones and listing the valid ones
  const wanted = new Set(names);
  const missing = names.filter((n) => !pool.some((f) => f.name === n));
  if (missing.length > 0) throw new Error(`fault${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')} not in the families selected`);
  return pool.filter((f) => wanted.has(f.name));
}

/** Every n-th fault of each generated family, all named faults. */
function sample(faults: readonly FaultDef[], every: number): FaultDef[] {
  if (every <= 1) return [...faults];
  const seen = new Map<string, number>();
  return faults.filter((f) => {
    if (!f.family) return true;
    const i = seen.get(f.family) ?? 0;
    seen.set(f.family, i + 1);
    return i % every === 0;
  });
}

function progressOf(job: Job, summary: TargetRunSummary, selected: readonly FaultDef[], done: number, total: number): SelfTestProgress {
  const name = job.faults[0];
  if (name === undefined) {
    const clean = summary.failures.length === 0 && summary.harnessErrors.length === 0 && summary.runErrors.length === 0;
    return { fault: null, status: clean ? 'clean' : 'unclean', done, total, durationMs: summary.durationMs };
  }
  const declared = selected.find((f) => f.name === name)?.clauses ?? [];
  const failed = new Set(summary.failures.map((f) => f.clause));
  return { fault: name, status: declared.every((c) => failed.has(c)) ? 'caught' : 'escaped', done, total, durationMs: summary.durationMs };
}
