/**
 * Peak resident memory of a process tree (a run: the main process with its vitest worker
 * threads, plus any child processes), sampled from /proc on Linux. Elsewhere the sampler
 * reports nothing and the run's own `process.resourceUsage().maxRSS` is the only figure.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size of one process in bytes, or 0 when it is gone or /proc is absent. */
function rssOf(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Direct children of a process, over all its threads (a worker thread may spawn, too). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/)) if (c) out.push(Number(c));
    } catch {
      /* the thread ended between the listing and the read */
    }
  }
  return out;
}

/** Summed RSS of `root` and all its descendants, in bytes. */
export function treeRss(root: number): number {
  let total = 0;
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    total += rssOf(pid);
    stack.push(...childrenOf(pid));
  }
  return total;
}

export interface RssSampler {
  /** Stops sampling; returns the highest tree RSS seen (bytes; 0 when nothing could be read) and the sample count. */
  stop(): { peakBytes: number; samples: number };
}

/** Samples the tree's RSS every `intervalMs` until stopped. */
export function sampleTreeRss(root: number, intervalMs = 50): RssSampler {
  let peak = 0;
  let samples = 0;
  const tick = (): void => {
    const now = treeRss(root);
    if (now > 0) samples++;
    if (now > peak) peak = now;
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return { peakBytes: peak, samples };
    },
  };
}
