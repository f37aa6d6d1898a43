/**
 * The kill matrix's rules on made-up runs (caught means every declared clause failed, extras
 * are judged against the conformant baseline, unchecked and broken runs are told apart), the
 * Markdown view's escaping, the CLI's arguments, and setup failures of the pool.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load.ts';
import type { FaultDef } from '../../src/reference/faults.ts';
import { buildKillMatrix, coverageGap } from '../../src/selftest/matrix.ts';
import type { KillMatrix, TargetRunSummary } from '../../src/selftest/model.ts';
import type { SuiteOutline } from '../../src/selftest/protocol.ts';
import { runSelfTest, SelfTestSetupError } from '../../src/selftest/index.ts';
import { brokenSummary } from '../../src/selftest/pool.ts';
import { mdCell, renderKillMatrixMarkdown, renderSelfTestSummary } from '../../src/selftest/render.ts';
import { parseSelfTestArgs, selfTestCommand } from '../../src/cli/selftest.ts';

const catalog = loadCatalog();

const suites: SuiteOutline[] = [
  {
    name: 'demo',
    checks: [
      { id: 'demo/a', clauses: ['DEF-001', 'DEF-002'] },
      { id: 'demo/b', clauses: ['DEF-003'] },
      { id: 'demo/c', clauses: ['AUTH-004'] },
    ],
  },
];

function run(faults: string[], outcomes: Record<string, TargetRunSummary['outcomes'][string]>, extra: Partial<TargetRunSummary> = {}): TargetRunSummary {
  const failures = Object.keys(outcomes)
    .filter((id) => outcomes[id] === 'failed')
    .map((clause) => ({ clause, checks: ['demo/a'], message: `${clause} broke` }));
  return { faults, durationMs: 100, cpuMs: 50, requests: 10, outcomes, reasons: {}, failures, harnessErrors: [], runErrors: [], ...extra };
}

const fault = (name: string, clauses: string[]): FaultDef => ({ name, clauses, description: `${name} description` });
const all = { 'DEF-001': 'passed', 'DEF-002': 'passed', 'DEF-003': 'passed', 'AUTH-004': 'passed' } as const;

function matrix(conformant: TargetRunSummary, runs: { fault: FaultDef; summary: TargetRunSummary }[]) {
  return buildKillMatrix({ catalog, allFaults: runs.map((r) => r.fault), runs, conformant, suites, seed: 1, numRuns: 5, concurrency: 2, totalMs: 1000, generatedAt: '2024-01-01T00:00:00.000Z' });
}

describe('kill matrix', () => {
  it('catches a fault only when every declared clause failed; "detected" is at least one', () => {
    const m = matrix(run([], { ...all }), [
      { fault: fault('both', ['DEF-001', 'DEF-002']), summary: run(['both'], { ...all, 'DEF-001': 'failed', 'DEF-002': 'failed' }) },
      { fault: fault('half', ['DEF-001', 'DEF-002']), summary: run(['half'], { ...all, 'DEF-001': 'failed' }, { reasons: {} }) },
      { fault: fault('none', ['DEF-003']), summary: run(['none'], { ...all, 'DEF-003': 'notObservable' }, { reasons: { 'DEF-003': 'could not tell' } }) },
    ]);
    expect(m.faults.map((f) => [f.fault, f.caught, f.detected])).toEqual([
      ['both', true, true],
      ['half', false, true],
      ['none', false, false],
    ]);
    expect(m.faults[1]!.missed).toEqual([{ clause: 'DEF-002', outcome: 'passed', namedBy: ['demo/a'] }]);
    expect(m.faults[2]!.missed).toEqual([{ clause: 'DEF-003', outcome: 'notObservable', reason: 'could not tell', namedBy: ['demo/b'] }]);
    expect(m.killRate).toEqual({ caught: 1, total: 3, rate: 1 / 3 });
    expect(m.escapes).toEqual(['half', 'none']);
    expect(m.ok).toBe(false);
  });

  it('counts as extras only undeclared failures that the conformant run did not have', () => {
    const conformant = run([], { ...all, 'AUTH-004': 'failed' });
    const m = matrix(conformant, [{ fault: fault('f', ['DEF-001']), summary: run(['f'], { ...all, 'DEF-001': 'failed', 'DEF-003': 'failed', 'AUTH-004': 'failed' }) }]);
    expect(m.faults[0]!.caught).toBe(true);
    expect(m.faults[0]!.extras).toEqual(['DEF-003']);
    expect(m.conformant.clean).toBe(false);
    expect(m.ok).toBe(false);
  });

  it('tells a clause no check names, and a run that broke, from a clause that passed', () => {
    const m = matrix(run([], { ...all }), [
      { fault: fault('unnamed', ['DEF-004']), summary: run(['unnamed'], { ...all }) },
      { fault: fault('broken', ['DEF-001']), summary: brokenSummary({ faults: ['broken'] }, 'the worker running this job exited (signal SIGKILL)', 0) },
    ]);
    expect(m.faults[0]!.missed[0]).toMatchObject({ clause: 'DEF-004', outcome: 'unchecked', namedBy: [] });
    expect(m.faults[1]!.missed[0]).toMatchObject({ clause: 'DEF-001', outcome: 'noResult' });
    expect(m.faults[1]!.runErrors).toEqual(['the worker running this job exited (signal SIGKILL)']);
    expect(m.coverageGap.faultClausesNoCheckNames).toEqual([{ fault: 'unnamed', clause: 'DEF-004' }]);
  });

  it('requires of the conformant run: no failure, no harness or run error, every named clause passed', () => {
    const clean = matrix(run([], { ...all }), []);
    expect(clean.conformant).toMatchObject({ clean: true, verified: ['DEF-001', 'DEF-002', 'DEF-003', 'AUTH-004'], notVerified: [] });
    expect(clean.ok).toBe(true);
    const unverified = matrix(run([], { ...all, 'DEF-003': 'notObservable' }, { reasons: { 'DEF-003': 'no key' } }), []);
    expect(unverified.conformant.notVerified).toEqual([{ clause: 'DEF-003', outcome: 'notObservable', reason: 'no key' }]);
    expect(unverified.conformant.clean).toBe(false);
    const broke = matrix(run([], { ...all }, { harnessErrors: [{ check: 'demo/a', clauses: ['DEF-001'], reason: 'TypeError' }] }), []);
    expect(broke.conformant.clean).toBe(false);
  });

  it('finds observable MUST clauses without a fault and fault clauses outside the catalog', () => {
    const gap = coverageGap(catalog, [fault('typo', ['DEF-999'])], suites);
    expect(gap.faultClausesNotInCatalog).toEqual([{ fault: 'typo', clause: 'DEF-999' }]);
    expect(gap.mustClausesWithoutFault).toContain('DEF-001');
    expect(gap.mustClausesNoCheckNames).not.toContain('DEF-001');
  });
});

describe('kill matrix views', () => {
  it('escapes server text in Markdown cells', () => {
    expect(mdCell('a|b\n<script>`x`')).toBe("a\\|b &lt;script&gt;'x'");
  });

  it('renders every fault as a row, and the escapes with what failed instead', () => {
    const m = matrix(run([], { ...all }), [{ fault: fault('half', ['DEF-001', 'DEF-002']), summary: run(['half'], { ...all, 'DEF-001': 'failed', 'AUTH-004': 'failed' }) }]);
    const md = renderKillMatrixMarkdown(m);
    expect(md).toContain('| half | DEF-001, DEF-002 | DEF-001, AUTH-004 | **partly** | AUTH-004 | – | 0.1 s |');
    expect(md).toContain('- half [declares DEF-001, DEF-002]: DEF-002: passed; failed instead: DEF-001, AUTH-004');
    const text = renderSelfTestSummary(m, ['/x/kill-matrix.json']);
    expect(text).toContain('kill rate: 0.0% (0/1)');
    expect(text).toContain('escapes (1):');
  });
});

describe('wgc selftest arguments', () => {
  it('parses repeated faults and numeric options', () => {
    expect(parseSelfTestArgs(['--fault', 'a', '--fault=b', '--family', 'bounds', '--suite', 'sequences', '--out', 'o', '--concurrency', '3', '--runs=7', '--seed', '9', '--mode', 'thread'])).toEqual({
      faults: ['a', 'b'],
      suites: ['sequences'],
      families: ['bounds'],
      out: 'o',
      concurrency: 3,
      numRuns: 7,
      seed: 9,
      mode: 'thread',
    });
    expect(parseSelfTestArgs([])).toEqual({ faults: [], suites: [], families: [], out: 'reports/selftest' });
  });

  it('refuses bad values and unknown arguments', () => {
    expect(parseSelfTestArgs(['--runs', '0'])).toMatch(/--runs needs an integer/);
    expect(parseSelfTestArgs(['--concurrency', 'x'])).toMatch(/--concurrency needs an integer/);
    expect(parseSelfTestArgs(['--mode', 'fibers'])).toMatch(/--mode must be one of/);
    expect(parseSelfTestArgs(['--nope'])).toBe('unknown argument --nope');
  });

  it('writes the matrix in both forms and exits by it (worker threads this time)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'wgc-selftest-out-'));
    const printed: string[] = [];
    const code = await selfTestCommand(['--fault', 'me-billed', '--out', out, '--concurrency', '1', '--runs', '2', '--mode', 'thread'], { out: (t) => void printed.push(t), err: () => {} });
    const m = JSON.parse(readFileSync(join(out, 'kill-matrix.json'), 'utf8')) as KillMatrix;
    expect(m.faults.map((f) => f.fault)).toEqual(['me-billed']);
    expect(code).toBe(m.ok ? 0 : 1);
    expect(readFileSync(join(out, 'kill-matrix.md'), 'utf8')).toContain('| me-billed | BILL-002 |');
    expect(printed.join('')).toMatch(/kill rate: \d+\.\d% \(\d\/1\)/);
  }, 120_000);

  it('exits 2 on an unknown fault, naming it', async () => {
    const err: string[] = [];
    const code = await selfTestCommand(['--fault', 'no-such-fault'], { out: () => {}, err: (t) => void err.push(t) });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/unknown fault "no-such-fault"; valid faults: /);
  });
});

describe('self-test setup', () => {
  it('rejects with a setup error when the suites cannot be loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-selftest-'));
    writeFileSync(join(dir, 'broken.test.ts'), '');
    const result = runSelfTest({ suitesDir: dir, faults: ['me-billed'], concurrency: 1 });
    await expect(result).rejects.toThrow(SelfTestSetupError);
    await expect(result).rejects.toThrow(/broken\/index\.ts: missing/);
  });

  it('kills a job that overruns its time limit, records it as a run error and goes on with a fresh worker', async () => {
    const m = await runSelfTest({ faults: ['me-billed'], concurrency: 1, jobTimeoutMs: 50 });
    expect(m.conformant.runErrors).toEqual(['the job did not finish within 50 ms; its worker was killed']);
    expect(m.conformant.clean).toBe(false);
    expect(m.faults[0]).toMatchObject({ fault: 'me-billed', caught: false, runErrors: ['the job did not finish within 50 ms; its worker was killed'] });
    expect(m.faults[0]!.missed).toEqual([{ clause: 'BILL-002', outcome: 'noResult', namedBy: expect.arrayContaining(['billing/me-free']) }]);
  }, 120_000);
});
