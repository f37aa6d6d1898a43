/**
 * Memory measurements. In-process: the peak growth of heap plus array buffers (where response
 * Buffers live) while a function runs, sampled every few ms. Out of process: the peak RSS of a
 * process and all its descendants (a `wgc run` does its HTTP in vitest worker processes), read
 * from /proc (VmHWM catches peaks between samples).
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { childrenOf } from '../../../src/bench/rss.ts';

export interface MemoryPeak {
  /** Peak of (heapUsed + arrayBuffers) above the value before, in bytes. */
  heapGrowth: number;
  /** Peak RSS above the value before, in bytes. */
  rssGrowth: number;
  /** Heap plus array buffers after a GC, above the value before (what was retained). */
  retained: number;
}

/** A full GC, without --expose-gc on the command line (vitest workers do not have it). */
function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}
const used = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** Runs `fn` and reports how much memory it took at its peak. */
export async function measurePeak<T>(fn: () => Promise<T>, everyMs = 5): Promise<{ result: T; peak: MemoryPeak }> {
  gc();
  const before = used();
  const rssBefore = process.memoryUsage().rss;
  let heapPeak = before;
  let rssPeak = rssBefore;
  const sample = (): void => {
    heapPeak = Math.max(heapPeak, used());
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  };
  const timer = setInterval(sample, everyMs);
  try {
    const result = await fn();
    sample();
    gc();
    return { result, peak: { heapGrowth: heapPeak - before, rssGrowth: rssPeak - rssBefore, retained: used() - before } };
  } finally {
    clearInterval(timer);
  }
}

/** Peak RSS (VmHWM) in bytes of one process, or 0 when it is gone. */
function hwm(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The command line of a process, shortened (for messages). */
function command(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return argv
      .map((a) => a.split('/').slice(-2).join('/'))
      .join(' ')
      .slice(0, 120);
  } catch {
    return '';
  }
}

/** Samples a process tree until stop(); `peak` is the largest RSS any single process of it reached. */
export function watchTree(root: number, everyMs = 50): { stop(): { peak: number; processes: number; byProcess: { pid: number; peak: number; command: string }[] } } {
  const seen = new Map<number, number>();
  const commands = new Map<number, string>();
  const sample = (): void => {
    const stack = [root];
    while (stack.length > 0) {
      const pid = stack.pop()!;
      const h = hwm(pid);
      if (h > 0) {
        seen.set(pid, Math.max(seen.get(pid) ?? 0, h));
        if (!commands.has(pid)) commands.set(pid, command(pid));
      }
      stack.push(...childrenOf(pid));
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const byProcess = [...seen].map(([pid, peak]) => ({ pid, peak, command: commands.get(pid) ?? '' }));
      return { peak: Math.max(0, ...seen.values()), processes: seen.size, byProcess };
    },
  };
}
