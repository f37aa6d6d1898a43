/**
 * The raw replay in a process of its own (`wgc bench --child-replay`), so the client is as cold
 * as a run's: a timed run starts a fresh process whose vitest worker imports src/http and sends
 * its first request with nothing compiled, while a replay in the benchmark's process follows the
 * recording pass, which has already sent the same requests through the same code. The recording
 * goes to the child on its stdin and the figures come back on its stdout: the records hold live
 * secrets of an ephemeral reference and are never written to a file.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RecordedRequest } from './recording.ts';
import type { ReplayJob, ReplayResult } from './replay.ts';

const WGC_BIN = fileURLToPath(new URL('../../bin/wgc.mjs', import.meta.url));

type Encoded = Omit<RecordedRequest, 'body' | 'responseBody'> & { body?: string | { base64: string }; responseBody: string };

function encode(records: readonly RecordedRequest[]): Encoded[] {
  return records.map((r) => ({
    ...r,
    body: r.body === undefined || typeof r.body === 'string' ? r.body : { base64: r.body.toString('base64') },
    responseBody: r.responseBody.toString('base64'),
  }));
}

function decode(records: readonly Encoded[]): RecordedRequest[] {
  return records.map((r) => ({
    ...r,
    body: r.body === undefined || typeof r.body === 'string' ? r.body : Buffer.from(r.body.base64, 'base64'),
    responseBody: Buffer.from(r.responseBody, 'base64'),
  }));
}

/** Replays `records` to `job.origin` from a fresh `wgc bench --child-replay` process. */
export function replayInFreshProcess(records: readonly RecordedRequest[], job: ReplayJob, timeoutMs = 300_000): Promise<ReplayResult> {
  const child = spawn(process.execPath, [WGC_BIN, 'bench', '--child-replay'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString('utf8')).slice(-4_000)));
  child.stdin.end(JSON.stringify({ job, records: encode(records) }));
  return new Promise<ReplayResult>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(out) as ReplayResult);
      } catch (e) {
        reject(new Error(`the raw replay process failed (${(e as Error).message}): ${err.trim().slice(-1_000)}`));
      }
    });
  });
}

/** The child's side: reads the job from stdin, replays, prints the ReplayResult as JSON. */
export async function runReplayChild(stdin: NodeJS.ReadableStream, write: (text: string) => void): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  const { job, records } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { job: ReplayJob; records: Encoded[] };
  const { replayTo } = await import('./replay.ts');
  write(JSON.stringify(await replayTo(decode(records), job)));
  return 0;
}
