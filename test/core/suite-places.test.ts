/**
 * `wgc run` starts vitest before it knows the pace (src/cli/run.ts): vitest runs every suite of
 * the run at once and each waits in the worker for its place (src/engine/vitest.ts), so that no
 * more suites run side by side than the pace says (--concurrency, or the round trip's choice).
 * In the compiled tree the worker thread is the one the run started before vitest
 * (src/engine/prewarm.ts), adopted by vitest's pool.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { runCommand } from '../../src/cli/run.ts';
import type { RunObserver } from '../../src/engine/phases.ts';
import type { SessionSummary } from '../../src/engine/session.ts';
// @ts-expect-error: plain JavaScript without declarations (the bin runs before any compiler)
import { compiledIsFresh } from '../../bin/compiled.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

type Run = typeof runCommand;

/** One run of three quick suites; its exit code, phases and the sessions vitest reported. */
async function observed(run: Run, args: string[]): Promise<{ code: number; phases: Set<string>; sessions: SessionSummary[]; err: string }> {
  const out = await mkdtemp(join(tmpdir(), 'wgc-places-'));
  dirs.push(out);
  const phases = new Set<string>();
  let sessions: SessionSummary[] = [];
  let err = '';
  const observer: RunObserver = { phase: (p) => void phases.add(p), vitest: (vt) => void (sessions = vt.sessions) };
  const io = { out: () => undefined, err: (t: string) => void (err += t) };
  const code = await run(['--suite', 'roles', '--suite', 'scopes', '--suite', 'operations', '--seed', '1', '--runs', '2', '--out', out, ...args], {}, io, observer);
  return { code, phases, sessions, err };
}

/** The most sessions open at one instant. */
function mostAtOnce(sessions: readonly SessionSummary[]): number {
  const edges = sessions.flatMap((s) => [
    { at: s.openedAt, d: 1 },
    { at: s.openedAt + s.durationMs, d: -1 },
  ]);
  // A session that closes at the instant another opens is not beside it.
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let open = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (open += e.d));
  return most;
}

describe('suites side by side', () => {
  test('--concurrency 1: one suite after another, though vitest runs them all at once', async () => {
    const r = await observed(runCommand, ['--concurrency', '1']);
    expect(r.code, r.err).toBe(0);
    expect(r.sessions.map((s) => s.suite).sort()).toEqual(['operations', 'roles', 'scopes']);
    expect(mostAtOnce(r.sessions)).toBe(1);
  }, 120_000);

  test('--concurrency 2: the first two together, never three', async () => {
    const r = await observed(runCommand, ['--concurrency', '2']);
    expect(r.code, r.err).toBe(0);
    expect(r.sessions).toHaveLength(3);
    expect(mostAtOnce(r.sessions)).toBe(2);
  }, 120_000);
});

const DIST = join(ROOT, 'dist');
const fresh = existsSync(join(DIST, 'src/cli/run.js')) && (compiledIsFresh(ROOT, DIST) as boolean);
if (!fresh && !process.env['CI']) console.warn('suite-places.test.ts: dist/ is not built from these sources (npm run build): the compiled run is not tested here; CI builds it and runs this test');

describe.skipIf(!fresh && !process.env['CI'])('the compiled run', () => {
  test("vitest's pool adopts the worker thread started before vitest, which outlines the suites; the suites still keep their places", async () => {
    const compiled = (await import(join(DIST, 'src/cli/run.js'))) as { runCommand: Run };
    const r = await observed(compiled.runCommand, ['--concurrency', '1']);
    expect(r.code, r.err).toBe(0);
    expect(r.phases.has('workerAdopted'), 'the worker thread started before vitest was adopted').toBe(true);
    expect(r.phases.has('suitesOutlined'), 'the run took the outline and plan that thread worked out').toBe(true);
    expect(mostAtOnce(r.sessions)).toBe(1);
  }, 120_000);

  test('the thread the command starts as it starts (bin/wg-conformance.mjs) is the one adopted', async () => {
    const prewarm = (await import(join(DIST, 'src/engine/prewarm.js'))) as { startEarlyWorker(): void; takeEarlyWorker(): { thread: { threadId: number } } | undefined };
    prewarm.startEarlyWorker();
    const early = prewarm.takeEarlyWorker();
    expect(early, 'started').toBeDefined();
    // Handed back for the run to take, as the entry leaves it.
    prewarm.startEarlyWorker();
    const compiled = (await import(join(DIST, 'src/cli/run.js'))) as { runCommand: Run };
    const r = await observed(compiled.runCommand, ['--concurrency', '2']);
    expect(r.code, r.err).toBe(0);
    expect(r.phases.has('workerAdopted')).toBe(true);
    expect(r.phases.has('suitesOutlined')).toBe(true);
    expect(prewarm.takeEarlyWorker(), 'the run took it').toBeUndefined();
    await (early as unknown as { dispose(): Promise<void> }).dispose();
  }, 120_000);
});
