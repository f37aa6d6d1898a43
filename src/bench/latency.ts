/**
 * The latency benchmark (`wgc bench --latency MS[,MS...]`): full runs against a reference that
 * is far away. Per latency, a reference in its own process (`wgc serve`) behind the
 * latency-injecting proxy (latency-proxy.ts: each request and each response held MS, so a round
 * trip costs 2 × MS), then N runs of `wgc run` against the proxy, each a process of its own
 * started asynchronously (the proxy answers from this process's event loop), timed from spawn to
 * exit. Latency 0 means no proxy: the run talks to the served reference directly (loopback).
 * Prints, per latency, the median wall time and every run's requests, credits and verdict, which
 * must not depend on the latency, and per suite its longest lane's checks' time added up.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../report/model.ts';
import { startLatencyProxy } from './latency-proxy.ts';
import { machineInfo, median, type Machine } from './measure.ts';
import { serveReference } from './server.ts';

const WGC_BIN = fileURLToPath(new URL('../../bin/wgc.mjs', import.meta.url));

/** One run through the proxy. */
export interface LatencyRun {
  wallMs: number;
  exitCode: number;
  requests: number;
  creditsCharged: number | null;
  verdict: string;
  /** Checks per outcome, e.g. { passed: 146, notObservable: 28 }. */
  counts: Record<string, number>;
  /**
   * Per suite, its longest lane's checks' time added up (ms): how long the suite takes with its
   * lanes side by side (SuiteDef.lanes), each lane one check after another, so the longest is
   * the run's critical path when every suite runs side by side.
   */
  suites: Record<string, number>;
  /** The longest checks of the run (ms), longest first: what a lane's length is made of. */
  longest: { checkId: string; ms: number }[];
  /** Requests per check: which checks a difference in the run's requests comes from. */
  checkRequests: Record<string, number>;
  /** Requests the proxy forwarded (0 without one). */
  forwarded: number;
  /** API calls the proxy's rate limit answered 429 (0 without one). */
  limited: number;
  /** 1-minute load average when the run started and ended. */
  load: [number, number];
  /** The pace the run chose and kept (report.json meta.pace). */
  pace?: RunResult['meta']['pace'];
}

export interface LatencyFigures {
  /** One-way delay in ms (a round trip costs twice that); 0: no proxy. */
  oneWayMs: number;
  runs: LatencyRun[];
  medianWallMs: number;
}

export interface LatencyBench {
  machine: Machine;
  /** wgc run arguments of every run (the target and --out added per run). */
  runArgs: string[];
  latencies: LatencyFigures[];
  /** True when every run at every latency had the same verdict, outcome counts, credits and requests per check. */
  same: boolean;
  load: [number, number];
}

export interface LatencyOptions {
  /** One-way delays in ms. */
  latencies: readonly number[];
  iterations: number;
  /** wgc run arguments (seed included). */
  runArgs: readonly string[];
  /** The lane of a check (SuiteDef.lanes: its group's index from 1; 0 for the suite's own); default: every check in lane 0. */
  laneOf?: (checkId: string) => number;
  progress?: (line: string) => void;
  /** API calls a minute the proxy lets through (--rate-limit); absent: no limit. */
  ratePerMinute?: number;
}

/**
 * The environment of a benchmark run: the caller's (PATH, proxies for other hosts) without any
 * WGC_ setting, which would change the run; only the control token of the served reference.
 */
function runEnv(controlToken: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WGC_')) env[k] = v;
  env['WGC_CONTROL_TOKEN'] = controlToken;
  return env;
}

/** Checks named per latency as the longest (bench output). */
const LONGEST_SHOWN = 5;

