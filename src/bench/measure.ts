/**
 * The benchmark: one recording pass (each check's real charge, the request list), then per
 * iteration a timed `wgc run` against the embedded reference and two raw replays of the recorded
 * requests, each against a fresh reference: one from a fresh process (the raw limit the run is
 * compared with: its client starts as cold as the run's worker) and one from this process (warm:
 * it has sent the same requests in the recording pass), interleaved so all see the same machine
 * load. The figures are medians over the iterations.
 */
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import type { Config } from '../config/index.ts';
import type { SuiteDef } from '../engine/check.ts';
import { attributeCharges, creditMismatches, overCeiling, type CheckCharge } from './attribute.ts';
import { replayTo, type ReplayResult } from './replay.ts';
import { replayInFreshProcess } from './replay-child.ts';
import { benchControlToken, serveReference } from './server.ts';
import { timedRun, type TimedRun } from './timed-run.ts';

export interface Machine {
  nproc: number;
  cpuModel: string;
  memTotalBytes: number;
  node: string;
  platform: string;
}

/** One iteration's figures for one suite. */
export interface SuiteFigures {
  suite: string;
  /** The suite's session from opening (provisioning) to the end of its teardown, side by side with the other suites. */
  timeMs: number;
  requests: number;
  credits: number | null;
  /** Replaying the suite's recorded requests back to back (fresh process). */
  rawMs: number;
  rawRequests: number;
}

export interface Iteration {
  run: TimedRun;
  /** The raw replay from a fresh process (the raw limit). */
  raw: ReplayResult;
  /** The same replay from the benchmark's own, warm process (for comparison). */
  rawWarm: ReplayResult;
  suites: SuiteFigures[];
}

export interface BenchResult {
  machine: Machine;
  seed: number;
  concurrency: number;
  iterations: Iteration[];
  recording: {
    durationMs: number;
    requests: number;
    /** The plan's exact credits. */
    planned: number;
    /** The plan's ceiling. */
    ceiling: number;
    chargedSuiteWorkspaces: number;
    chargedAll: number;
    /** As the sessions report it (what a run calls "credits charged"). */
    creditsCharged: number | null;
    outsideChecks: Record<string, number>;
    checks: CheckCharge[];
    /** Checks charged other than their exact credits. */
    mismatches: CheckCharge[];
    /** Checks charged more than their ceiling. */
    overCeiling: CheckCharge[];
  };
  /** 1-minute load average before the benchmark and after it. */
  load: [number, number];
}

export interface BenchOptions {
  iterations: number;
  /** Arguments of every timed `wgc run` (seed included; --out is added). */
  runArgs: string[];
  /** The resolved config of those arguments (the recording pass uses it). */
  config: Config;
  suites: readonly SuiteDef[];
  /** Progress lines (no newline). */
  progress?: (line: string) => void;
}

export function machineInfo(): Machine {
  return { nproc: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', memTotalBytes: totalmem(), node: process.version, platform: `${process.platform} ${process.arch}` };
}

/** Runs the benchmark. Throws when a timed run leaves no report. */
export async function runBench(opts: BenchOptions): Promise<BenchResult> {
  const say = opts.progress ?? (() => {});
  const loadStart = loadavg()[0]!;
  const token = benchControlToken();
  const selected = opts.config.suites.length === 0 ? opts.suites : opts.suites.filter((s) => opts.config.suites.includes(s.name));

  say('recording pass: every check alone, ledgers read between checks');
  const { startReference } = await import('../reference/index.ts');
  const { runContextFor } = await import('../engine/context.ts');
  const ref = await startReference({ controlToken: token });
  let recording;
  try {
    recording = await attributeCharges(selected, runContextFor(opts.config, ref));
  } finally {
    await ref.close();
  }
  say(`  ${recording.records.length} requests, ${recording.chargedAll} credits charged, ${(recording.durationMs / 1000).toFixed(1)} s`);

  const replayJob = { timeoutMs: opts.config.timeoutMs, maxResponseBytes: opts.config.maxResponseBytes, concurrency: opts.config.concurrency };
  /** A replay against a fresh reference of its own process (wgc serve), stopped after it. */
  const onFreshReference = async (replay: (origin: string) => Promise<ReplayResult>): Promise<ReplayResult> => {
    const served = await serveReference({ controlToken: token });
    try {
      return await replay(served.origin);
    } finally {
      await served.close();
    }
  };
  const iterations: Iteration[] = [];
  for (let i = 1; i <= opts.iterations; i++) {
    say(`iteration ${i}/${opts.iterations}: wgc run ${opts.runArgs.join(' ')}`);
    const run = await timedRun(opts.runArgs);
    say(`  ${(run.wallMs / 1000).toFixed(1)} s, ${run.report.meta.requests} requests, exit ${run.exitCode}, load ${run.load.map((l) => l.toFixed(1)).join('→')}`);
    const raw = await onFreshReference((origin) => replayInFreshProcess(recording.records, { ...replayJob, origin }));
    say(`  raw replay (fresh process): ${raw.requests} requests in ${(raw.durationMs / 1000).toFixed(2)} s (${raw.sameStatus} answered as recorded)`);
    const rawWarm = await onFreshReference((origin) => replayTo(recording.records, { ...replayJob, origin }));
    say(`  raw replay (this process, warm): ${rawWarm.requests} requests in ${(rawWarm.durationMs / 1000).toFixed(2)} s (${rawWarm.sameStatus} answered as recorded)`);
    iterations.push({ run, raw, rawWarm, suites: suiteFigures(run, raw) });
  }
  return {
    machine: machineInfo(),
    seed: opts.config.seed,
    concurrency: opts.config.concurrency,
    iterations,
    recording: {
      durationMs: recording.durationMs,
      requests: recording.records.length,
      planned: recording.planned,
      ceiling: recording.ceiling,
      chargedSuiteWorkspaces: recording.chargedSuiteWorkspaces,
      chargedAll: recording.chargedAll,
      creditsCharged: recording.creditsCharged,
      outsideChecks: recording.outsideChecks,
      checks: recording.checks,
      mismatches: creditMismatches(recording.checks),
      overCeiling: overCeiling(recording.checks),
    },
    load: [loadStart, loadavg()[0]!],
  };
}

function suiteFigures(run: TimedRun, raw: ReplayResult): SuiteFigures[] {
  const names = new Set([...run.child.sessions.map((s) => s.suite), ...raw.streams.map((s) => s.group)]);
  return [...names].sort().map((suite) => {
    const session = run.child.sessions.find((s) => s.suite === suite);
    const stream = raw.streams.find((s) => s.group === suite);
    return {
      suite,
      timeMs: session?.durationMs ?? 0,
      requests: session?.requests ?? 0,
      credits: session?.creditsCharged ?? null,
      rawMs: stream?.durationMs ?? 0,
      rawRequests: stream?.requests ?? 0,
    };
  });
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
