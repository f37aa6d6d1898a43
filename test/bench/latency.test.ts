/**
 * `wgc bench --latency`: the option's parsing, and one tiny run through the latency proxy (the
 * errors suite at 5 ms one-way and directly, but for its two checks whose requests follow the
 * clock) whose requests, credits and verdict must not depend on the latency. No timed assertions: the figures are printed, not judged.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import { benchCommand, parseArgs, parseLatencies } from '../../src/cli/bench.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';
import { CLOCKED_CHECKS } from '../reference/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'wgc-bench-latency-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out: () => out.join(''), err: () => err.join('') };
}

describe('wgc bench --latency', () => {
  test('parses one-way delays, refuses anything else', () => {
    expect(parseLatencies('0,25,100')).toEqual([0, 25, 100]);
    expect(parseLatencies('7')).toEqual([7]);
    for (const bad of ['', '25,', '-1', '1.5', 'abc', '10001', '25 ms']) expect(typeof parseLatencies(bad), bad).toBe('string');
    const args = parseArgs(['--latency=0,25', '--iterations', '2', '--concurrency', '9']);
    expect(args).toEqual({ iterations: 2, latencies: [0, 25], runArgs: ['--concurrency', '9', '--seed', '1'] });
  });

  test('a bad --latency is a usage error', async () => {
    const c = capture();
    expect(await benchCommand(['--latency', '25,x'], c.io)).toBe(2);
    expect(c.err()).toContain('--latency takes one-way delays');
  });

  test('the errors suite through a 5 ms proxy and directly: same requests, credits and verdict', async () => {
    const c = capture();
    const json = join(dir, 'latency.json');
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const errors = (await loadSuiteDefs(await discoverSuites(join(root, 'suites')), root)).find((s) => s.name === 'errors')!;
    const checks = errors.checks.map((x) => x.id).filter((id) => !CLOCKED_CHECKS.has(id));
    expect(checks.length).toBeGreaterThan(5);
    const code = await benchCommand(['--latency', '0,5', '--iterations', '1', '--suite', 'errors', ...checks.flatMap((id) => ['--check', id]), '--runs', '2', '--json', json], c.io);
    expect(code, c.err()).toBe(0);
    expect(c.out()).toMatch(/\| 5 ms \| 10 ms \| \*\*[\d.]+ s\*\*/);
    expect(c.out()).toContain('load average');
    const figures = JSON.parse(readFileSync(json, 'utf8'));
    expect(figures.latencies.map((l: { oneWayMs: number }) => l.oneWayMs)).toEqual([0, 5]);
    const [direct, delayed] = figures.latencies.map((l: { runs: unknown[] }) => l.runs[0]);
    expect(direct.forwarded).toBe(0);
    // Every request of the delayed run went through the proxy (the run counts its sessions'
    // requests; the run's own preflight comes on top).
    expect(delayed.forwarded).toBeGreaterThanOrEqual(delayed.requests);
    expect(delayed.requests).toBeGreaterThan(0);
    // Per check: the run's total has the preflight's round-trip samples in it, one fewer where
    // the first reads as far (src/target/pace.ts), as a loaded machine's loopback may.
    for (const k of ['checkRequests', 'creditsCharged', 'verdict', 'exitCode', 'counts']) expect(delayed[k], k).toEqual(direct[k]);
    expect(Object.keys(direct.checkRequests).length).toBeGreaterThan(5);
    expect(figures.same).toBe(true);
    expect(JSON.stringify(figures)).not.toMatch(/wgct_/);
  }, 120_000);
});
