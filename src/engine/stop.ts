/**
 * Stopping a run before its end, without losing what it learned: the time budget
 * (--max-duration) and a SIGINT/SIGTERM. The runner (src/cli/run.ts) decides to stop; the suite
 * sessions, in vitest's worker thread, obey:
 *
 * - a check that has not started when the run stops is not started: disabled, "not run: <why>";
 * - a check running when the run stops may finish the request it is waiting for, but its next
 *   request is refused (it ends disabled, "stopped: <why>"; a finding it already made stays);
 * - the session still cleans up what it created (the runner bounds that with --grace).
 *
 * The budget is an absolute deadline carried in the run context, so each session sees it
 * without being told. A signal reaches the sessions through a BroadcastChannel named in the run
 * context (the worker is a thread of the runner's process).
 */
import { BroadcastChannel } from 'node:worker_threads';

/** How a run may be stopped early (serialisable: it travels in the run context). */
export interface StopPlan {
  /** Epoch ms when the time budget ends. */
  deadline?: number;
  /** The budget as the user gave it, for reasons ("--max-duration 120 s"). */
  budget?: string;
  /** Name of the BroadcastChannel the runner posts a cancellation reason on. */
  channel?: string;
}

/**
 * Cancellations heard in this thread, by channel name. One listener per channel for the
 * thread's life (unref'd): a BroadcastChannel only hears messages posted after it was created,
 * so a session that opens after the signal must still learn of it.
 */
const heard = new Map<string, { reason?: string }>();

function listen(name: string): { reason?: string } {
  const known = heard.get(name);
  if (known) return known;
  const entry: { reason?: string } = {};
  heard.set(name, entry);
  const channel = new BroadcastChannel(name);
  channel.onmessage = (e) => {
    entry.reason ??= String((e as { data: unknown }).data);
  };
  // Listening must never keep a finished worker alive.
  (channel as unknown as { unref?: () => void }).unref?.();
  return entry;
}

/** Why the run stops, or undefined while it may go on. */
export class StopWatch {
  private readonly cancelled: { reason?: string } | undefined;

  constructor(private readonly plan: StopPlan = {}) {
    if (plan.channel) this.cancelled = listen(plan.channel);
  }

  /** The reason the run stops (cancellation first), or undefined. */
  reason(): string | undefined {
    if (this.cancelled?.reason) return this.cancelled.reason;
    if (this.plan.deadline !== undefined && Date.now() >= this.plan.deadline) return `the time budget (${this.plan.budget ?? '--max-duration'}) ran out`;
    return undefined;
  }
}

/** Tells every session listening on `channel` that the run is cancelled, and why. */
export function broadcastStop(channel: string, reason: string): void {
  const c = new BroadcastChannel(channel);
  c.postMessage(reason);
  c.close();
}

/** "120 s", "2.5 s", "1500 ms": a budget as the run reports it. */
export function describeDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : ms > 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}
