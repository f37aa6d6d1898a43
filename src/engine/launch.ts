/**
 * Runs suite files through vitest's programmatic API (startVitest from vitest/node) with the
 * run context provided to the workers (`provide: { wgcRun }`), the collecting WgcReporter and
 * a progress line per file. Vitest's own config files are ignored (`config: false`): the
 * conformance run is configured only by wgc's config.
 */
import { relative } from 'node:path';
import { startVitest, type Reporter, type TestModule, type TestSuite } from 'vitest/node';
import type { CheckResult } from './check.ts';
import type { RunContext } from './context.ts';
import type { SessionSummary } from './session.ts';
import { OUTCOME_LABEL, OUTCOMES, type Outcome } from './outcome.ts';
import { WgcReporter } from '../../reporters/wgc-reporter.ts';

/**
 * Worker pool. Measured with 7 suite files against the reference (vitest 4.1, Node 20, a
 * shared 2-core host, 5 runs each): median 9.2 s with threads, 11.5 s with forks; at low load
 * the two were within noise. Threads it is: the suites keep no process-global state.
 */
export const VITEST_POOL = 'threads' as const;

/**
 * Suite files share their worker's module graph (vitest `isolate: false`): each worker imports
 * the engine, the generators and their libraries once, and loads the spec once, instead of
 * once per file. Safe because the in-process runner (run.ts) already runs every suite in one
 * module graph, and suites keep no global state beyond unique-name counters. Measured with
 * `wgc bench` (9 files, 2 workers, shared 2-core host, load 13-18, 3 runs each): CPU time of
 * the run 19.2 s -> 10.6 s, wall 35.9 s -> 29.9 s (median), same requests, credits, verdict.
 */
export const VITEST_ISOLATE = false;

/**
 * Vitest keeps the transformed suite and engine modules on disk between runs (vitest 4.1
 * `experimental.fsModuleCache`, under node_modules/.experimental-vitest-cache, keyed by the
 * file contents), so a worker's first import no longer waits for the main thread to transform
 * ~150 TypeScript files. Measured with 3 interleaved `wgc run`s each (shared 2-core host,
 * load 3.1-3.6): CPU 10.3 s -> 9.0 s (median user+system), peak RSS 688 -> 600 MiB, wall
 * 6.9 -> 5.8 s; same requests, credits and verdict. A fresh checkout pays the transform once.
 * Tried and dropped: Node's own loader in forked workers (`viteModuleRunner: false` with tsx
 * in execArgv): 7.6-8.1 s wall, slower than the module runner.
 */
export const VITEST_FS_MODULE_CACHE = true;

export interface VitestLaunch {
  /** Project root (vite root; module resolution starts here). */
  root: string;
  /** Folder holding the <area>.test.ts files. */
  suitesDir: string;
  /** Absolute paths of the suite files to run. */
  files: readonly string[];
  run: RunContext;
  /** Files run in parallel (vitest maxWorkers). */
  concurrency: number;
  shard?: { index: number; count: number };
  /** Receives one line per finished file (no newline). */
  onProgress?: (line: string) => void;
  /** Per-check and per-hook time limit (a safety net: every request is bounded already). */
  testTimeoutMs?: number;
}

export interface VitestRun {
  results: CheckResult[];
  /** Module load failures, unhandled errors, failed hooks. */
  runErrors: string[];
  /** Requests sent by the suite sessions. */
  requests: number;
  /** Credits charged over the provisioned workspaces; null without control. */
  creditsCharged: number | null;
  /** The collecting reporter (for shard partials). */
  reporter: WgcReporter;
  /** What every suite session reported when it closed (requests, ledger total), in finishing order. */
  sessions: SessionSummary[];
  /** Where each file's time went, per vitest's diagnostic, in finishing order (for `wgc bench`). */
  files: FileTiming[];
}

