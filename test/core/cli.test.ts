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
    expect(stdout.indexOf('credit plan: 1 credit for 4 checks (ceiling 1; no --max-credits limit)')).toBeGreaterThan(-1);
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
      // Every file written, the reproduction scripts under reproduce/ included.
      const files = (await readdir(out, { recursive: true, withFileTypes: true })).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
      expect(files.some((f) => f.includes(`${join(out, 'reproduce')}`))).toBe(true);
      for (const f of files) expect(await readFile(f, 'utf8')).not.toContain(ref.controlToken);
    } finally {
      await ref.close();
    }
  });
});

describe('one suite file that does not load', () => {
  test('the other suites still run; the broken file is a run error naming it, and the verdict is inconclusive', async () => {
    const out = await outDir();
    const c = captureIo();
    expect(await runCommand(['--suites-dir', 'test/core/fixtures/broken-suites', '--out', out, '--seed', '7', '--runs', '2'], {}, c.io)).toBe(2);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.summary.verdict).toBe('inconclusive');
    expect(report.meta.runErrors.join('\n')).toMatch(/broken-suites\/broken\.test\.ts[\s\S]*broken on purpose/);
    // The example suite ran in full beside it.
    const example = report.checks.filter((r: { suite: string }) => r.suite === 'example');
    expect(example.map((r: { outcome: string }) => r.outcome)).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(c.err.join('')).toMatch(/✓ test\/core\/fixtures\/broken-suites\/example\.test\.ts {2}4 passed/);
  });
});

describe('wgc run refuses up front what could only fail after the run', () => {
  test('--certify with --shard, and --certify into an existing bundle, are usage errors', async () => {
    const a = captureIo();
    expect(await runCommand([...SUITES, '--certify', '--shard', '1/2'], {}, a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/--certify with --shard/);
    const out = await outDir();
    await (await import('node:fs/promises')).mkdir(join(out, 'certification'));
    const b = captureIo();
    expect(await runCommand([...SUITES, '--certify', '--out', out], {}, b.io)).toBe(2);
    expect(b.err.join('')).toMatch(/already exists; a bundle is never overwritten/);
  });

  test('a control URL that does not speak wg-control version 1 is a usage error before any suite runs', async () => {
    const ref = await startReference();
    try {
      const a = captureIo();
      const code = await runCommand([...SUITES, '--base-url', ref.baseUrl, '--control-url', `${ref.baseUrl}/api/v1`, '--out', await outDir()], { WGC_CONTROL_TOKEN: ref.controlToken }, a.io);
      expect(code).toBe(2);
      expect(a.err.join('')).toMatch(/--control-url: .* does not answer GET \/ as the wg-control protocol/);
      expect(a.out.join('')).toMatch(/INCONCLUSIVE[\s\S]*test-control protocol at --control-url is unusable/);
      const b = captureIo();
      expect(await runCommand([...SUITES, '--base-url', ref.baseUrl, '--control-url', ref.controlUrl, '--out', await outDir()], { WGC_CONTROL_TOKEN: 'wrong-token' }, b.io)).toBe(2);
      expect(b.err.join('')).toMatch(/--control-url: .*401/);
      expect(b.err.join('')).not.toContain('wrong-token');
    } finally {
      await ref.close();
    }
  });

  test('`wgc clauses --help` documents the command', async () => {
    const c = captureIo();
    expect(await main(['clauses', '--help'], c.io)).toBe(0);
    expect(c.out.join('')).toMatch(/usage: wgc clauses \[--json\]/);
  });
});

describe('sharded runs against the embedded reference', () => {
  test('two shards of one seed merge into one report (the ephemeral port is not the target identity)', async () => {
    const out = await outDir();
    for (const shard of ['1/2', '2/2']) {
      const a = captureIo();
      // A shard's own verdict covers only its files (a shard without files verifies nothing: 2).
      // Two real, quick suites: vitest shards by test file, so a shard needs at least one file.
      await runCommand(['--suite', 'roles', '--suite', 'operations', '--seed', '7', '--runs', '2', '--shard', shard, '--out', join(out, shard.replace('/', '-'))], {}, a.io);
      expect(a.out.join('')).toMatch(new RegExp(`shard ${shard}: wrote`));
    }
    const partials: string[] = [];
    for (const d of ['1-2', '2-2']) for (const f of await readdir(join(out, d))) if (f.endsWith('.json')) partials.push(join(out, d, f));
    expect(partials.length).toBeGreaterThanOrEqual(2);
    const { mergeCommand } = await import('../../src/cli/merge.ts');
    const m = captureIo();
    const code = await mergeCommand(['--out', join(out, 'merged'), ...partials], m.io);
    expect(code, m.err.join('')).toBe(0);
    const report = JSON.parse(await readFile(join(out, 'merged', 'report.json'), 'utf8')) as { meta: { target: { baseUrl: string } } };
    expect(report.meta.target.baseUrl).toBe('embedded reference target');
  }, 120_000);
});
