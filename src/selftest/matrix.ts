/**
 * Builds the kill matrix from the run summaries (pure): each fault's row against the
 * conformant baseline, the kill rate, and the coverage gap between the catalog, the faults and
 * the clauses the checks name.
 */
import { isObservable, type Catalog } from '../catalog/load.ts';
import type { FaultDef } from '../reference/faults.ts';
import { CATCH_POLICY, KILL_MATRIX_VERSION, type ConformantRow, type CoverageGap, type FaultRow, type KillMatrix, type MissedClause, type TargetRunSummary } from './model.ts';
import type { SuiteOutline } from './protocol.ts';

/** Check ids naming each clause, over every suite. */
export function checksByClause(suites: readonly SuiteOutline[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const s of suites) for (const c of s.checks) for (const id of c.clauses) by.set(id, [...(by.get(id) ?? []), c.id]);
  return by;
}

/** What the faults and the checks leave uncovered. `faults` is every fault, not only the ones run. */
export function coverageGap(catalog: Catalog, faults: readonly FaultDef[], suites: readonly SuiteOutline[]): CoverageGap {
  const named = checksByClause(suites);
  const planted = new Set(faults.flatMap((f) => f.clauses));
  const mustObservable = catalog.clauses.filter((c) => c.level === 'MUST' && isObservable(c));
  const pairs = faults.flatMap((f) => f.clauses.map((clause) => ({ fault: f.name, clause })));
  return {
    mustClausesWithoutFault: mustObservable.filter((c) => !planted.has(c.id)).map((c) => c.id),
    faultClausesNoCheckNames: pairs.filter((p) => catalog.byId.has(p.clause) && !named.has(p.clause)),
    faultClausesNotInCatalog: pairs.filter((p) => !catalog.byId.has(p.clause)),
    mustClausesNoCheckNames: mustObservable.filter((c) => !named.has(c.id)).map((c) => c.id),
  };
}

/** The conformant row: nothing may fail or break, and every clause a check names must pass. */
export function conformantRow(run: TargetRunSummary): ConformantRow {
  const verified = Object.keys(run.outcomes).filter((id) => run.outcomes[id] === 'passed');
  const notVerified = Object.keys(run.outcomes)
    .filter((id) => run.outcomes[id] !== 'passed' && run.outcomes[id] !== 'failed')
    .map((id) => ({ clause: id, outcome: run.outcomes[id]!, ...(run.reasons[id] !== undefined ? { reason: run.reasons[id] } : {}) }));
  const clean = run.failures.length === 0 && run.harnessErrors.length === 0 && run.runErrors.length === 0 && notVerified.length === 0 && verified.length > 0;
  return { clean, failures: run.failures, harnessErrors: run.harnessErrors, runErrors: run.runErrors, verified, notVerified, durationMs: run.durationMs, cpuMs: run.cpuMs, requests: run.requests };
}

/** One fault's row: declared vs failed, against the clauses that failed on the conformant reference. */
export function faultRow(fault: FaultDef, run: TargetRunSummary, baselineFailed: ReadonlySet<string>, named: ReadonlyMap<string, string[]>): FaultRow {
  const failed = run.failures.map((f) => f.clause);
  const failedSet = new Set(failed);
  const declared = [...fault.clauses];
  const missed: MissedClause[] = declared
    .filter((id) => !failedSet.has(id))
    .map((id) => {
      const namedBy = named.get(id) ?? [];
      const m: MissedClause = { clause: id, outcome: namedBy.length === 0 ? 'unchecked' : (run.outcomes[id] ?? 'noResult'), namedBy };
      const reason = run.reasons[id];
      if (reason !== undefined) m.reason = reason;
      return m;
    });
  return {
    fault: fault.name,
    family: fault.family ?? 'named',
    description: fault.description,
    declared,
    failed,
    caught: missed.length === 0,
    detected: missed.length < declared.length,
    missed,
    extras: failed.filter((id) => !declared.includes(id) && !baselineFailed.has(id)),
    failures: run.failures,
    harnessErrors: run.harnessErrors,
    runErrors: run.runErrors,
    durationMs: run.durationMs,
    cpuMs: run.cpuMs,
    requests: run.requests,
  };
}

export interface MatrixInput {
  catalog: Catalog;
  /** Every fault the reference knows (for the coverage gap). */
  allFaults: readonly FaultDef[];
  /** The faults that were run, in order, with their summaries. */
  runs: readonly { fault: FaultDef; summary: TargetRunSummary }[];
  /** Generated faults that were not run because no client can observe them, with the reason. */
  unobservable?: readonly { fault: FaultDef; reason: string }[];
  conformant: TargetRunSummary;
  suites: readonly SuiteOutline[];
  seed: number;
  numRuns: number;
  concurrency: number;
  totalMs: number;
  generatedAt: string;
}

/** The kill matrix of one self-test. */
export function buildKillMatrix(input: MatrixInput): KillMatrix {
  const named = checksByClause(input.suites);
  const conformant = conformantRow(input.conformant);
  const baselineFailed = new Set(conformant.failures.map((f) => f.clause));
  const faults = input.runs.map((r) => faultRow(r.fault, r.summary, baselineFailed, named));
  const caught = faults.filter((f) => f.caught).length;
  const times = faults.map((f) => f.durationMs);
  return {
    version: KILL_MATRIX_VERSION,
    policy: CATCH_POLICY,
    generatedAt: input.generatedAt,
    seed: input.seed,
    numRuns: input.numRuns,
    concurrency: input.concurrency,
    catalogHash: input.catalog.hash,
    suites: input.suites.map((s) => ({ name: s.name, checks: s.checks.length })),
    conformant,
    faults,
    killRate: { caught, total: faults.length, rate: faults.length === 0 ? 1 : caught / faults.length },
    families: familyRates(faults),
    unobservable: (input.unobservable ?? []).map((u) => ({ fault: u.fault.name, family: u.fault.family ?? 'named', reason: u.reason })),
    escapes: faults.filter((f) => !f.caught).map((f) => f.fault),
    coverageGap: coverageGap(input.catalog, input.allFaults, input.suites),
    timing: {
      totalMs: input.totalMs,
      conformantMs: conformant.durationMs,
      faultMedianMs: median(times),
      faultMaxMs: Math.max(0, ...times),
      cpuMs: conformant.cpuMs + faults.reduce((s, f) => s + f.cpuMs, 0),
    },
    ok: conformant.clean && caught === faults.length,
  };
}

/** The kill rate per family, in the order the families first appear. */
function familyRates(faults: readonly FaultRow[]): KillMatrix['families'] {
  const names = [...new Set(faults.map((f) => f.family))];
  return names.map((family) => {
    const rows = faults.filter((f) => f.family === family);
    const caught = rows.filter((f) => f.caught).length;
    return { family, caught, total: rows.length, rate: rows.length === 0 ? 1 : caught / rows.length };
  });
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}
