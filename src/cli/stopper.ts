/**
 * The runner's side of stopping early (the sessions' side is src/engine/stop.ts):
 *
 * - the time budget: the deadline travels in the run context, so the sessions stop on their own;
 *   the runner waits for them at most --grace past the deadline;
 * - SIGINT / SIGTERM: the first one tells the sessions (BroadcastChannel) and gives them --grace
 *   to finish the requests in flight and clean up; a second one exits at once (2).
 *
 * `forced` resolves when the runner must stop waiting for the suites and write its report from
 * what finished.
 */
import { randomUUID } from 'node:crypto';
import { broadcastStop, describeDuration, type StopPlan } from '../engine/stop.ts';

export interface StopperOptions {
  /** Epoch ms the run started. */
  started: number;
  maxDurationMs?: number;
  graceMs: number;
  /** Called on a second signal (default: process.exit). */
  exit?: (code: number) => void;
  /** Tells the user what is happening (stderr). */
  say?: (line: string) => void;
  /** Signals to handle (default SIGINT and SIGTERM). */
  signals?: NodeJS.Signals[];
}

export class Stopper {
  readonly plan: StopPlan;
  /** The signal that cancelled the run, if one did. */
  cancelledBy: NodeJS.Signals | undefined;
  /** Resolves with the reason when the runner must stop waiting for the suites. */
  readonly forced: Promise<string>;
  private force!: (why: string) => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly handlers: [NodeJS.Signals, () => void][] = [];
  private readonly foreignBefore = new Map<NodeJS.Signals, Set<Function>>();

  constructor(private readonly opts: StopperOptions) {
    this.plan = { channel: `wgc-stop-${randomUUID()}` };
    this.forced = new Promise((resolve) => (this.force = resolve));
    if (opts.maxDurationMs !== undefined) {
      this.plan.deadline = opts.started + opts.maxDurationMs;
      this.plan.budget = `--max-duration ${describeDuration(opts.maxDurationMs)}`;
      const wait = this.plan.deadline - Date.now() + opts.graceMs;
      this.timers.push(setTimeout(() => this.force(`the time budget (${this.plan.budget}) and the grace period (${describeDuration(opts.graceMs)}) ran out`), Math.max(0, wait)).unref());
    }
    for (const sig of opts.signals ?? (['SIGINT', 'SIGTERM'] as NodeJS.Signals[])) {
      this.foreignBefore.set(sig, new Set(process.listeners(sig)));
      const handler = (): void => this.onSignal(sig);
      process.on(sig, handler);
      this.handlers.push([sig, handler]);
    }
    // Vitest's logger and vite's server each install a SIGINT/SIGTERM handler that ends the
    // process at once (they are written for the vitest CLI). While the suites run, this run owns
    // the signals: handlers that appear meanwhile are removed, so a signal stops the run as
    // described above instead of killing it without a report.
    const adopt = setInterval(() => this.adopt(), 20);
    adopt.unref();
    this.intervals.push(adopt);
  }

  private readonly intervals: NodeJS.Timeout[] = [];

  /** Removes signal handlers installed after this stopper (see the constructor). */
  adopt(): void {
    for (const [sig, mine] of this.handlers) {
      const before = this.foreignBefore.get(sig)!;
      for (const l of process.listeners(sig)) if (l !== mine && !before.has(l)) process.off(sig, l as () => void);
    }
  }

  private onSignal(sig: NodeJS.Signals): void {
    if (this.cancelledBy) {
      this.opts.say?.(`wgc run: ${sig} again: exiting at once, without a report`);
      (this.opts.exit ?? process.exit)(2);
      return;
    }
    this.cancelledBy = sig;
    this.opts.say?.(`wgc run: ${sig}: stopping; no new requests, cleaning up for at most ${describeDuration(this.opts.graceMs)}, then the report (a second signal exits at once)`);
    broadcastStop(this.plan.channel!, `the run was cancelled (${sig})`);
    this.timers.push(setTimeout(() => this.force(`the run was cancelled (${sig}) and the grace period (${describeDuration(this.opts.graceMs)}) ran out`), this.opts.graceMs).unref());
  }

  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    for (const t of this.intervals) clearInterval(t);
    for (const [sig, h] of this.handlers) process.off(sig, h);
  }
}
