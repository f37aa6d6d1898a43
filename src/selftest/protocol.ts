/**
 * Messages between the self-test's pool and its workers (child processes or worker threads).
 * Everything is JSON-serialisable; the workers send back summaries, never raw exchanges.
 */
import type { TargetRunSummary } from './model.ts';

/** What a worker needs to load the suites once and run jobs. */
export interface WorkerInit {
  /** Folder of the suites (discover.ts layout). */
  suitesDir: string;
  /** Root for error messages naming suite files. */
  root: string;
  seed: number;
  numRuns: number;
  suiteConcurrency: number;
  timeoutMs?: number;
}

/** A suite as the pool sees it: names only, for the coverage gap. */
export interface SuiteOutline {
  name: string;
  checks: { id: string; clauses: string[] }[];
}

export type ToWorker = { type: 'init'; init: WorkerInit } | { type: 'run'; id: number; faults: string[]; suites?: string[]; checks?: string[] } | { type: 'exit' };

export type FromWorker =
  | { type: 'ready'; suites: SuiteOutline[] }
  /** Init failed (suites could not be loaded): fatal for the whole self-test. */
  | { type: 'initFailed'; error: string }
  | { type: 'result'; id: number; summary: TargetRunSummary }
  /** The job threw before it could be summarised (e.g. the reference did not start). */
  | { type: 'jobFailed'; id: number; error: string };
