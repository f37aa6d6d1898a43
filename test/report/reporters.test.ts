/**
 * Runs a tiny check-shaped test file through vitest's Node API with the collecting reporter
 * and the Allure reporter + setup, and checks what each wrote.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { startVitest } from 'vitest/node';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WgcReporter } from '../../reporters/wgc-reporter.ts';
import { allureReporterConfig } from '../../reporters/allure.ts';
import { allureLabelsFor } from '../../reporters/allure-labels.ts';
import { readPartialFile } from '../../src/report/partial.ts';
import { buildRunResult } from '../../src/report/build.ts';
import type { CheckResult } from '../../src/engine/check.ts';
import { FIXTURE_CATALOG_PATH, fixtureCatalog, fixtureMeta } from './fixtures/results.ts';

const ROOT = fileURLToPath(new URL('./fixtures/vitest-run', import.meta.url));
const catalog = fixtureCatalog();
const out = mkdtempSync(join(tmpdir(), 'wgc-reporters-'));
const wgc = new WgcReporter({ catalog });
const allure = allureReporterConfig(out, { catalogPath: FIXTURE_CATALOG_PATH, seedDoc: { url: 'https://example.test/seed.md', markdown: '## 5. Authentication\n' } });

interface AllureResult {
  name: string;
  status: string;
  labels: { name: string; value: string }[];
  links: { url: string; name: string; type: string }[];
}

beforeAll(async () => {
  const exitCode = process.exitCode;
  const vitest = await startVitest('test', [], {
    root: ROOT,
    include: ['checks.fixture.ts'],
    config: false,
    watch: false,
    reporters: [wgc, allure.reporter],
    setupFiles: allure.setupFiles,
    provide: allure.provide,
    pool: 'threads',
  });
  await vitest?.close();
  // The fixture tests fail on purpose; that must not fail this run.
  process.exitCode = exitCode;
}, 180_000);

describe('WgcReporter', () => {
  const byId = () => new Map<string, CheckResult>(wgc.results().map((r) => [r.checkId, r]));

  test('collects the CheckResult each test stored in task.meta.wgc', () => {
    expect(byId().get('auth/unknown-key')).toMatchObject({ outcome: 'passed', clauses: { 'AUTH-002': 'passed' }, seed: 7 });
    expect(byId().get('auth/no-credential')).toMatchObject({ outcome: 'failed', findings: [{ clause: 'AUTH-001', message: 'answered 200 without a credential' }] });
  });

  test('a test that crashed without a result is a harness error for the clauses in its name', () => {
    expect(byId().get('idempotency/replay')).toMatchObject({
      outcome: 'harnessError',
      clauses: { 'IDEM-001': 'harnessError', 'IDEM-002': 'harnessError' },
      reason: 'TypeError: cannot read properties of undefined',
    });
  });

  test('hook failures, lost results and skips are placed, never counted as passes', () => {
    expect(byId().get('errors/envelope')).toMatchObject({ outcome: 'harnessError', reason: 'a hook failed: provisioning the workspace failed' });
    expect(byId().get('definitions/name-bounds')).toMatchObject({
      outcome: 'harnessError',
      reason: 'the test failed after the check concluded passed: archiving the created definition failed',
    });
    expect(byId().get('pagination/limit')).toMatchObject({ outcome: 'harnessError', reason: 'the test passed without recording a check result' });
    expect(byId().get('billing/refused-not-billed')).toMatchObject({ outcome: 'disabled', clauses: { 'BILL-001': 'disabled' } });
    expect(wgc.results()).toHaveLength(8);
  });

  test('failed suite hooks are run errors, even when every test reported', () => {
    expect(byId().get('errors/no-echo')).toMatchObject({ outcome: 'passed' });
    expect(wgc.runErrors()).toEqual(['checks.fixture.ts > errors: provisioning the workspace failed', 'checks.fixture.ts > teardown: deleting the workspace failed']);
  });

  test('the collected results build a report; a shard partial carries them', async () => {
    const report = buildRunResult(wgc.results(), catalog, fixtureMeta());
    expect(report.summary).toMatchObject({ verdict: 'not-conformant', mustFailed: ['AUTH-001'] });
    const path0 = await wgc.writePartial(out, { index: 2, count: 3 }, fixtureMeta());
    expect((await readPartialFile(path0)).meta.runErrors).toEqual(wgc.runErrors());
    const path = await wgc.writePartial(out, { index: 1, count: 3 }, fixtureMeta());
    expect(path).toBe(join(out, 'partial-1-of-3.json'));
    const partial = await readPartialFile(path);
    expect(partial).toMatchObject({ shard: { index: 1, count: 3 }, catalogHash: catalog.hash });
    expect(partial.results).toEqual(wgc.results());
  });
});

describe('Allure', () => {
  const results = (): AllureResult[] =>
    readdirSync(allure.resultsDir)
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(allure.resultsDir, f), 'utf8')) as AllureResult);

  test('the run wrote allure-results, each check labelled with clause, area and level and linked to the seed', () => {
    const auth = results().find((r) => r.name.startsWith('auth/no-credential'))!;
    expect(auth).toBeDefined();
    const labels = auth.labels.map((l) => `${l.name}=${l.value}`);
    expect(labels).toEqual(expect.arrayContaining(['clause=AUTH-001', 'area=AUTH', 'level=MUST', 'check=auth/no-credential', 'epic=auth', 'severity=critical']));
    expect(auth.links).toEqual([{ url: 'https://example.test/seed.md#5-authentication', name: 'AUTH-001: seed 5 rule 1', type: 'seed' }]);
    const idem = results().find((r) => r.name.startsWith('idempotency/replay'))!;
    expect(idem.labels.filter((l) => l.name === 'clause').map((l) => l.value)).toEqual(['IDEM-001', 'IDEM-002']);
  });

  test('labels come from the test name alone when no catalog is readable', () => {
    const { labels, links } = allureLabelsFor('auth/x refuses [AUTH-001, ERR-002]', undefined, undefined);
    expect(labels.map((l) => `${l.name}=${l.value}`)).toEqual([
      'check=auth/x',
      'epic=auth',
      'clause=AUTH-001',
      'story=AUTH-001',
      'area=AUTH',
      'feature=AUTH',
      'clause=ERR-002',
      'story=ERR-002',
      'area=ERR',
      'feature=ERR',
    ]);
    expect(links).toEqual([]);
    expect(allureLabelsFor('a plain test', catalog, undefined)).toEqual({ labels: [], links: [] });
  });
});
