/**
 * `wgc bench` end to end with the smallest useful load: one iteration of one suite. It checks
 * that every figure is printed and written, not what the figures are (no timed assertions).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { benchCommand } from '../../src/cli/bench.ts';

const dir = mkdtempSync(join(tmpdir(), 'wgc-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out: () => out.join(''), err: () => err.join('') };
}

describe('wgc bench', () => {
  test('prints and writes every figure for one iteration of the roles suite', async () => {
    const c = capture();
    const json = join(dir, 'bench.json');
    const code = await benchCommand(['--iterations', '1', '--suite', 'roles', '--runs', '2', '--json', json], c.io);
    expect(code, c.err()).toBe(0);
    const text = c.out();
    for (const figure of [
      'wall time',
      'requests sent',
      'requests/s',
      'peak RSS',
      'CPU time',
      'credits charged',
      'where the time goes',
      'worker start, suite imports',
      'raw limit',
      'suite/raw',
      'raw wall, warm',
      'suite/raw, warm',
      'per suite',
      'credits: plan',
      'load average',
      'machine:',
    ]) {
      expect(text).toContain(figure);
    }
    expect(text).toMatch(/^\s+roles\s/m);
    const figures = JSON.parse(readFileSync(json, 'utf8'));
    expect(figures.iterations).toHaveLength(1);
    // Both replays (fresh process and warm) sent every recorded request and got the recorded answers.
    for (const raw of [figures.iterations[0].raw, figures.iterations[0].rawWarm]) {
      expect(raw.requests).toBeGreaterThan(0);
      expect(raw.sameStatus).toBe(raw.requests);
    }
    expect(figures.iterations[0].raw.requests).toBe(figures.iterations[0].rawWarm.requests);
    expect(figures.recording.checks.map((c: { checkId: string }) => c.checkId).every((id: string) => id.startsWith('roles/'))).toBe(true);
    // The recorded requests carry live secrets: they must never be written.
    expect(JSON.stringify(figures)).not.toMatch(/wgct_|"records"/);
  }, 120_000);

  test('refuses options that would point the benchmark elsewhere', async () => {
    const c = capture();
    expect(await benchCommand(['--base-url', 'https://example.com'], c.io)).toBe(2);
    expect(c.err()).toContain('--base-url');
    const d = capture();
    expect(await benchCommand(['--iterations', '0'], d.io)).toBe(2);
  });
});