/** One `wgc run` against `origin`, in a process of its own (never spawnSync: the proxy lives in this event loop). */
async function timedLatencyRun(origin: string, controlToken: string, runArgs: readonly string[], laneOf: (checkId: string) => number): Promise<Omit<LatencyRun, 'forwarded' | 'limited'>> {
  // The working folder is empty, so no wg-conformance.json is discovered.
  const dir = mkdtempSync(join(tmpdir(), 'wgc-bench-latency-'));
  const out = join(dir, 'out');
  try {
    const loadBefore = loadavg()[0]!;
    const t0 = performance.now();
    const args = [WGC_BIN, 'run', ...runArgs, '--base-url', origin, '--control-url', `${origin}/__control/v1`, '--out', out, '--quiet'];
    const child = spawn(process.execPath, args, { cwd: dir, env: runEnv(controlToken), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-8_000)));
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c, signal) => resolve(c ?? (signal ? 128 : 2)));
    });
    const wallMs = performance.now() - t0;
    let report: RunResult;
    try {
      report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunResult;
    } catch {
      throw new Error(`the run (exit ${exitCode}) left no report: ${stderr.trim().slice(-2_000)}`);
    }
    const counts = Object.fromEntries(Object.entries(report.summary.counts as unknown as Record<string, number>).filter(([, n]) => typeof n === 'number' && n > 0));
    const lanes = new Map<string, number>();
    for (const c of report.checks) lanes.set(`${c.suite} ${laneOf(c.checkId)}`, (lanes.get(`${c.suite} ${laneOf(c.checkId)}`) ?? 0) + c.durationMs);
    const suites: Record<string, number> = {};
    for (const [lane, ms] of lanes) {
      const suite = lane.split(' ')[0]!;
      suites[suite] = Math.max(suites[suite] ?? 0, ms);
    }
    return {
      ...(report.meta.pace ? { pace: report.meta.pace } : {}),
      wallMs,
      exitCode,
      requests: report.meta.requests,
      creditsCharged: report.meta.creditsCharged,
      verdict: report.summary.verdict,
      counts,
      suites,
      longest: report.checks
        .map((c) => ({ checkId: c.checkId, ms: c.durationMs }))
        .sort((x, y) => y.ms - x.ms)
        .slice(0, LONGEST_SHOWN),
      checkRequests: Object.fromEntries(report.checks.map((c) => [c.checkId, c.requests])),
      load: [loadBefore, loadavg()[0]!],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the latency benchmark. Throws when a run leaves no report. */
export async function runLatencyBench(opts: LatencyOptions): Promise<LatencyBench> {
  const say = opts.progress ?? (() => {});
  const loadStart = loadavg()[0]!;
  const latencies: LatencyFigures[] = [];
  for (const oneWayMs of opts.latencies) {
    const runs: LatencyRun[] = [];
    for (let i = 1; i <= opts.iterations; i++) {
      // A fresh reference per run: every run starts from the same state.
      const ref = await serveReference();
      const rateLimit = opts.ratePerMinute !== undefined ? { rateLimit: { requests: opts.ratePerMinute, windowMs: 60_000 } } : {};
      const proxy = oneWayMs > 0 || opts.ratePerMinute !== undefined ? await startLatencyProxy(ref.origin, oneWayMs, rateLimit) : undefined;
      try {
        say(`latency ${oneWayMs} ms one-way, run ${i}/${opts.iterations}: wgc run ${opts.runArgs.join(' ')}`);
        const run = {
          ...(await timedLatencyRun(proxy?.origin ?? ref.origin, ref.controlToken, opts.runArgs, opts.laneOf ?? (() => 0))),
          forwarded: proxy?.forwarded ?? 0,
          limited: proxy?.limited ?? 0,
        };
        const pace = run.pace
          ? `, pace ${run.pace.concurrency} suites × ${run.pace.maxInFlight} in flight (round trip ${run.pace.roundTripMs?.toFixed(0) ?? '?'} ms${run.pace.rateLimitWaits ? `; ${run.pace.rateLimitWaits} rate-limit waits, ${(run.pace.rateLimitWaitedMs / 1000).toFixed(0)} s` : ''})`
          : '';
        say(
          `  ${(run.wallMs / 1000).toFixed(1)} s${pace}, ${run.requests} requests${opts.ratePerMinute !== undefined ? ` (${run.limited} answered 429 by the rate limit)` : ''}, ${run.creditsCharged ?? '-'} credits, ${run.verdict} (exit ${run.exitCode}), load ${run.load.map((l) => l.toFixed(1)).join('→')}`,
        );
        runs.push(run);
      } finally {
        await proxy?.close();
        await ref.close();
      }
    }
    latencies.push({ oneWayMs, runs, medianWallMs: median(runs.map((r) => r.wallMs)) });
  }
  const all = latencies.flatMap((l) => l.runs);
  // The checks' requests, not the run's: the preflight samples the round trip once more where
  // its first sample reads as near (src/target/pace.ts), which a loaded machine may not.
  const key = (r: LatencyRun): string => `${r.verdict} ${r.exitCode} ${JSON.stringify(r.checkRequests)} ${r.creditsCharged} ${JSON.stringify(r.counts)}`;
  return { machine: machineInfo(), runArgs: [...opts.runArgs], latencies, same: all.every((r) => key(r) === key(all[0]!)), load: [loadStart, loadavg()[0]!] };
}

/** The table: one row per latency. */
export function renderLatencyBench(b: LatencyBench): string {
  const out: string[] = [];
  out.push(`latency benchmark: wgc run ${b.runArgs.join(' ')}`);
  out.push(`machine: ${b.machine.nproc} CPUs (${b.machine.cpuModel}), Node ${b.machine.node}, ${b.machine.platform}`);
  const loads = b.latencies.flatMap((l) => l.runs.flatMap((r) => r.load));
  out.push(`load average (1 min): ${b.load[0].toFixed(1)} at start, ${b.load[1].toFixed(1)} at end; during the runs ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
  out.push('');
  out.push('| one-way latency | round trip | wall time (median) | runs | requests | credits | verdict |');
  out.push('|---|---|---|---|---|---|---|');
  for (const l of b.latencies) {
    const uniq = <T>(xs: T[]): string => [...new Set(xs.map(String))].join(' / ');
    const runs = l.runs.map((r) => (r.wallMs / 1000).toFixed(1)).join(', ');
    const verdicts = uniq(l.runs.map((r) => `${r.verdict} (exit ${r.exitCode})`));
    out.push(
      `| ${l.oneWayMs} ms | ${2 * l.oneWayMs} ms | **${(l.medianWallMs / 1000).toFixed(1)} s** | ${runs} s | ${uniq(l.runs.map((r) => r.requests))} | ${uniq(l.runs.map((r) => r.creditsCharged ?? '-'))} | ${verdicts} |`,
    );
  }
  out.push('');
  out.push('per suite, its longest lane, one check after another (median seconds; the longest bounds a run with every suite side by side):');
  for (const l of b.latencies) {
    const names = [...new Set(l.runs.flatMap((r) => Object.keys(r.suites)))];
    const times = names.map((n) => [n, median(l.runs.map((r) => r.suites[n] ?? 0))] as const).sort((x, y) => y[1] - x[1]);
    out.push(`  ${String(l.oneWayMs).padStart(5)} ms: ${times.map(([n, t]) => `${n} ${(t / 1000).toFixed(1)}`).join(', ')}`);
  }
  out.push('');
  out.push(`the longest checks (seconds, in the first run at each latency):`);
  for (const l of b.latencies) out.push(`  ${String(l.oneWayMs).padStart(5)} ms: ${(l.runs[0]?.longest ?? []).map((c) => `${c.checkId} ${(c.ms / 1000).toFixed(1)}`).join(', ')}`);
  out.push('');
  out.push(
    b.same
      ? 'same verdict, outcome counts, credits and requests per check in every run at every latency'
      : 'DIFFERENT verdicts, outcome counts, credits or requests per check between runs: see the rows above',
  );
  if (!b.same) {
    const runs = b.latencies.flatMap((l) => l.runs);
    const ids = [...new Set(runs.flatMap((r) => Object.keys(r.checkRequests ?? {})))].sort();
    const differ = ids.filter((id) => new Set(runs.map((r) => r.checkRequests?.[id])).size > 1);
    if (differ.length > 0) out.push(`checks whose requests differ between runs: ${differ.map((id) => `${id} (${runs.map((r) => r.checkRequests?.[id] ?? '-').join(', ')})`).join('; ')}`);
  }
  return `${out.join('\n')}\n`;
}