/** Vitest's time accounting of one suite file (milliseconds). */
export interface FileTiming {
  /** Path relative to the project root, e.g. "suites/auth.test.ts". */
  file: string;
  /** Tests and hooks (session open and close included). */
  durationMs: number;
  /** Importing the file and everything it imports, and declaring its tests. */
  collectMs: number;
  /** Vitest's own harness set-up in the worker. */
  prepareMs: number;
  /** Environment set-up. */
  environmentMs: number;
  /** Wall clock (epoch ms, main process) when vitest queued the file and when it ended. */
  queuedAt: number;
  endedAt: number;
}

/** Progress per file, and the session summaries the suites attach to their describe block. */
class ProgressReporter implements Reporter {
  readonly sessions: SessionSummary[] = [];
  readonly files: FileTiming[] = [];
  private readonly queued = new Map<string, number>();
  constructor(private readonly root: string, private readonly print?: (line: string) => void) {}

  onTestModuleQueued(testModule: TestModule): void {
    this.queued.set(testModule.moduleId, Date.now());
  }

  onTestSuiteResult(testSuite: TestSuite): void {
    const s = testSuite.meta().wgcSession;
    if (s) this.sessions.push(s);
  }

  onTestModuleEnd(testModule: TestModule): void {
    const d = testModule.diagnostic();
    const file = relative(this.root, testModule.moduleId).split('\\').join('/');
    const endedAt = Date.now();
    const queuedAt = this.queued.get(testModule.moduleId) ?? endedAt;
    this.files.push({ file, durationMs: d.duration, collectMs: d.collectDuration, prepareMs: d.prepareDuration, environmentMs: d.environmentSetupDuration, queuedAt, endedAt });
    if (!this.print) return;
    const counts = new Map<Outcome, number>();
    let unknown = 0;
    for (const test of testModule.children.allTests()) {
      const o = test.meta().wgc?.outcome;
      if (o) counts.set(o, (counts.get(o) ?? 0) + 1);
      else unknown++;
    }
    const parts = [...OUTCOMES].reverse().filter((o) => counts.get(o)).map((o) => `${counts.get(o)} ${OUTCOME_LABEL[o]}`);
    if (unknown) parts.push(`${unknown} without result`);
    const ms = d.duration;
    const mark = counts.get('failed') ? '✗' : counts.get('harnessError') || unknown || testModule.errors().length ? '!' : '✓';
    this.print(`${mark} ${relative(this.root, testModule.moduleId)}  ${parts.join(' · ') || 'no checks'}  ${(ms / 1000).toFixed(1)} s`);
  }
}

/** Runs the files through vitest and collects every check result. Throws only if vitest cannot start. */
export async function runSuitesWithVitest(opts: VitestLaunch): Promise<VitestRun> {
  const reporter = new WgcReporter();
  const progress = new ProgressReporter(opts.root, opts.onProgress);
  const exitCodeBefore = process.exitCode;
  const timeout = opts.testTimeoutMs ?? 10 * 60_000;
  const vitest = await startVitest('test', [], {
    config: false,
    root: opts.root,
    dir: opts.suitesDir,
    include: opts.files.map((f) => relative(opts.suitesDir, f).split('\\').join('/')),
    watch: false,
    reporters: [reporter, progress],
    provide: { wgcRun: opts.run },
    pool: VITEST_POOL,
    isolate: VITEST_ISOLATE,
    maxWorkers: opts.concurrency,
    testTimeout: timeout,
    hookTimeout: timeout,
    passWithNoTests: false,
    experimental: { fsModuleCache: VITEST_FS_MODULE_CACHE },
    ...(opts.shard ? { shard: `${opts.shard.index}/${opts.shard.count}` } : {}),
  });
  await vitest.close();
  // Vitest sets process.exitCode on failed tests; the verdict decides wgc's exit code instead.
  process.exitCode = exitCodeBefore;
  const charged = progress.sessions.map((s) => s.creditsCharged).filter((c): c is number => c !== null);
  return {
    results: reporter.results(),
    runErrors: reporter.runErrors(),
    requests: progress.sessions.reduce((n, s) => n + s.requests, 0),
    creditsCharged: charged.length > 0 ? charged.reduce((a, b) => a + b, 0) : null,
    reporter,
    sessions: progress.sessions,
    files: progress.files,
  };
}
