/** The wgc command: dispatch, `clauses --json`, usage errors, and `run` end to end on the example suite. */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { runCommand } from '../../src/cli/run.ts';
import { loadCatalog } from '../../src/catalog/load.ts';
import { startReference } from '../../src/reference/index.ts';

function captureIo(): { out: string[]; err: string[]; io: { out(t: string): void; err(t: string): void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t) => void out.push(t), err: (t) => void err.push(t) } };
}

const SUITES = ['--suites-dir', 'test/core/fixtures/suites'];
const dirs: string[] = [];
async function outDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'wgc-cli-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('dispatch', () => {
  test('help documents the exit codes; an unknown command is a usage error', async () => {
    const a = captureIo();
    expect(await main(['--help'], a.io)).toBe(0);
    expect(a.out.join('')).toMatch(/0 +conformant[\s\S]*1 +not conformant: a MUST clause failed[\s\S]*2 +usage error/);
    const b = captureIo();
    expect(await main(['frobnicate'], b.io)).toBe(2);
    expect(b.err.join('')).toContain('unknown command "frobnicate"');
  });

  test('`wgc clauses --json` (through bin/wgc.mjs) lists the whole catalog', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/wgc.mjs', 'clauses', '--json'], { maxBuffer: 16 * 1024 * 1024 });
    const listed = JSON.parse(stdout) as { id: string; level: string; ref: string; statement: string; observe: object }[];
    const catalog = loadCatalog();
    expect(listed.map((c) => c.id)).toEqual(catalog.clauses.map((c) => c.id));
    for (const c of listed) expect(Object.keys(c)).toEqual(expect.arrayContaining(['id', 'level', 'ref', 'statement', 'observe']));
  });

  test('`wgc clauses` prints a table', async () => {
    const c = captureIo();
    expect(await main(['clauses'], c.io)).toBe(0);
    const text = c.out.join('');
    expect(text.split('\n')[0]).toMatch(/^ID +LEVEL +REF +NEEDS +STATEMENT$/);
    expect(text).toMatch(/\nAUTH-004 +MUST +/);
  });
});

describe('wgc run', () => {
  test('usage errors exit 2 before anything runs', async () => {
    const a = captureIo();
    expect(await runCommand(['--runs', 'abc'], {}, a.io)).toBe(2);
    expect(a.err.join('')).toBe('wgc run: --runs: expected a positive integer, got "abc"\nsee wgc run --help\n');
    const b = captureIo();
    expect(await runCommand([...SUITES, '--suite', 'nope'], {}, b.io)).toBe(2);
    expect(b.err.join('')).toBe('wgc run: --suite: unknown suite "nope"; available: example\n');
    const c = captureIo();
    expect(await runCommand(['--base-url', 'http://api.example.com'], {}, c.io)).toBe(2);
    expect(c.err.join('')).toMatch(/^wgc run: --base-url: refused to send to http:\/\/api\.example\.com: .*--allow-insecure-http/);
  });

  test('against the embedded reference: conformant, reports written, plan printed first, exit 0', async () => {
    const out = await outDir();
    const c = captureIo();
    expect(await runCommand([...SUITES, '--out', out, '--seed', '7', '--runs', '3'], {}, c.io)).toBe(0);
    const stdout = c.out.join('');
    expect(stdout.indexOf('credit plan: at most 1 credit for 4 checks (no --max-credits limit)')).toBeGreaterThan(-1);
    expect(stdout.indexOf('credit plan')).toBeLessThan(stdout.indexOf('CONFORMANT'));
    expect(c.err.join('')).toMatch(/✓ test\/core\/fixtures\/suites\/example\.test\.ts {2}4 passed/);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.summary.verdict).toBe('conformant');
    expect(report.meta).toMatchObject({ seed: 7, control: true, creditsCharged: 1 });
    const outcome = (id: string) => report.clauses.find((x: { id: string }) => x.id === id).outcome;
    expect(['AUTH-004', 'ERR-001', 'ME-001', 'AUTH-002', 'BILL-001'].map(outcome)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
  });

  test('against a faulty target with control from the environment: the MUST failure exits 1, no secret on disk', async () => {
    const ref = await startReference({ faults: ['me-beta-string'] });
    try {
      const out = await outDir();
      const c = captureIo();
      const code = await runCommand([...SUITES, '--out', out, '--base-url', ref.baseUrl, '--control-url', ref.controlUrl, '--read-only'], { WGC_CONTROL_TOKEN: ref.controlToken }, c.io);
      expect(code).toBe(1);
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
      const me = report.clauses.find((x: { id: string }) => x.id === 'ME-001');
      expect(me.outcome).toBe('failed');
      expect(me.evidence[0].exchange.curl).toContain('${WGC_KEY_READER}');
      for (const f of await readdir(out)) expect(await readFile(join(out, f), 'utf8')).not.toContain(ref.controlToken);
    } finally {
      await ref.close();
    }
  });
});
