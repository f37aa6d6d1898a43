/**
 * Runs suite files through vitest's programmatic API (startVitest from vitest/node) with the
 * run context and the suite files provided to the worker (`provide: { wgcRun, wgcSuiteFiles }`,
 * read by suites.entry.ts), the collecting reporter (handed in: reporters/wgc-reporter.ts) and
 * a progress line per suite. Vitest's own config files are ignored (`config: false`): the
 * conformance run is configured only by wgc's config.
 */
import { basename, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startVitest, ThreadsPoolWorker, type PoolOptions, type Reporter, type TestModule, type TestSpecification, type TestSuite } from 'vitest/node';
import type { Worker } from 'node:worker_threads';
import type { CheckResult } from './check.ts';
import type { RunContext } from './context.ts';
import type { SessionSummary } from './session.ts';
import { OUTCOME_LABEL, OUTCOMES, type Outcome } from './outcome.ts';
import { SOURCE_EXT } from '../vocabulary.ts';
import { PACE_LINE, Progress } from './progress.ts';
import { shardFiles } from './shard.ts';
import type { PrewarmedWorker } from './prewarm.ts';
import type { ReportedHookContext, TestCase } from 'vitest/node';
import type { UserConsoleLog } from 'vitest';

/**
 * One worker thread runs every suite, the suites side by side in it (suites.entry.ts declares
 * each suite's describe concurrent; `maxConcurrency` bounds how many run at once; each suite's
 * checks run one after another). A worker starts cold: it imports the engine, the generators and
 * their libraries, loads the spec and compiles its validators, and V8 warms up the HTTP client,
 * all of which a second worker pays again. Measured with interleaved `wgc run`s against the
 * embedded reference (2-core host, load 1-2, seed 1, 2215 requests each): two workers with one
 * suite file each at a time, vitest phase 2.8-3.1 s and CPU 7.1-7.9 s; one worker with the
 * suites side by side, 2.2-2.8 s and CPU 5.5-6.6 s; same requests, credits and verdict. The
 * suites keep no state across suites beyond unique-name counters (the in-process runner, run.ts,
 * has always run them side by side in one module graph).
 */
export const VITEST_POOL = 'threads' as const;
export const VITEST_WORKERS = 1;

/** The test file vitest runs: it imports the selected suite files (see its comment). */
export const SUITES_ENTRY = fileURLToPath(new URL(`./suites.entry${SOURCE_EXT}`, import.meta.url));

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

/**
 * The compiled tree (dist/, JavaScript) is loaded by the worker's own Node loader, not through
 * vite's module runner: only the entry file goes through the runner (vitest requires it for a
 * test file); the suites, the engine and the reporters it imports are plain ES modules (vite
 * `server.deps.external`, as for a package in node_modules). Measured on the 2-core host, 3 runs
 * each, load 1.2-1.4: the worker's start and suite imports 0.68 -> 0.37 s, wall 6.1 -> 5.6 s;
 * same requests, credits and verdict. The TypeScript sources (a clone without a fresh build, or
 * suites of one's own) still go through the runner, which compiles them.
 */
