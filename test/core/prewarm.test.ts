/**
 * The worker thread `wgc run` starts before vitest (src/engine/prewarm.ts) is handed to vitest's
 * pool only when the pool asks for exactly the runtime, variables and flags it was started with;
 * otherwise the pool starts its own and this one is stopped. A thread nobody adopted is stopped.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { PoolOptions } from 'vitest/node';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PrewarmedWorker } from '../../src/engine/prewarm.ts';

const DIST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'dist');
const started: PrewarmedWorker[] = [];
afterEach(async () => {
  for (const w of started.splice(0)) await w.dispose();
});

function prewarmed(): PrewarmedWorker {
  const w = new PrewarmedWorker([]);
  started.push(w);
  return w;
}

/** What the pool hands a worker it starts (only the fields the adoption reads). */
function asked(w: PrewarmedWorker, change: { env?: Record<string, string | undefined>; execArgv?: string[]; distPath?: string } = {}): PoolOptions {
  return { distPath: change.distPath ?? DIST, env: change.env ?? { ...w.env }, execArgv: change.execArgv ?? [...w.execArgv] } as unknown as PoolOptions;
}

const exited = (w: PrewarmedWorker): Promise<number> => new Promise((resolve) => w.thread.once('exit', resolve));

describe('a worker thread started before vitest', () => {
  test('is adopted once, by a pool that asks for what it was started with', () => {
    const w = prewarmed();
    let adopted = 0;
    w.onAdopted = () => adopted++;
    expect(w.claim(asked(w))).toBe(w.thread);
    expect(w.claim(asked(w))).toBeUndefined();
    expect(adopted).toBe(1);
  });

  test('is refused for another variable, flag or runtime, and stays free for one that matches', () => {
    const w = prewarmed();
    expect(w.claim(asked(w, { env: { ...w.env, VITE_EXTRA: '1' } }))).toBeUndefined();
    const { MODE: _, ...lessEnv } = w.env;
    expect(w.claim(asked(w, { env: lessEnv }))).toBeUndefined();
    expect(w.claim(asked(w, { execArgv: [...w.execArgv, '--conditions', 'custom'] }))).toBeUndefined();
    expect(w.claim(asked(w, { distPath: '/elsewhere/vitest/dist' }))).toBeUndefined();
    expect(w.claim(asked(w))).toBe(w.thread);
  });

  test('is stopped when nobody adopted it, and left to the pool when one did', async () => {
    const free = prewarmed();
    const gone = exited(free);
    await free.dispose();
    await gone;
    expect(free.claim(asked(free)), 'a stopped thread is never handed out').toBeUndefined();
    const taken = prewarmed();
    expect(taken.claim(asked(taken))).toBe(taken.thread);
    await taken.dispose();
    // Still running: the pool that adopted it stops it.
    expect(taken.thread.threadId).toBeGreaterThan(0);
    const stopped = exited(taken);
    await taken.thread.terminate();
    await stopped;
  });

  test('predicts what vitest 4.1 asks for: its variables, flags and conditions', () => {
    const w = prewarmed();
    expect(w.env).toMatchObject({ TEST: 'true', VITEST: 'true', VITEST_MODE: 'RUN', MODE: 'test', BASE_URL: '/', DEV: '1', PROD: '' });
    expect(w.execArgv).toEqual(expect.arrayContaining(['--experimental-import-meta-resolve', '--require', '--conditions', 'node', 'development']));
  });
});
