/**
 * The gate between `wgc run` and its vitest worker (src/engine/gate.ts): the worker's suites
 * get the run context only once the command opens the gate, whichever side comes first; an
 * aborted gate never hands one over; two runs in one process never see each other's context.
 * (BroadcastChannel delivers alike within a thread and across threads; every `wgc run` test
 * crosses the thread for real.)
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, test } from 'vitest';
import { GateAborted, passGate, RunGate } from '../../src/engine/gate.ts';
import { runContext } from './helpers/run-context.ts';

const settled = async <T>(p: Promise<T>, ms = 50): Promise<'pending' | T> => Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

describe('RunGate and passGate', () => {
  test('the worker waits until the command opens the gate, then gets exactly that context', async () => {
    const gate = new RunGate();
    try {
      const pass = passGate(gate.name);
      expect(await settled(pass)).toBe('pending');
      const run = runContext({ baseUrl: 'http://127.0.0.1:9/', seed: 41 });
      gate.open(run);
      const got = await pass;
      expect(got.seed).toBe(41);
      expect(got.baseUrl).toBe('http://127.0.0.1:9/');
      expect(gate.decided).toBe(true);
    } finally {
      gate.close();
    }
  });

  test('a gate opened before the worker listens still hands the context over (the worker asks when it is ready)', async () => {
    const gate = new RunGate();
    try {
      gate.open(runContext({ baseUrl: 'http://127.0.0.1:9/', seed: 7 }));
      await new Promise((r) => setTimeout(r, 20));
      expect((await passGate(gate.name)).seed).toBe(7);
    } finally {
      gate.close();
    }
  });

  test('an aborted gate rejects with the reason, and a later open does not undo it', async () => {
    const gate = new RunGate();
    try {
      const pass = passGate(gate.name);
      gate.abort('the keys fill too few cast members');
      gate.open(runContext({ baseUrl: 'http://127.0.0.1:9/' }));
      await expect(pass).rejects.toBeInstanceOf(GateAborted);
      await expect(pass).rejects.toThrow('the keys fill too few cast members');
    } finally {
      gate.close();
    }
  });

  test('two runs in one process: each worker gets its own run context', async () => {
    const [a, b] = [new RunGate(), new RunGate()];
    try {
      expect(a.name).not.toBe(b.name);
      const [pa, pb] = [passGate(a.name), passGate(b.name)];
      b.open(runContext({ baseUrl: 'http://127.0.0.1:9/', seed: 2 }));
      expect(await settled(pa)).toBe('pending');
      a.open(runContext({ baseUrl: 'http://127.0.0.1:9/', seed: 1 }));
      expect([(await pa).seed, (await pb).seed]).toEqual([1, 2]);
    } finally {
      a.close();
      b.close();
    }
  });

  test('across threads: a worker thread listening on the channel gets the decision', async () => {
    const gate = new RunGate();
    // The worker speaks the protocol passGate speaks: "ready", then one decision.
    const worker = new Worker(
      `const { BroadcastChannel, parentPort } = require('node:worker_threads');
       const ch = new BroadcastChannel(${JSON.stringify(gate.name)});
       ch.onmessage = (e) => { if (e.data.kind !== 'ready') { parentPort.postMessage(e.data); ch.close(); } };
       ch.postMessage({ kind: 'ready' });`,
      { eval: true },
    );
    try {
      const got = new Promise<{ kind: string; run?: { seed: number } }>((resolve) => worker.once('message', resolve));
      gate.open(runContext({ baseUrl: 'http://127.0.0.1:9/', seed: 99 }));
      const m = await got;
      expect(m.kind).toBe('go');
      expect(m.run?.seed).toBe(99);
    } finally {
      gate.close();
      await worker.terminate();
    }
  });
});
