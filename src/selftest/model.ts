/**
 * The kill matrix: what the fault self-test found. One row per named fault of the reference
 * target (did the suites notice it?), the conformant baseline (did they fail nothing?), the
 * kill rate and the coverage gap. JSON-serialisable; `kill-matrix.json` is this object as is.
 *
 * Bump KILL_MATRIX_VERSION on any change an older reader would misread.
 */
import type { Outcome } from '../engine/outcome.ts';

export const KILL_MATRIX_VERSION = 1;

/**
 * When a fault counts as caught. A fault declares the clauses it breaks; it is caught only
 * when every one of them failed: a fault caught through one clause while its other clause
 * passes means a check cannot see that clause break, which is exactly what the self-test
 * exists to reveal. `detected` on each row records the weaker "at least one".
 */
export const CATCH_POLICY = 'every-declared-clause' as const;

/** One clause that failed in a run, with the checks that failed it and the first finding's message. */
export interface ClauseFailure {
  clause: string;
  /** Check ids whose outcome for this clause was "failed". */
  checks: string[];
  /** The first finding's message (shortened), to tell at a glance what went wrong. */
  message?: string;
}

/** A check that broke (harness error) instead of concluding, with the clauses it names. */
export interface CheckHarnessError {
  check: string;
  /** Clauses the check gave the harness-error outcome. */
  clauses: string[];
  reason: string;
}

/** What one run of every suite against one reference (conformant or with one fault) concluded. */
export interface TargetRunSummary {
  /** Faults switched on (empty: conformant). */
  faults: string[];
  durationMs: number;
  /** CPU time (user + system) of the worker during the run: what the run costs on an idle machine. */
  cpuMs: number;
  requests: number;
  /** Outcome of every observable clause that some check names. */
  outcomes: Record<string, Outcome>;
  /** Reasons of clauses that ended neither passed nor failed (not observable, harness error, disabled). */
  reasons: Record<string, string>;
  failures: ClauseFailure[];
  harnessErrors: CheckHarnessError[];
  /** Problems outside any check: teardown failures, unhandled errors, a crashed or timed-out worker. */
  runErrors: string[];
}

/** A declared clause of a fault that did not fail: what happened to it instead. */
export interface MissedClause {
  clause: string;
  /**
   * Its outcome in the fault run; "unchecked" when no check names it (the fault can never be
   * caught), "noResult" when the run produced no outcomes (see the row's run errors).
   */
  outcome: Outcome | 'unchecked' | 'noResult';
  reason?: string;
  /** Checks that name the clause. */
  namedBy: string[];
}

/** One row of the matrix: one named fault. */
export interface FaultRow {
  fault: string;
  /** "named" for the hand-written faults of src/reference/faults.ts, else the generated family (src/selftest/families.ts). */
  family: string;
  description: string;
  /** Clauses the fault declares it breaks (src/reference/faults.ts). */
  declared: string[];
  /** Every clause that failed under the fault. */
  failed: string[];
  /** Every declared clause failed (CATCH_POLICY). */
  caught: boolean;
  /** At least one declared clause failed. */
  detected: boolean;
  /** Declared clauses that did not fail. */
  missed: MissedClause[];
  /** Failed clauses the fault does not declare and that did not fail on the conformant reference. */
  extras: string[];
  /** Details of every failed clause (checks, first message). */
  failures: ClauseFailure[];
  harnessErrors: CheckHarnessError[];
  runErrors: string[];
  durationMs: number;
  cpuMs: number;
  requests: number;
}

/** The conformant baseline: the reference with no fault. */
export interface ConformantRow {
  /** No failure, no harness error, no run error, every named clause verified. */
  clean: boolean;
  failures: ClauseFailure[];
  harnessErrors: CheckHarnessError[];
  runErrors: string[];
  /** Observable clauses named by a check that passed. */
  verified: string[];
  /** Observable clauses named by a check that did not pass (and did not fail): outcome and reason. */
  notVerified: { clause: string; outcome: Outcome; reason?: string }[];
  durationMs: number;
  cpuMs: number;
  requests: number;
}

/** Clauses the faults and checks leave uncovered. */
export interface CoverageGap {
  /** Observable MUST clauses no fault declares: a violation nobody plants. Should be empty. */
  mustClausesWithoutFault: string[];
  /** Declared clauses no check names: the fault can never be caught through them. */
  faultClausesNoCheckNames: { fault: string; clause: string }[];
  /** Declared clauses the catalog does not hold (a typo in faults.ts). */
  faultClausesNotInCatalog: { fault: string; clause: string }[];
  /** Observable MUST clauses no check names (for information: their faults must escape). */
  mustClausesNoCheckNames: string[];
}

export interface KillMatrix {
  version: typeof KILL_MATRIX_VERSION;
  policy: typeof CATCH_POLICY;
  generatedAt: string;
  seed: number;
  numRuns: number;
  /** Worker processes used. */
  concurrency: number;
  /** sha256 of the clause catalog. */
  catalogHash: string;
  suites: { name: string; checks: number }[];
  conformant: ConformantRow;
  faults: FaultRow[];
  killRate: { caught: number; total: number; rate: number };
  /** The kill rate of each family run. */
  families: { family: string; caught: number; total: number; rate: number }[];
  /** Generated faults no client can observe: listed with the reason, not run, not in the rate. */
  unobservable: { fault: string; family: string; reason: string }[];
  /** Names of faults not caught, in fault order. */
  escapes: string[];
  coverageGap: CoverageGap;
  /**
   * Wall-clock times, and CPU time summed over every run (on a shared machine wall time depends
   * on the load; CPU time is what the runs cost).
   */
  timing: { totalMs: number; conformantMs: number; faultMedianMs: number; faultMaxMs: number; cpuMs: number };
  /** Conformant run clean and every fault caught. */
  ok: boolean;
}
