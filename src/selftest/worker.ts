/**
 * A self-test worker: loads the suites once, then runs the jobs the pool sends it one at a
 * time (each a fresh reference with its faults, see run-target.ts) and answers with their
 * summaries. Runs in a child process (IPC) or a worker thread (parentPort); started through
 * worker-entry.mjs, which registers tsx first.
 *
 * Errors nobody awaited (an unhandled rejection, an uncaught exception) are charged to the job
 * that is running as run errors instead of killing the worker: they are harness problems, and
 * the next job still gets a clean reference of its own.
 */
import { parentPort } from 'node:worker_threads';
import { loadCatalog } from '../catalog/load.ts';
import type { SuiteDef } from '../engine/check.ts';
import { discoverSuites, loadSuiteDefs } from '../engine/discover.ts';
import type { FromWorker, SuiteOutline, ToWorker, WorkerInit } from './protocol.ts';
import { runTarget } from './run-target.ts';

/** The suites folder loaded into outlines and definitions. */
export async function loadSuites(init: Pick<WorkerInit, 'suitesDir' | 'root'>): Promise<{ defs: SuiteDef[]; outlines: SuiteOutline[] }> {
  const defs = await loadSuiteDefs(await discoverSuites(init.suitesDir), init.root);
  return { defs, outlines: defs.map((s) => ({ name: s.name, checks: s.checks.map((c) => ({ id: c.id, clauses: [...c.clauses] })) })) };
}

/** The worker's end of the pool's channel. */
export interface WorkerPort {
  send(m: FromWorker): void;
  onMessage(f: (m: ToWorker) => void): void;
  close(): void;
}

/**
 * Serves the pool's messages over `port` until told to exit. `catchStray: false` leaves the
 * process-wide error handlers alone (inline mode, where the "worker" is the caller's process).
 */
export function serveWorker(port: WorkerPort, opts: { catchStray: boolean } = { catchStray: true }): void {
  let init: WorkerInit | undefined;
  let defs: SuiteDef[] = [];
  let stray: string[] = [];
  const strayError = (kind: string) => (e: unknown) => {
    stray.push(`${kind} in the self-test worker: ${(e as Error)?.stack ?? String(e)}`.slice(0, 2_000));
  };
  if (opts.catchStray) {
    process.on('unhandledRejection', strayError('unhandled rejection'));
    process.on('uncaughtException', strayError('uncaught exception'));
  }

  let queue = Promise.resolve();
  port.onMessage((m) => {
    queue = queue.then(async () => {
      if (m.type === 'exit') return port.close();
      if (m.type === 'init') {
        init = m.init;
        try {
          const loaded = await loadSuites(init);
          defs = loaded.defs;
          port.send({ type: 'ready', suites: loaded.outlines });
        } catch (e) {
          port.send({ type: 'initFailed', error: (e as Error).message });
        }
        return;
      }
      if (!init) return port.send({ type: 'jobFailed', id: m.id, error: 'the worker got a job before init' });
      stray = [];
      try {
        const suites = m.suites ? defs.filter((d) => m.suites!.includes(d.name)) : defs;
        const summary = await runTarget(m.faults, {
          suites,
          catalog: loadCatalog(),
          seed: init.seed,
          numRuns: init.numRuns,
          suiteConcurrency: init.suiteConcurrency,
          ...(m.checks ? { checks: m.checks } : {}),
          ...(init.timeoutMs ? { timeoutMs: init.timeoutMs } : {}),
        });
        summary.runErrors.push(...stray);
        port.send({ type: 'result', id: m.id, summary });
      } catch (e) {
        port.send({ type: 'jobFailed', id: m.id, error: [(e as Error)?.stack ?? String(e), ...stray].join('\n') });
      }
    });
  });
}

/** Starts serving over the transport this module was started with. */
export function startWorker(): void {
  if (parentPort) {
    const pp = parentPort;
    serveWorker({
      send: (m) => pp.postMessage(m),
      onMessage: (f) => pp.on('message', f),
      close: () => {
        pp.close();
        process.exit(0); // ends this thread only
      },
    });
    return;
  }
  if (!process.send) throw new Error('the self-test worker must be started by the pool (no IPC channel, no parent port)');
  process.on('disconnect', () => process.exit(0));
  serveWorker({ send: (m) => void process.send!(m), onMessage: (f) => process.on('message', f as (m: unknown) => void), close: () => process.disconnect() });
}