export const VITEST_EXTERNAL_COMPILED = [/\/dist\/(src|suites|reporters)\//];

export { shardFiles } from './shard.ts';

/**
 * The pool that hands vitest the worker thread started before it (prewarm.ts): vitest 4's
 * custom pool (`pool: { name, createPoolWorker }`) whose worker is the built-in threads pool's
 * own (ThreadsPoolWorker), given that thread to start with where the thread fits (the same
 * runtime, variables and flags); otherwise that thread is stopped and the worker starts its own.
 */
export function adoptingPool(prewarmed: PrewarmedWorker): { name: string; createPoolWorker: (options: PoolOptions) => ThreadsPoolWorker } {
  class AdoptingThreadsWorker extends ThreadsPoolWorker {
    readonly #options: PoolOptions;
    constructor(options: PoolOptions) {
      super(options);
      this.#options = options;
    }
    override async start(): Promise<void> {
      // ThreadsPoolWorker (vitest 4.1.12) starts a thread only where it has none (`_thread ||=`),
      // then pipes the thread's output: a thread handed to it first is the one it runs.
      const own = this as unknown as { _thread?: Worker };
      if (!own._thread) {
        const thread = prewarmed.claim(this.#options);
        if (thread) own._thread = thread;
        else await prewarmed.dispose();
      }
      return super.start();
    }
  }
  return { name: 'wgc-threads', createPoolWorker: (options) => new AdoptingThreadsWorker(options) };
}

export interface VitestLaunch {
  /** Project root (vite root; module resolution starts here). */
  root: string;
  /** Absolute paths of the suite files to run, in the order they start. */
  files: readonly string[];
  /**
   * The run context, or the name of the gate the command opens with it once the run is planned
   * (src/engine/gate.ts): the worker then imports the suites while the command plans.
   */
  run: RunContext | { gate: string };
  /**
   * Suites vitest runs side by side (its maxConcurrency, in one worker). A gated run gives every
   * suite file: the pace is not known yet, and the worker keeps it (RunContext.suitesSideBySide).
   */
  concurrency: number;
  /** The worker thread started before vitest (prewarm.ts), for vitest's pool to adopt; absent: the built-in threads pool. */
  prewarmed?: PrewarmedWorker;
  /** Runs only this shard's suite files (see shardFiles). */
  shard?: { index: number; count: number };
  /** Receives one line per finished suite and the heartbeat lines (no newline); absent: no progress. */
  onProgress?: (line: string) => void;
  /** Redraws a live status line (on a terminal); '' clears it. Absent: heartbeat lines instead. */
  onLive?: (text: string) => void;
  /** Called when vitest starts its run (its worker is being started: little is left for this thread to do for it). */
  onRunStart?: () => void;
  /** Checks the run will report, for the progress counts (known later when the run is gated). */
  totalChecks?: number | Promise<number>;
  /** Per-check and per-hook time limit (a safety net: every request is bounded already). */
  testTimeoutMs?: number;
  /**
   * The reporter that collects every check's result from vitest (reporters/wgc-reporter.ts,
   * handed in by the command: the engine does not reach up into the reporters).
   */
  collector: CheckCollector;
}

/** A vitest reporter that collects the check results and the errors of a run. */
export interface CheckCollector extends Reporter {
  results(): CheckResult[];
  runErrors(): string[];
}

export interface VitestRun<C extends CheckCollector = CheckCollector> {
  results: CheckResult[];
  /** Module load failures, unhandled errors, failed hooks. */
  runErrors: string[];
  /** Requests sent by the suite sessions. */
  requests: number;
  /** Credits charged over the provisioned workspaces; null without control. */
  creditsCharged: number | null;
  /** The collecting reporter (for shard partials). */
  reporter: C;
  /** What every suite session reported when it closed (requests, ledger total), in finishing order. */
  sessions: SessionSummary[];
  /** Where the entry module's time went, per vitest's diagnostic (for `wgc bench`). */
  files: FileTiming[];
}

/** Vitest's time accounting of one test module (milliseconds). */
export interface FileTiming {
  /** Path relative to the vite root, e.g. "src/engine/suites.entry.ts". */
  file: string;
  /** Tests and hooks (every suite's session open and close included). */
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

/** Progress per suite, the session summaries the suites attach to their describe block, and the entry module's timing. */
class ProgressReporter implements Reporter {
  readonly sessions: SessionSummary[] = [];
  readonly files: FileTiming[] = [];
  private readonly queued = new Map<string, number>();
  /** Suite name → its file as shown (e.g. "suites/auth.test.ts"). */
  private readonly labels = new Map<string, string>();
  readonly progress: Progress | undefined;
  constructor(root: string, files: readonly string[], print?: (line: string) => void, live?: (text: string) => void, total: number | Promise<number> = 0) {
    for (const f of files) this.labels.set(basename(f).replace(/\.test\.[cm]?[jt]s$/, ''), relative(root, f).split('\\').join('/'));
    const progress = print ? new Progress({ total: typeof total === 'number' ? total : 0, print, ...(live ? { live } : {}) }) : undefined;
    if (progress && typeof total !== 'number') total.then((n) => progress.setTotal(n)).catch(() => undefined);
    this.progress = progress;
  }

  /** A suite runs once its session has opened (before that it may wait for its place: vitest.ts). */
  onHookEnd(hook: ReportedHookContext): void {
    if (hook.name === 'beforeAll' && hook.entity.type === 'suite' && hook.entity.parent.type === 'module') this.progress?.suiteStarted(hook.entity.name.split(':')[0]!);
  }

  onRunStart: (() => void) | undefined;

  onTestRunStart(_specifications: readonly TestSpecification[]): void {
    this.onRunStart?.();
  }

  /** The worker's pace lines (PACE_LINE) are progress; every other console line is dropped. */
  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.content.startsWith(PACE_LINE)) this.progress?.note(`… ${log.content.slice(PACE_LINE.length).trimEnd()}`);
  }

  onTestCaseResult(testCase: TestCase): void {
    this.progress?.checkDone(testCase.meta().wgc);
  }

  onTestModuleQueued(testModule: TestModule): void {
    this.queued.set(testModule.moduleId, Date.now());
  }

  onTestSuiteResult(testSuite: TestSuite): void {
    const s = testSuite.meta().wgcSession;
    if (s) this.sessions.push(s);
    if (!this.progress || testSuite.parent.type !== 'module') return;
    const counts = new Map<Outcome, number>();
    let unknown = 0;
    for (const test of testSuite.children.allTests()) {
      const o = test.meta().wgc?.outcome;
      if (o) counts.set(o, (counts.get(o) ?? 0) + 1);
      else unknown++;
    }
    const parts = [...OUTCOMES]
      .reverse()
      .filter((o) => counts.get(o))
      .map((o) => `${counts.get(o)} ${OUTCOME_LABEL[o]}`);
    if (unknown) parts.push(`${unknown} without result`);
    const mark = counts.get('failed') ? '✗' : counts.get('harnessError') || unknown || testSuite.errors().length ? '!' : '✓';
    const name = testSuite.name.split(':')[0]!;
    const time = s ? `  ${(s.durationMs / 1000).toFixed(1)} s` : '';
    this.progress.suiteLine(name, `${mark} ${this.labels.get(name) ?? name}  ${parts.join(' · ') || 'no checks'}${time}`);
  }

  onTestModuleEnd(testModule: TestModule): void {
    const d = testModule.diagnostic();
    const endedAt = Date.now();
    const queuedAt = this.queued.get(testModule.moduleId) ?? endedAt;
    this.files.push({
      file: testModule.relativeModuleId,
      durationMs: d.duration,
      collectMs: d.collectDuration,
      prepareMs: d.prepareDuration,
      environmentMs: d.environmentSetupDuration,
      queuedAt,
      endedAt,
    });
  }
}

/** Runs the files through vitest and collects every check result. Throws only if vitest cannot start. */
export async function runSuitesWithVitest<C extends CheckCollector>(opts: VitestLaunch & { collector: C }): Promise<VitestRun<C>> {
  const files = shardFiles(opts.files, opts.shard);
  const reporter = opts.collector;
  const progress = new ProgressReporter(opts.root, files, opts.onProgress, opts.onLive, opts.totalChecks);
  progress.onRunStart = opts.onRunStart;
  const exitCodeBefore = process.exitCode;
  const timeout = opts.testTimeoutMs ?? 10 * 60_000;
  const vitest = await startVitest('test', [], {
    config: false,
    root: opts.root,
    dir: dirname(SUITES_ENTRY),
    include: [basename(SUITES_ENTRY)],
    watch: false,
    reporters: [reporter, progress],
    provide: {
      ...('gate' in opts.run ? { wgcGate: opts.run.gate } : { wgcRun: opts.run }),
      wgcSuiteFiles: [...files],
      wgcSuiteNames: files.map((f) => relative(opts.root, f).split('\\').join('/')),
      wgcHookTimeoutMs: timeout,
    },
    pool: opts.prewarmed ? adoptingPool(opts.prewarmed) : VITEST_POOL,
    maxWorkers: VITEST_WORKERS,
    maxConcurrency: opts.concurrency,
    testTimeout: timeout,
    hookTimeout: timeout,
    passWithNoTests: false,
    experimental: { fsModuleCache: VITEST_FS_MODULE_CACHE },
    ...(SOURCE_EXT === '.js' ? { server: { deps: { external: VITEST_EXTERNAL_COMPILED } } } : {}),
  });
  await vitest.close();
  progress.progress?.stop();
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
