/**
 * The gate between `wgc run` and its vitest worker. Vitest starts first (its worker thread was
 * started before it and has imported the suites meanwhile: src/engine/prewarm.ts) while the
 * command, on the main thread, starts the embedded reference, runs the preflight, takes the
 * suites' outline and plan and prints the plan. No suite sends anything before the command
 * opens the gate with the run context (which carries the pace: how many suites run side by
 * side), and a run the command refuses (a failed preflight, definitions that do not load, keys
 * that fill too few casts, a signal) aborts it: its suites never start. Measured on the 2-core
 * host: docs/benchmark.md, sessions 18 and 24.
 *
 * The worker is a thread of the command's process (vitest's `threads` pool), so the two talk
 * over a BroadcastChannel named for this run alone. The worker says it is listening ("ready")
 * and the command answers with its decision, whichever of the two comes first.
 */
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import type { RunContext } from './context.ts';

type Decision = { kind: 'go'; run: RunContext } | { kind: 'abort'; reason: string };
type Message = Decision | { kind: 'ready' };

/** The command's side: one per run. Decide once (open or abort), then close. */
export class RunGate {
  /** The channel's name, handed to the worker (vitest `provide`). */
  readonly name = `wgc-run-gate-${randomUUID()}`;
  readonly #channel = new BroadcastChannel(this.name);
  #decision: Decision | undefined;

  constructor() {
    this.#channel.onmessage = (event) => {
      if ((event as { data?: Message }).data?.kind === 'ready' && this.#decision) this.#channel.postMessage(this.#decision);
    };
    // The channel never keeps the process alive: the vitest run it serves does.
    this.#channel.unref();
  }

  get decided(): boolean {
    return this.#decision !== undefined;
  }

  /** Lets the suites start, with this context. */
  open(run: RunContext): void {
    this.#decide({ kind: 'go', run });
  }

  /** The suites never start; their hooks fail with this reason. */
  abort(reason: string): void {
    this.#decide({ kind: 'abort', reason });
  }

  close(): void {
    this.#channel.close();
  }

  #decide(d: Decision): void {
    if (this.#decision) return;
    this.#decision = d;
    // A worker already listening gets it now; one that is not yet gets it when it says "ready".
    this.#channel.postMessage(d);
  }
}

/** The gate was aborted: the run sends nothing. */
export class GateAborted extends Error {
  override name = 'GateAborted';
}

const passes = new Map<string, Promise<RunContext>>();

/** The worker's side: the run context once the command opens the gate `name` (one wait per worker, shared by its suites). */
export function passGate(name: string): Promise<RunContext> {
  let pass = passes.get(name);
  if (!pass) {
    pass = new Promise<RunContext>((resolve, reject) => {
      const channel = new BroadcastChannel(name);
      channel.onmessage = (event) => {
        const m = (event as { data?: Message }).data;
        if (m?.kind !== 'go' && m?.kind !== 'abort') return;
        channel.close();
        if (m.kind === 'go') resolve(m.run);
        else reject(new GateAborted(`wgc run did not start the suites: ${m.reason}`));
      };
      channel.postMessage({ kind: 'ready' } satisfies Message);
    });
    // Rejections reach every suite's hook; none is left unhandled here.
    pass.catch(() => undefined);
    passes.set(name, pass);
  }
  return pass;
}
