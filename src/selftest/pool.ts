/**
 * Spreads self-test jobs (one reference configuration each) over workers. A job is CPU-bound
 * in one process (the reference and the checks share its event loop), so the pool runs
 * `workers` of them side by side, each worker taking the next job when it is done.
 *
 * Workers are child processes by default (see WORKER_MODE_DEFAULT for the measurement), or
 * worker threads, or "inline" (in this process, one job at a time: for debugging). A worker
 * that crashes or overruns the per-job time limit is killed; its job is recorded with a run
 * error (a harness problem, never a target finding) and a fresh worker takes the rest.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TargetRunSummary } from './model.ts';
import type { FromWorker, SuiteOutline, ToWorker, WorkerInit } from './protocol.ts';

export const WORKER_MODES = ['process', 'thread', 'inline'] as const;
export type WorkerMode = (typeof WORKER_MODES)[number];

/**
 * Child processes. Measured on the shared 2-core host (docs/self-test.md): processes and
 * threads were within noise of each other for the whole self-test; processes win on
 * robustness (a stuck or crashed job is killed with its own heap, and a worker's
 * process-wide error handlers cannot touch the caller).
 */
export const WORKER_MODE_DEFAULT: WorkerMode = 'process';

const ENTRY = fileURLToPath(new URL('./worker-entry.mjs', import.meta.url));

/** One job: the faults to switch on (empty: conformant), and the suites to run (default: all). */
export interface Job {
  faults: string[];
  suites?: string[];
  /** Only these checks of those suites run (the others are disabled, as by --check). */
  checks?: string[];
}

export interface PoolOptions {
  workers: number;
  mode: WorkerMode;
  init: WorkerInit;
  /** A job running longer than this is killed and recorded as a harness error. */
  jobTimeoutMs: number;
  /** A worker that has not loaded the suites after this long is killed. Default 120 s. */
  initTimeoutMs?: number;
  /** Called as each job finishes, in completion order. */
  onResult?: (job: Job, summary: TargetRunSummary) => void;
}

export interface PoolResult {
  /** In job order. */
  summaries: TargetRunSummary[];
  suites: SuiteOutline[];
}

/** The suites could not be loaded (or a worker could not start): the self-test cannot run. */
export class SelfTestSetupError extends Error {
  override name = 'SelfTestSetupError';
}

/** A started worker as the pool drives it, whatever its transport. */
interface Handle {
  send(m: ToWorker): void;
  /** Stops it at once (a job in flight is abandoned). */
  kill(): Promise<void>;
  /** Last lines it wrote to stderr (processes only), for crash reports. */
  stderrTail(): string;
  /** Settles when the worker has exited. */
  readonly gone: Promise<void>;
}

type Events = { message(m: FromWorker): void; exit(why: string): void };

/** Resolves once; `exit` reports the first reason only. */
function exitLatch(ev: Events): { gone: Promise<void>; exit(why: string): void } {
  let settle!: () => void;
  const gone = new Promise<void>((r) => (settle = r));
  let once = false;
  return {
    gone,
    exit(why) {
      if (once) return;
      once = true;
      settle();
      ev.exit(why);
    },
  };
}

