import { describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRunResult } from '../../src/report/build.ts';
import { diffReports, renderDiffMarkdown, renderDiffText } from '../../src/report/diff.ts';
import { renderJson } from '../../src/report/json.ts';
import { parseCatalog } from '../../src/catalog/load.ts';
import { diffCommand } from '../../src/cli/diff.ts';
import type { CliIo } from '../../src/report/io.ts';
import type { RunResult } from '../../src/report/model.ts';
import { check, fixtureCatalog, fixtureMeta, passingResults } from './fixtures/results.ts';
import { readFileSync } from 'node:fs';
import { FIXTURE_CATALOG_PATH } from './fixtures/results.ts';

const catalog = fixtureCatalog();
const replace = (id: string, clauses: Parameters<typeof check>[1]) => passingResults().map((c) => (c.checkId === id ? check(id, clauses, { reason: 'needs the usage ledger' }) : c));

const base = buildRunResult(passingResults(), catalog, fixtureMeta());

describe('diffReports', () => {
  test('no change', () => {
    const d = diffReports(base, base);
    expect(d).toMatchObject({ regressed: [], fixed: [], appeared: [], disappeared: [], observability: [], otherChanges: [], hasRegression: false });
    expect(renderDiffText(d)).toContain('no clause changed');
  });

  test('regressed (passed → failed) and fixed (failed → passed), with the verdict change', () => {
    const head = buildRunResult(replace('auth/no-credential', { 'AUTH-001': 'failed' }), catalog, fixtureMeta());
    const d = diffReports(base, head);
    expect(d.regressed).toEqual([{ id: 'AUTH-001', level: 'MUST', statement: expect.any(String), from: 'passed', to: 'failed' }]);
    expect(d.verdict).toEqual({ from: 'conformant', to: 'not-conformant', changed: true });
    expect(d.hasRegression).toBe(true);
    const back = diffReports(head, base);
    expect(back.fixed.map((c) => [c.id, c.from, c.to])).toEqual([['AUTH-001', 'failed', 'passed']]);
    expect(back.regressed).toEqual([]);
    expect(back.hasRegression).toBe(false);
  });

  test('observability changes both ways; verified → not observable is a coverage regression unless allowed; a clause becoming observable and failing is a regression', () => {
    const head = buildRunResult(replace('billing/refused-not-billed', { 'BILL-001': 'notObservable' }), catalog, fixtureMeta());
    const d = diffReports(base, head);
    expect(d.observability.map((c) => [c.id, c.from, c.to])).toEqual([['BILL-001', 'passed', 'notObservable']]);
    expect(d.coverageLost.map((c) => [c.id, c.from, c.to])).toEqual([['BILL-001', 'passed', 'notObservable']]);
    expect(d.hasRegression).toBe(true);
    expect(renderDiffText(d)).toContain('Coverage lost');
    expect(diffReports(base, head, { allowCoverageLoss: true }).hasRegression).toBe(false);
    expect(diffReports(head, base).hasRegression).toBe(false);
    const failing = buildRunResult(replace('billing/refused-not-billed', { 'BILL-001': 'failed' }), catalog, fixtureMeta());
    const d2 = diffReports(head, failing);
    expect(d2.observability.map((c) => c.id)).toEqual(['BILL-001']);
    expect(d2.regressed.map((c) => [c.id, c.from])).toEqual([['BILL-001', 'notObservable']]);
    expect(d2.hasRegression).toBe(true);
  });

  test('other changes: passed → harness error (the verdict gets worse: a regression)', () => {
    const head = buildRunResult(replace('auth/unknown-key', { 'AUTH-002': 'harnessError', 'AUTH-003': 'passed' }), catalog, fixtureMeta());
    const d = diffReports(base, head);
    expect(d.otherChanges.map((c) => [c.id, c.from, c.to])).toEqual([['AUTH-002', 'passed', 'harnessError']]);
    expect(d.verdict.to).toBe('inconclusive');
    expect(d.hasRegression).toBe(true);
  });

  test('clauses that appeared and disappeared with a catalog change', () => {
    const text = readFileSync(FIXTURE_CATALOG_PATH, 'utf8').replace('id: PAGE-002', 'id: PAGE-003');
    const other = parseCatalog(text, 'other.yaml');
    const head = buildRunResult(passingResults(), other, fixtureMeta());
    const d = diffReports(base, head);
    expect(d.appeared.map((c) => c.id)).toEqual(['PAGE-003']);
    expect(d.disappeared.map((c) => c.id)).toEqual(['PAGE-002']);
    expect(d.catalogChanged).toBe(true);
    expect(renderDiffText(d)).toContain('note: the clause catalog differs between the runs');
  });

  test('text and Markdown renderings list each category', () => {
    const head = buildRunResult(replace('auth/no-credential', { 'AUTH-001': 'failed' }), catalog, fixtureMeta());
    const d = diffReports(base, head);
    expect(renderDiffText(d)).toContain('Regressed (1):\n  AUTH-001 [MUST] passed -> failed  A request without a credential');
    const md = renderDiffMarkdown(d);
    expect(md).toContain('## wgc diff: ❌ regression');
    expect(md).toContain('| AUTH-001 | MUST | passed → failed |');
  });
});

describe('wgc diff', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wgc-diff-'));
  const save = (name: string, r: RunResult | string) => {
    const path = join(dir, name);
    writeFileSync(path, typeof r === 'string' ? r : renderJson(r));
    return path;
  };
  const run = async (argv: string[]) => {
    let out = '';
    let err = '';
    const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t) };
    return { code: await diffCommand(argv, io), out, err };
  };
  const basePath = save('base.json', base);
  const headPath = save('head.json', buildRunResult(replace('auth/no-credential', { 'AUTH-001': 'failed' }), catalog, fixtureMeta()));

  test('exit 0 without regression, 1 with one', async () => {
    expect((await run([basePath, basePath])).code).toBe(0);
    const r = await run([basePath, headPath, '--format', 'markdown']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('### Regressed (1)');
    expect((await run([headPath, basePath, '--format=text'])).out).toContain('Fixed (1):');
  });

  test('exit 2 on bad input, naming the file and the problem', async () => {
    const missing = join(dir, 'nope.json');
    expect(await run([basePath, missing])).toMatchObject({ code: 2, err: `wgc diff: ${missing}: file not found\n` });
    const wrong = save('v2.json', JSON.stringify({ ...base, formatVersion: 2 }));
    expect(await run([wrong, basePath])).toMatchObject({ code: 2, err: `wgc diff: ${wrong}: report formatVersion 2 is not supported (this wgc reads 1)\n` });
    const notReport = save('junk.json', '[1,2]');
    expect((await run([notReport, basePath])).err).toBe(`wgc diff: ${notReport}: not a wgc report (no formatVersion)\n`);
    expect((await run([basePath])).code).toBe(2);
    expect((await run([basePath, headPath, '--format', 'pdf'])).code).toBe(2);
  });
});
