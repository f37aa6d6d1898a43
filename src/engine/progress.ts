/**
 * Progress while a run goes on, so a slow target never looks hung. Never part of a report.
 *
 * - On a terminal: one live line, redrawn at most every 250 ms: checks done of total, failures,
 *   requests, credits planned for the checks done, elapsed and an estimate of what is left.
 * - Without one (CI logs): the per-suite lines the launcher prints, and a heartbeat line when
 *   nothing was printed for `heartbeatMs` (10 s), naming the suites still running.
 */
import type { CheckResult } from './check.ts';

export interface ProgressOptions {
  /** Checks the run will report (every selected check). */
  total: number;
  /** A whole line (no newline): per-suite lines and heartbeats. */
  print: (line: string) => void;
  /** Redraws the live line (terminal only); called with '' to clear it. */
  live?: (text: string) => void;
  heartbeatMs?: number;
  now?: () => number;
}

export const HEARTBEAT_MS = 10_000;

/**
 * Marks a line the run's worker writes for the person watching (the pace's rate-limit waits,
 * src/http/limit.ts): the launcher's reporter prints such lines as progress and drops every
 * other console line of the worker.
 */
export const PACE_LINE = '[wgc pace] ';
const LIVE_MS = 250;

const secs = (ms: number): string => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`);

export class Progress {
  private done = 0;
  private failed = 0;
  private requests = 0;
  private credits = 0;
  private readonly started: number;
  private lastPrint: number;
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private total: number;

  constructor(private readonly opts: ProgressOptions) {
    this.now = opts.now ?? Date.now;
    this.total = opts.total;
    this.started = this.now();
    this.lastPrint = this.started;
    this.timer = setInterval(() => this.tick(), opts.live ? LIVE_MS : Math.min(1000, opts.heartbeatMs ?? HEARTBEAT_MS));
    this.timer.unref();
  }

  /** The number of checks, once known (a gated run learns it while vitest starts). */
  setTotal(total: number): void {
    this.total = total;
  }

  suiteStarted(name: string): void {
    this.running.add(name);
  }

  checkDone(result: CheckResult | undefined): void {
    this.done++;
    if (!result) return;
    if (result.outcome === 'failed' || result.outcome === 'harnessError') this.failed++;
    this.requests += result.requests;
    this.credits += result.plannedCredits;
  }

  /** A per-suite line (the live line is cleared first and redrawn after). */
  suiteLine(name: string, line: string): void {
    this.running.delete(name);
    this.opts.live?.('');
    this.opts.print(line);
    this.lastPrint = this.now();
    this.tick();
  }

  /** A line about the whole run (a rate-limit wait), printed as it comes. */
  note(line: string): void {
    this.opts.live?.('');
    this.opts.print(line);
    this.lastPrint = this.now();
    this.tick();
  }

  /** The status as one line. */
  status(): string {
    const elapsed = this.now() - this.started;
    const left = this.done > 0 && this.done < this.total ? ` · ~${secs((elapsed / this.done) * (this.total - this.done))} left` : '';
    return `${this.done}/${this.total} checks · ${this.failed} failed · ${this.requests} requests · ${this.credits} credits planned · ${secs(elapsed)}${left}`;
  }

  tick(): void {
    if (this.opts.live) {
      this.opts.live(`… ${this.status()}`);
      return;
    }
    if (this.now() - this.lastPrint < (this.opts.heartbeatMs ?? HEARTBEAT_MS)) return;
    this.opts.print(`… still running${this.running.size ? ` (${[...this.running].join(', ')})` : ''}: ${this.status()}`);
    this.lastPrint = this.now();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.opts.live?.('');
  }
}
