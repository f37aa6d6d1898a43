/**
 * The milestones of a `wgc run` and the observer that sees them (used by `wgc bench` to tell
 * where the time goes). In the engine so that the command that runs and the benchmark that
 * times it both speak it, the benchmark without importing the command.
 */
import type { VitestRun } from './launch.ts';

/**
 * Milestones of a run. `vitestLaunched` (vitest started its worker) comes before `targetOpen`
 * against the embedded reference and after `preflightDone`'s requests against a remote target;
 * the others come in this order. `workerAdopted`: vitest's pool took the worker thread the run
 * started before vitest (src/engine/prewarm.ts); absent when it started one of its own.
 * `suitesOutlined`: the run took the suites' outline and plan from that thread
 * (src/engine/outline.ts) instead of loading the definitions itself.
 */
export type RunPhase = 'configured' | 'vitestLaunched' | 'workerAdopted' | 'suitesOutlined' | 'targetOpen' | 'preflightDone' | 'suitesLoaded' | 'vitestStart' | 'vitestDone' | 'reported';

/** Optional observer of a run; it sees figures, never changes the run. */
export interface RunObserver {
  /** Called as each milestone is reached. */
  phase?(name: RunPhase): void;
  /** Called once vitest has finished, with its raw results (sessions, per-file timings). */
  vitest?(run: VitestRun): void;
  /**
   * Ends the process when a run cut short must not wait for its suites any longer (a second
   * signal, or the grace period spent with the suites still running). Default: process.exit.
   */
  exit?(code: number): void;
}
