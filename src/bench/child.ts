/**
 * One timed run as the benchmark measures it: `wgc run` exactly as a user starts it (same
 * command module, vitest workers, embedded reference), in a process of its own, with an
 * observer that notes when each phase ended and what vitest reported per file and session.
 * The process writes those figures, with its own CPU time and peak RSS, to a JSON file.
 */
import { writeFileSync } from 'node:fs';
import type { FileTiming } from '../engine/launch.ts';
import type { SessionSummary } from '../engine/session.ts';
import type { RunObserver, RunPhase } from '../engine/phases.ts';

/** `wgc run` itself (cli/run.ts runCommand), loaded by a function the command that starts the child hands in. */
export type RunCommand = (argv: string[], env: NodeJS.ProcessEnv, io: { out(t: string): void; err(t: string): void; isTTY?: boolean }, observer: RunObserver) => Promise<number>;

/** What the run process reports about itself (see TimedRun for what the parent adds). */
export interface ChildReport {
  exitCode: number;
  /** Epoch ms when the process started (performance.timeOrigin) and when each phase ended. */
  processStart: number;
  phases: Partial<Record<RunPhase | 'commandStart', number>>;
  files: FileTiming[];
  sessions: SessionSummary[];
  /** process.resourceUsage() at the end: CPU (µs) of every thread, peak RSS (kB) of the process. */
  cpuUserUs: number;
  cpuSystemUs: number;
  maxRssKb: number;
  /** The run's stderr and stdout, for the parent to show when the run did not work. */
  output: string;
}

/** Runs `wgc run <runArgs>` in this process and writes the ChildReport to `resultFile`. */
export async function runTimedChild(resultFile: string, runArgs: string[], env: NodeJS.ProcessEnv, loadCommand: () => Promise<RunCommand>): Promise<number> {
  const commandStart = Date.now();
  // Loaded here, after commandStart: importing the command is part of the run's time.
  const runCommand = await loadCommand();
  const phases: ChildReport['phases'] = { commandStart };
  let files: FileTiming[] = [];
  let sessions: SessionSummary[] = [];
  let output = '';
  const keep = (t: string): void => {
    output = (output + t).slice(-20_000);
  };
  const exitCode = await runCommand(
    runArgs,
    env,
    { out: keep, err: keep, isTTY: false },
    {
      phase: (name) => (phases[name] = Date.now()),
      vitest: (vt) => {
        files = vt.files;
        sessions = vt.sessions;
      },
    },
  );
  const usage = process.resourceUsage();
  const report: ChildReport = {
    exitCode,
    processStart: Math.round(performance.timeOrigin),
    phases,
    files,
    sessions,
    cpuUserUs: usage.userCPUTime,
    cpuSystemUs: usage.systemCPUTime,
    maxRssKb: usage.maxRSS,
    output,
  };
  writeFileSync(resultFile, JSON.stringify(report));
  return exitCode;
}
