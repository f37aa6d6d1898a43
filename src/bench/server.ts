/**
 * A reference target in its own process (`wgc serve` on an ephemeral loopback port), so the
 * raw replay's client and server do not share one event loop: a run has the same split
 * (reference in the main thread, suite clients in the vitest workers).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const WGC_BIN = fileURLToPath(new URL('../../bin/wgc.mjs', import.meta.url));

export interface ServedReference {
  /** e.g. http://127.0.0.1:4010 */
  origin: string;
  controlToken: string;
  pid: number;
  close(): Promise<void>;
}

/** A control token for references the benchmark starts (one per bench: the replay reuses the recording's). */
export function benchControlToken(): string {
  return `wgct_bench_${randomBytes(16).toString('hex')}`;
}

/** Starts `wgc serve --port 0` and resolves once it prints where it listens. */
export function serveReference(opts: { controlToken?: string; startTimeoutMs?: number } = {}): Promise<ServedReference> {
  const controlToken = opts.controlToken ?? benchControlToken();
  const child = spawn(process.execPath, [WGC_BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--control-token', controlToken], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<ServedReference>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`wgc serve did not start within ${opts.startTimeoutMs ?? 60_000} ms: ${err.trim()}`)), opts.startTimeoutMs ?? 60_000);
    const fail = (e: Error): void => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(e);
    };
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const early = (code: number | null): void => fail(new Error(`wgc serve exited (${code}) before listening: ${err.trim()}`));
    child.once('exit', early);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const m = /API:\s+(http:\/\/[^\s]+)\/api\/v1/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve({
        origin: m[1]!,
        controlToken,
        pid: child.pid!,
        async close() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
