/**
 * Memory measurements. In-process: the peak growth of heap plus array buffers (where response
 * Buffers live) while a function runs, sampled every few ms. Out of process: the peak RSS of a
 * process and all its descendants (a `wgc run` does its HTTP in vitest worker processes), read
 * from /proc (VmHWM catches peaks between samples).
 */
import { readFileSync, readdirSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';

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

function children(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    } catch {
      /* the task ended */
    }
  }
  return out;
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

/** Samples a process tree until stop(); `peak` is the largest RSS any single process of it reached. */
export function watchTree(root: number, everyMs = 50): { stop(): { peak: number; processes: number } } {
  const seen = new Map<number, number>();
  const sample = (): void => {
    const stack = [root];
    while (stack.length > 0) {
      const pid = stack.pop()!;
      const h = hwm(pid);
      if (h > 0) seen.set(pid, Math.max(seen.get(pid) ?? 0, h));
      stack.push(...children(pid));
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { peak: Math.max(0, ...seen.values()), processes: seen.size };
    },
  };
}
