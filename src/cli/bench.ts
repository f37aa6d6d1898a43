/**
 * `wgc bench [--iterations N] [--json FILE] [wgc run options]`: how fast a full run is, how
 * close it comes to the loopback limit, and what it costs in credits. Runs `wgc run` against
 * the embedded reference N times (a process each, timed, memory sampled), replays the same
 * requests raw for comparison, attributes every ledger charge to a check, and prints medians.
 * Everything heavy is imported lazily: `wgc bench --child-run` (one timed run) starts as
 * lightly as `wgc run`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processIo, type CliIo } from '../report/io.ts';

export const BENCH_USAGE = `usage: wgc bench [--iterations N] [--json FILE] [--latency MS[,MS...]] [wgc run options]

Benchmarks full conformance runs against the embedded reference target: N timed runs of
wgc run (default 3) and as many raw replays of the same requests, then prints medians: wall
time, requests, requests/s, peak RSS, CPU, credits charged, where the time goes, the same per
suite, the suite/raw ratio, and the credit plan against the ledgers per check.

  --iterations N   timed runs (default 3; per latency with --latency)
  --json FILE      also write every figure as JSON
  --latency MS,... instead: full runs against a reference behind a proxy holding every request
                   and every response MS ms (a round trip of 2 x MS; 0: loopback, no proxy);
                   prints per latency the median wall time, requests, credits and verdict
  --rate-limit N   with --latency: the proxy also lets through at most N API calls a minute
                   (a sliding window; past it 429 with Retry-After), as a staging gateway does
  --seed N         property seed of every run (default 1, so iterations are comparable)
  other options go to wgc run (e.g. --suite auth, --concurrency 3, --runs 10); the target
  (--base-url, --control-url, --target) and --out, --shard, --certify are the benchmark's own.
`;

/** wgc run options the benchmark decides itself. */
const REFUSED = ['--base-url', '--control-url', '--target', '--out', '--shard', '--certify'];

interface BenchArgs {
  iterations: number;
  json?: string;
  /** One-way delays in ms (--latency). */
  latencies?: number[];
  /** API calls a minute the proxy lets through (--rate-limit). */
  ratePerMinute?: number;
  runArgs: string[];
}

/** The value of --latency: one-way delays in ms, 0 to 10000, comma-separated. */
export function parseLatencies(v: string | undefined): number[] | string {
  const parts = (v ?? '').split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d{1,5}$/.test(p) || Number(p) > 10_000)) {
    return `--latency takes one-way delays in ms from 0 to 10000, comma-separated (e.g. 0,25,100), got ${JSON.stringify(v ?? '')}`;
  }
  return parts.map(Number);
}

export function parseArgs(argv: readonly string[]): BenchArgs | string {
  const args: BenchArgs = { iterations: 3, runArgs: [] };
  let seed = '1';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const value = (): string | undefined => (eq > 0 && a.startsWith('--') ? a.slice(eq + 1) : argv[++i]);
    if (name === '--iterations') {
      const v = value();
      if (v === undefined || !/^[1-9]\d{0,2}$/.test(v)) return `--iterations must be an integer from 1 to 999, got ${JSON.stringify(v ?? '')}`;
      args.iterations = Number(v);
    } else if (name === '--json') {
      const v = value();
      if (!v) return '--json needs a file name';
      args.json = v;
    } else if (name === '--latency') {
      const l = parseLatencies(value());
      if (typeof l === 'string') return l;
      args.latencies = l;
    } else if (name === '--rate-limit') {
      const v = value();
      if (v === undefined || !/^[1-9]\d{0,6}$/.test(v)) return `--rate-limit takes API calls a minute, an integer from 1, got ${JSON.stringify(v ?? '')}`;
      args.ratePerMinute = Number(v);
    } else if (name === '--seed') {
      const v = value();
      if (v === undefined) return '--seed needs a value';
      seed = v;
    } else if (REFUSED.includes(name)) {
      return `${name}: the benchmark chooses the target and the output itself`;
    } else args.runArgs.push(a);
  }
  if (args.ratePerMinute !== undefined && !args.latencies) return '--rate-limit needs --latency (the limit lives in the latency proxy; --latency 0 for none)';
  args.runArgs.push('--seed', seed);
  return args;
}

