/**
 * The vitest worker, started before vitest. Vitest's node API is the heaviest import of a run,
 * and only once it has started does its pool start the worker thread, which then loads vitest's
 * runtime and imports every suite: two chains of a few tenths of a second each, one after the
 * other, while the second core waits. `wgc run` starts the worker thread itself, first thing
 * (pool-entry.mjs: vitest's own thread runtime, and the suites' modules imported beside it), and
 * hands it to vitest through a custom pool (launch.ts) whose worker is the built-in threads
 * pool's but for where its thread comes from.
 *
 * The thread is adopted only if vitest asks for exactly the runtime, environment variables and
 * Node flags it was started with (predicted below from what vitest 4.1 passes); otherwise, or if
 * it has died, it is stopped and a thread is started the way the built-in pool starts one. Only
 * the compiled tree (dist/) is warmed: the TypeScript sources go through vite's module runner.
 */
import { existsSync, readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { isatty } from 'node:tty';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { SuiteFile } from './discover.ts';
import type { Outline, PlanFigures } from './outline.ts';
import type { PoolOptions } from 'vitest/node';

const require_ = createRequire(import.meta.url);
const VITEST_DIR = dirname(require_.resolve('vitest/package.json'));
/** Vitest's thread runtime (the built-in threads pool's entry). */
const VITEST_THREAD_ENTRY = join(VITEST_DIR, 'dist/workers/threads.js');
const ENTRY = new URL('./pool-entry.mjs', import.meta.url);
const OUTLINE = new URL('./outline.js', import.meta.url);

let early: PrewarmedWorker | undefined;

/**
 * Starts the worker thread as soon as the command starts (bin/wg-conformance.mjs, for `wgc run`
 * of the compiled tree, before it loads the command): it warms every suite of the package.
 * `wgc run` takes it (takeEarlyWorker) or stops it when it cannot use it.
 */
export function startEarlyWorker(): void {
  if (early || !ENTRY.href.endsWith('/dist/src/engine/pool-entry.mjs')) return;
  const suites = fileURLToPath(new URL('../../suites/', import.meta.url));
  const indexes = existsSync(suites)
    ? readdirSync(suites)
        .map((d) => join(suites, d, 'index.js'))
        .filter((f) => existsSync(f))
    : [];
  early = new PrewarmedWorker(warmModules(indexes.map((indexFile) => ({ indexFile }))));
}

/** The worker thread started with the command, once; undefined when none was. */
export function takeEarlyWorker(): PrewarmedWorker | undefined {
  const w = early;
  early = undefined;
  return w;
}

/**
 * What the worker imports while vitest starts: each suite's definition module (and all it
 * imports) and the engine modules the suite files' glue imports (src/engine/vitest.ts, whose own
 * import of vitest waits for vitest's run). Modules that import vitest are left to the run.
 */
export function warmModules(files: readonly { indexFile: string }[]): string[] {
  const engine = ['./session.js', './gate.js', './context.js', './progress.js', '../http/limit.js'].map((f) => fileURLToPath(new URL(f, import.meta.url)));
  return [...engine, ...files.map((f) => f.indexFile)];
}

/** A worker thread started before vitest, until vitest's pool adopts it (or it is stopped). */
export class PrewarmedWorker {
  readonly thread: Worker;
  readonly env: Record<string, string | undefined>;
  readonly execArgv: string[];
  #exited = false;
  #claimed = false;

  /** Called when vitest's pool adopts the thread. */
  onAdopted: (() => void) | undefined;
  readonly #port: MessagePort;
  readonly #answer: Promise<Outline | undefined>;
  #asked = false;

  constructor(warm: readonly string[]) {
    // What vitest 4.1 gives a thread (its resolveOptions and the pool's task): the variables vitest
    // sets on import (TEST, VITEST, NODE_ENV), those it adds for its workers and vite's
    // import.meta.env of a test run; its flags and the conditions of a node environment that is
    // not a production build.
    this.env = {
      ...process.env,
      TEST: 'true',
      VITEST: 'true',
      NODE_ENV: process.env['NODE_ENV'] || 'test',
      VITEST_MODE: 'RUN',
      FORCE_TTY: isatty(1) ? 'true' : '',
      BASE_URL: '/',
      MODE: 'test',
      DEV: '1',
      PROD: '',
    };
    const profiling = process.execArgv.filter((a) => a.startsWith('--cpu-prof') || a.startsWith('--heap-prof') || a.startsWith('--diagnostic-dir'));
    const conditions = this.env['NODE_ENV'] === 'production' ? ['--conditions', 'node', '--conditions', 'production'] : ['--conditions', 'node', '--conditions', 'development'];
    this.execArgv = [...profiling, '--experimental-import-meta-resolve', '--require', join(VITEST_DIR, 'suppress-warnings.cjs'), ...conditions];
    const channel = new MessageChannel();
    this.thread = new Worker(ENTRY, {
      env: this.env,
      execArgv: this.execArgv,
      stdout: true,
      stderr: true,
      workerData: { vitestEntry: pathToFileURL(VITEST_THREAD_ENTRY).href, warm: warm.map((f) => pathToFileURL(f).href), outline: { module: OUTLINE.href, port: channel.port2 } },
      transferList: [channel.port2],
    });
    this.#port = channel.port1;
    this.#answer = new Promise<Outline | undefined>((resolve) => {
      this.#port.once('message', (m: Outline) => resolve(m));
      this.thread.once('exit', () => resolve(undefined));
      this.thread.once('error', () => resolve(undefined));
    }).finally(() => this.#port.close());
    this.#port.unref();
    this.thread.once('exit', () => (this.#exited = true));
    // Until adopted it keeps nothing alive: a command that ends early (a usage error) just exits.
    this.thread.unref();
    // Until adopted, an error is the thread's end: the pool then starts one of its own.
    this.thread.once('error', () => (this.#exited = true));
  }

  /**
   * The suites' outline and plan for these figures (outline.ts), worked out once the thread has
   * imported what it warms; undefined if the thread ends without one. Asked once.
   */
  outline(files: readonly SuiteFile[], root: string, figures: PlanFigures): Promise<Outline | undefined> {
    if (this.#asked) throw new Error('the outline is asked for once');
    this.#asked = true;
    this.#port.postMessage({ files: files.map((f) => ({ ...f })), root, figures });
    return this.#answer;
  }

  /** The thread, once, for a pool worker that asks for what it was started with. */
  claim(options: PoolOptions): Worker | undefined {
    if (this.#claimed || this.#exited) return undefined;
    if (resolve(options.distPath, 'workers/threads.js') !== VITEST_THREAD_ENTRY) return undefined;
    if (!isDeepStrictEqual(options.execArgv, this.execArgv) || !isDeepStrictEqual(options.env, this.env)) return undefined;
    this.#claimed = true;
    this.thread.ref();
    this.onAdopted?.();
    return this.thread;
  }

  /** Stops the thread unless a pool adopted it. */
  async dispose(): Promise<void> {
    if (this.#claimed || this.#exited) return;
    this.#claimed = true;
    await this.thread.terminate();
  }
}