function startProcess(ev: Events): Handle {
  const latch = exitLatch(ev);
  let tail = '';
  const child: ChildProcess = fork(ENTRY, [], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
  child.stderr!.on('data', (d: Buffer) => {
    tail = (tail + d.toString('utf8')).slice(-4_000);
  });
  child.on('message', (m) => ev.message(m as FromWorker));
  child.on('exit', (code, signal) => latch.exit(signal ? `signal ${signal}` : `exit code ${code}`));
  child.on('error', (e) => latch.exit(`process error: ${e.message}`));
  return {
    gone: latch.gone,
    send: (m) => {
      if (child.connected) child.send(m);
    },
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    stderrTail: () => tail,
  };
}

function startThread(ev: Events): Handle {
  const latch = exitLatch(ev);
  const w = new Worker(ENTRY, { execArgv: [] });
  w.on('message', (m: FromWorker) => ev.message(m));
  w.on('error', (e) => latch.exit(`worker error: ${e.stack ?? e.message}`));
  w.on('exit', (code) => latch.exit(`exit code ${code}`));
  return { gone: latch.gone, send: (m) => w.postMessage(m), kill: async () => void (await w.terminate()), stderrTail: () => '' };
}

function startInline(ev: Events): Handle {
  const latch = exitLatch(ev);
  let closed = false;
  // Imported lazily so the pool itself never loads the suites' dependencies.
  const deliver = import('./worker.ts').then(({ serveWorker }) => {
    let handler: (m: ToWorker) => void = () => {};
    serveWorker({ send: (m) => void (closed || ev.message(m)), onMessage: (f) => void (handler = f), close: () => latch.exit('exit code 0') }, { catchStray: false });
    return (m: ToWorker) => handler(m);
  });
  return {
    gone: latch.gone,
    send: (m) => void deliver.then((f) => f(m)),
    // A job in flight cannot be stopped in-process; it is abandoned (its answer is ignored).
    kill: async () => {
      closed = true;
      latch.exit('killed');
    },
    stderrTail: () => '',
  };
}

const STARTERS: Record<WorkerMode, (ev: Events) => Handle> = { process: startProcess, thread: startThread, inline: startInline };

/** Runs every job on the pool's workers; resolves when all are done and every worker has exited. */
export async function runPool(jobs: readonly Job[], opts: PoolOptions): Promise<PoolResult> {
  if (jobs.length === 0) return { summaries: [], suites: [] };
  const summaries: (TargetRunSummary | undefined)[] = jobs.map(() => undefined);
  const started = new Set<Handle>();
  let live = 0;
  let suites: SuiteOutline[] | undefined;
  let next = 0;
  let done = 0;
  let setupError: SelfTestSetupError | undefined;
  let settle!: () => void;
  const allDone = new Promise<void>((r) => (settle = r));

  const finish = (i: number, summary: TargetRunSummary): void => {
    if (summaries[i]) return;
    summaries[i] = summary;
    done += 1;
    opts.onResult?.(jobs[i]!, summary);
    if (done === jobs.length) settle();
  };
  const abort = (error: SelfTestSetupError): void => {
    setupError ??= error;
    settle();
  };

  /** Starts a worker that takes jobs until none are left; replaced when it dies mid-job. */
  const spawn = (): void => {
    if (setupError || next >= jobs.length) return;
    let current: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    let retired = false;
    live += 1;
    const retire = (): void => {
      if (retired) return;
      retired = true;
      live -= 1;
      clearTimeout(timer);
    };
    const take = (): void => {
      if (setupError || next >= jobs.length) {
        retire();
        return handle.send({ type: 'exit' });
      }
      const i = (current = next++);
      timer = setTimeout(() => {
        current = undefined;
        retire();
        finish(i, brokenSummary(jobs[i]!, `the job did not finish within ${opts.jobTimeoutMs} ms; its worker was killed`, opts.jobTimeoutMs));
        void handle.kill().then(spawn);
      }, opts.jobTimeoutMs);
      handle.send({ type: 'run', id: i, faults: jobs[i]!.faults, ...(jobs[i]!.suites ? { suites: jobs[i]!.suites } : {}), ...(jobs[i]!.checks ? { checks: jobs[i]!.checks } : {}) });
    };
    const handle: Handle = STARTERS[opts.mode]({
      message(m) {
        if (retired) return;
        if (m.type === 'initFailed') return abort(new SelfTestSetupError(`the suites could not be loaded: ${m.error}`));
        if (m.type === 'ready') {
          clearTimeout(timer);
          suites ??= m.suites;
          return take();
        }
        if (m.id !== current) return;
        clearTimeout(timer);
        current = undefined;
        finish(m.id, m.type === 'result' ? m.summary : brokenSummary(jobs[m.id]!, `the job failed: ${m.error}`, 0));
        take();
      },
      exit(why) {
        if (retired) return;
        retire();
        const tail = handle.stderrTail().trim().slice(-1_500);
        const detail = `${why}${tail ? `: ${tail}` : ''}`;
        if (current === undefined) {
          // Died before it was ready: the next one would too, unless another one got ready.
          if (!suites) abort(new SelfTestSetupError(`a self-test worker exited before it was ready (${detail})`));
          else if (live === 0) spawn();
          return;
        }
        const i = current;
        current = undefined;
        finish(i, brokenSummary(jobs[i]!, `the worker running this job exited (${detail})`, 0));
        spawn();
      },
    });
    started.add(handle);
    const initTimeoutMs = opts.initTimeoutMs ?? 120_000;
    timer = setTimeout(() => {
      retire();
      void handle.kill().then(() => {
        if (!suites) abort(new SelfTestSetupError(`a self-test worker did not load the suites within ${initTimeoutMs} ms`));
        else if (live === 0) spawn();
      });
    }, initTimeoutMs);
    handle.send({ type: 'init', init: opts.init });
  };

  const width = opts.mode === 'inline' ? 1 : Math.max(1, Math.min(opts.workers, jobs.length));
  for (let w = 0; w < width; w++) spawn();
  await allDone;
  // Every worker has been told to exit (or is being killed); wait, and kill stragglers.
  await Promise.all(
    [...started].map(async (h) => {
      if (setupError) return h.kill();
      h.send({ type: 'exit' });
      const gone = await Promise.race([h.gone.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000).unref())]);
      if (!gone) await h.kill();
    }),
  );
  if (setupError) throw setupError;
  return { summaries: summaries as TargetRunSummary[], suites: suites ?? [] };
}

/** The summary of a job that produced none: nothing concluded, one run error saying why. */
export function brokenSummary(job: Job, why: string, durationMs: number): TargetRunSummary {
  return { faults: [...job.faults], durationMs, cpuMs: 0, requests: 0, outcomes: {}, reasons: {}, failures: [], harnessErrors: [], runErrors: [why] };
}
