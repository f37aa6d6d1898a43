/**
 * Starts one timed run (`wgc bench --child-run`, i.e. `wgc run` under an observer) as a child
 * process, samples the memory of its process tree while it runs, and gathers what it reports
 * with the report.json it wrote.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../report/model.ts';
import type { ChildReport } from './child.ts';
import { sampleTreeRss } from './rss.ts';

const WGC_BIN = fileURLToPath(new URL('../../bin/wgc.mjs', import.meta.url));

export interface TimedRun {
  /** From spawning the process to its exit: what a user waits for. */
  wallMs: number;
  exitCode: number;
  /** Highest summed RSS of the process tree (sampled), or the process's own peak if higher. */
  peakRssBytes: number;
  rssSamples: number;
  cpuMs: number;
  /** 1-minute load average when the run started and ended. */
  load: [number, number];
  /** Milliseconds from spawn to each phase's end. */
  phases: Record<string, number>;
  child: ChildReport;
  report: Pick<RunResult, 'meta' | 'summary' | 'checks'>;
}

/** Runs `wgc run <runArgs>` once, timed; throws when the run produced no report. */
export async function timedRun(runArgs: readonly string[], opts: { rssIntervalMs?: number } = {}): Promise<TimedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'wgc-bench-'));
  const resultFile = join(dir, 'child.json');
  const out = join(dir, 'out');
  try {
    const loadBefore = loadavg()[0]!;
    const spawnedAt = Date.now();
    const t0 = performance.now();
    const child = spawn(process.execPath, [WGC_BIN, 'bench', '--child-run', resultFile, '--', ...runArgs, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-8_000)));
    const sampler = child.pid !== undefined ? sampleTreeRss(child.pid, opts.rssIntervalMs ?? 50) : undefined;
    const code = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c, signal) => resolve(c ?? (signal ? 128 : 2)));
    });
    const wallMs = performance.now() - t0;
    const rss = sampler?.stop() ?? { peakBytes: 0, samples: 0 };
    const loadAfter = loadavg()[0]!;
    let child_: ChildReport;
    let report: RunResult;
    try {
      child_ = JSON.parse(readFileSync(resultFile, 'utf8')) as ChildReport;
      report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunResult;
    } catch {
      throw new Error(`the timed run (exit ${code}) left no report: ${stderr.trim().slice(-2_000)}`);
    }
    const phases: Record<string, number> = { processStart: child_.processStart - spawnedAt };
    for (const [name, at] of Object.entries(child_.phases)) if (at !== undefined) phases[name] = at - spawnedAt;
    // When vitest handed its worker the suites (the worker imports them while the command plans).
    const queuedAt = child_.files[0]?.queuedAt;
    if (queuedAt !== undefined) phases['workerQueued'] = queuedAt - spawnedAt;
    phases['exit'] = wallMs;
    return {
      wallMs,
      exitCode: code,
      peakRssBytes: Math.max(rss.peakBytes, child_.maxRssKb * 1024),
      rssSamples: rss.samples,
      cpuMs: (child_.cpuUserUs + child_.cpuSystemUs) / 1000,
      load: [loadBefore, loadAfter],
      phases,
      child: child_,
      report: { meta: report.meta, summary: report.summary, checks: report.checks },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