/** Runs `wgc bench`; returns the exit code (0 figures printed, 2 usage error or a run that left no report). */
export async function benchCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  if (argv[0] === '--child-run') {
    // One timed run, started by the benchmark itself: wgc bench --child-run FILE -- <run args>.
    const { runTimedChild } = await import('../bench/child.ts');
    const sep = argv.indexOf('--');
    return runTimedChild(argv[1] ?? join(process.cwd(), 'wgc-bench-child.json'), sep < 0 ? [] : argv.slice(sep + 1), {}, async () => (await import('./run.ts')).runCommand);
  }
  if (argv[0] === '--child-replay') {
    // One raw replay in a fresh process, started by the benchmark itself (job on stdin).
    const { runReplayChild } = await import('../bench/replay-child.ts');
    return runReplayChild(process.stdin, io.out);
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(BENCH_USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    io.err(`wgc bench: ${args}\n${BENCH_USAGE}`);
    return 2;
  }
  if (args.latencies) return latencyBench(args, args.latencies, io);
  const { resolveConfig, ConfigError } = await import('../config/index.ts');
  let config;
  try {
    // The environment is left out on purpose: a benchmark is defined by its arguments alone.
    ({ config } = resolveConfig({ argv: args.runArgs, env: {}, readFile: (p) => readFileSync(p, 'utf8'), discoverProfile: false }));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.err(`${e.problems.map((p) => `wgc bench: ${p}`).join('\n')}\n`);
    return 2;
  }
  const { PACKAGE_ROOT } = await import('./run.ts');
  const { discoverSuites, loadSuiteDefs } = await import('../engine/discover.ts');
  const suites = await loadSuiteDefs(await discoverSuites(resolve(config.suitesDir ?? join(PACKAGE_ROOT, 'suites'))), PACKAGE_ROOT);
  const unknown = config.suites.filter((s) => !suites.some((d) => d.name === s));
  if (unknown.length > 0) {
    io.err(`wgc bench: --suite: unknown suite ${unknown.join(', ')}; available: ${suites.map((s) => s.name).join(', ')}\n`);
    return 2;
  }
  const { runBench } = await import('../bench/measure.ts');
  const { renderBench } = await import('../bench/render.ts');
  let result;
  try {
    result = await runBench({ iterations: args.iterations, runArgs: args.runArgs, config, suites, progress: (line) => io.err(`${line}\n`) });
  } catch (e) {
    io.err(`wgc bench: ${(e as Error).message}\n`);
    return 2;
  }
  io.out(renderBench(result));
  if (args.json) {
    writeFileSync(resolve(args.json), `${JSON.stringify(result, null, 2)}\n`);
    io.out(`figures written to ${resolve(args.json)}\n`);
  }
  return 0;
}

/** `wgc bench --latency`: the runs' own config errors end them with exit 2, reported as a missing report. */
async function latencyBench(args: BenchArgs, latencies: number[], io: CliIo): Promise<number> {
  const { runLatencyBench, renderLatencyBench } = await import('../bench/latency.ts');
  let result;
  try {
    // Which lane each check runs in (SuiteDef.lanes), for the per-suite critical path.
    const { PACKAGE_ROOT } = await import('./run.ts');
    const { discoverSuites, loadSuiteDefs } = await import('../engine/discover.ts');
    const suites = await loadSuiteDefs(await discoverSuites(join(PACKAGE_ROOT, 'suites')), PACKAGE_ROOT);
    const lanes = new Map(suites.flatMap((s) => (s.lanes ?? []).flatMap((lane, i) => lane.map((c) => [c.id, i + 1] as const))));
    result = await runLatencyBench({
      latencies,
      iterations: args.iterations,
      runArgs: args.runArgs,
      laneOf: (id) => lanes.get(id) ?? 0,
      progress: (line) => io.err(`${line}\n`),
      ...(args.ratePerMinute !== undefined ? { ratePerMinute: args.ratePerMinute } : {}),
    });
  } catch (e) {
    io.err(`wgc bench: ${(e as Error).message}\n`);
    return 2;
  }
  io.out(renderLatencyBench(result));
  if (args.json) {
    writeFileSync(resolve(args.json), `${JSON.stringify(result, null, 2)}\n`);
    io.out(`figures written to ${resolve(args.json)}\n`);
  }
  return 0;
}
