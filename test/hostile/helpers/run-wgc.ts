/**
 * Runs `wgc run` end to end as a child process (`node bin/wgc.mjs run ...`) against a target, the way an operator would: keys through a profile that names environment
 * variables, the control token in WGC_CONTROL_TOKEN. A child process can be killed when it
 * overruns its bound (a hang fails the test instead of stalling it) and its memory is
 * measured over its whole process tree (the suites run in vitest worker processes).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../../src/report/model.ts';
import { readTree } from './leaks.ts';
import { watchTree } from './memory.ts';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface WgcRun {
  /** --base-url. */
  baseUrl: string;
  /** --control-url (with controlToken). */
  controlUrl?: string;
  /** Keys supplied through the profile: cast-free labels → secrets. Without control only. */
  keys?: Record<string, string>;
  /** Use the target's control endpoint with this token. */
  controlToken?: string;
  timeoutMs: number;
  /** --suite values; empty or absent: every suite. */
  suites?: readonly string[];
  concurrency?: number;
  /** Flags added as they are. */
  extra?: readonly string[];
  /** Kill the run (its whole process group) after this long: a hang then fails the test. */
  killAfterMs: number;
}

export interface WgcRunOutcome {
  exitCode: number | null;
  killed: boolean;
  ms: number;
  stdout: string;
  stderr: string;
  /** report.json, when written. */
  report?: RunResult;
  /** Every file under --out, by path. */
  files: Record<string, string>;
  /** Largest RSS any process of the run reached, in bytes. */
  peakRss: number;
  /** Peak RSS of each process of the run (the wgc process, vitest workers). */
  processes: { pid: number; peak: number; command: string }[];
  /** The argv, for messages. */
  argv: string[];
}

/** Process groups of the runs still going (killed by killAll when a test file ends early). */
const live = new Set<number>();

/** Kills every run still going (their whole process groups); for afterAll. */
export function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}

/** Runs wgc and removes its temporary folder afterwards. */
export async function runWgc(opts: WgcRun): Promise<WgcRunOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'wgc-hostile-'));
  try {
    const out = join(dir, 'out');
    const env: NodeJS.ProcessEnv = {};
    // Nothing of the caller's WGC_* configuration may leak into the run.
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WGC_')) env[k] = v;
    const argv = ['bin/wgc.mjs', 'run', '--base-url', opts.baseUrl, '--timeout', String(opts.timeoutMs), '--out', out, '--seed', '1', '--runs', '1'];
    argv.push('--concurrency', String(opts.concurrency ?? 1));
    for (const s of opts.suites ?? []) argv.push('--suite', s);
    const keys = Object.entries(opts.keys ?? {});
    if (keys.length > 0) {
      const profile = join(dir, 'profile.json');
      writeFileSync(profile, JSON.stringify({ keys: keys.map(([name], i) => ({ name, env: `HOSTILE_KEY_${i}` })) }));
      keys.forEach(([, secret], i) => (env[`HOSTILE_KEY_${i}`] = secret));
      argv.push('--target', profile);
    }
    if (opts.controlToken) {
      argv.push('--control-url', opts.controlUrl!);
      env.WGC_CONTROL_TOKEN = opts.controlToken;
    }
    argv.push(...(opts.extra ?? []));

    const started = Date.now();
    // Own process group: a kill reaches the vitest workers too.
    const child = spawn(process.execPath, argv, { cwd: PACKAGE_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child.pid!);
    const watch = watchTree(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    let killed = false;
    const killer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, opts.killAfterMs);
    const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    clearTimeout(killer);
    live.delete(child.pid!);
    const ms = Date.now() - started;
    const { peak, byProcess } = watch.stop();
    const files = existsSync(out) ? readTree(out) : {};
    const reportPath = join(out, 'report.json');
    const report = existsSync(reportPath) ? (JSON.parse(readFileSync(reportPath, 'utf8')) as RunResult) : undefined;
    return { exitCode, killed, ms, stdout, stderr, ...(report ? { report } : {}), files, peakRss: peak, processes: byProcess, argv };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A limit on how many runs go at once (each is a few processes on a shared machine). */
export function limiter(max: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}
