/**
 * Allure from the run result: `wgc run --allure-results DIR` writes one result per check, and
 * the Allure command line 2.x (the allure-commandline package; Java) turns them into a report
 * in which target failures are Failed (product defects), harness errors Broken, not observable
 * and disabled Skipped, each test carrying its exchanges and reproduction as attachments and a
 * link to its seed section. Without Java the generation says so and is skipped, except in CI.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { buildRunResult } from '../../src/report/build.ts';
import { PLANTED_SECRET, fixtureCatalog, fixtureMeta, mixedResults } from './fixtures/results.ts';
import { failingRun } from './fixtures/real-run.ts';
import { writeAllureResults } from '../../reporters/allure-results.ts';

const java = spawnSync('java', ['-version']).status === 0;
if (!java && !process.env.CI) console.warn('allure.test.ts: Java is missing, so the Allure report is not generated here (install a JRE 8+); CI runs it');
const ALLURE = join(dirname(createRequire(import.meta.url).resolve('allure-commandline/package.json')), 'dist', 'bin', 'allure');

interface Written {
  status: string;
  name: string;
  labels: { name: string; value: string }[];
  links: { url: string; type: string }[];
  attachments: { name: string; source: string; type: string }[];
  statusDetails: { message: string };
}

function results(dir: string): Written[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('-result.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Written);
}

describe('Allure results', () => {
  test('one result per check: failed, broken and skipped as Allure means them, labels and seed links, exchanges attached, no secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-allure-'));
    const r = buildRunResult(mixedResults(), fixtureCatalog(), { ...fixtureMeta(), seedDoc: { url: 'https://docs.example.test/seed.md' } });
    expect(await writeAllureResults(r, dir)).toBe(r.checks.length);
    const byCheck = new Map(results(dir).map((x) => [x.labels.find((l) => l.name === 'check')!.value, x]));
    expect(byCheck.get('auth/no-credential')!.status).toBe('failed');
    expect(byCheck.get('idempotency/conflict')!.status).toBe('broken');
    expect(byCheck.get('billing/refused-not-billed')!.status).toBe('skipped');
    expect(byCheck.get('pagination/limit')!.status).toBe('skipped');
    expect(byCheck.get('auth/unknown-key')!.status).toBe('passed');
    const failed = byCheck.get('definitions/name-bounds')!;
    expect(failed.labels).toEqual(
      expect.arrayContaining([
        { name: 'clause', value: 'DEF-001' },
        { name: 'feature', value: 'DEF' },
        { name: 'severity', value: 'critical' },
        { name: 'epic', value: 'definitions' },
      ]),
    );
    expect(failed.links).toEqual([expect.objectContaining({ url: 'https://docs.example.test/seed.md', type: 'seed' })]);
    expect(failed.attachments.map((a) => a.name)).toEqual([
      expect.stringMatching(/^DEF-001 request \(context 1\): GET /),
      'DEF-001 response (context 1)',
      expect.stringMatching(/^DEF-001 request: POST /),
      'DEF-001 response',
    ]);
    expect(readFileSync(join(dir, failed.attachments[3]!.source), 'utf8')).toContain('{\n  "id": "6f1c"\n}');
    expect(byCheck.get('auth/www-authenticate')!.labels).toContainEqual({ name: 'tag', value: 'warning' });
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'utf8')).not.toContain(PLANTED_SECRET);
  });

  test.skipIf(!java && !process.env.CI)(
    'the Allure command line 2.x generates the report: Failed product defects, Broken harness errors, attachments and seed links',
    async () => {
      const r = await failingRun();
      const results = mkdtempSync(join(tmpdir(), 'wgc-allure-res-'));
      const report = mkdtempSync(join(tmpdir(), 'wgc-allure-rep-'));
      await writeAllureResults(r, results);
      await promisify(execFile)(ALLURE, ['generate', results, '-o', report, '--clean'], { timeout: 120_000 });
      const summary = JSON.parse(readFileSync(join(report, 'widgets', 'summary.json'), 'utf8')) as { statistic: Record<string, number> };
      const count = (o: string) => r.checks.filter((k) => k.outcome === o).length;
      expect(summary.statistic).toMatchObject({
        failed: count('failed'),
        broken: count('harnessError'),
        skipped: count('notObservable') + count('disabled'),
        passed: count('passed'),
        total: r.checks.length,
      });
      expect(count('failed')).toBe(2);
      // Failed tests are product defects in Allure's categories; broken ones would be test defects.
      const categories = JSON.parse(readFileSync(join(report, 'data', 'categories.json'), 'utf8')) as { children: { name: string; children: unknown[] }[] };
      expect(categories.children.map((c) => c.name)).toContain('Product defects');
      expect(categories.children.map((c) => c.name)).not.toContain('Test defects');
      const cases = readdirSync(join(report, 'data', 'test-cases')).map(
        (f) => JSON.parse(readFileSync(join(report, 'data', 'test-cases', f), 'utf8')) as { name: string; status: string; links: { url: string }[]; testStage: { attachments: { name: string }[] } },
      );
      const revoked = cases.find((c) => c.name.startsWith('auth/revoked-key-rejected '))!;
      expect(revoked.status).toBe('failed');
      expect(revoked.links[0]!.url).toMatch(/^https:\/\/docs\.example\.test\/service-api-v1-beta\.md/);
      expect(revoked.testStage.attachments.map((a) => a.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^AUTH-007 request: GET /), 'AUTH-007 response', 'reproduction script (sh)']));
    },
    180_000,
  );
});
