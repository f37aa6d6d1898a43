import { describe, expect, test } from 'vitest';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { buildRunResult } from '../../src/report/build.ts';
import { writeReports } from '../../src/report/write.ts';
import { verifyBundle, writeCertificationBundle } from '../../src/report/certify.ts';
import { verifyBundleCommand } from '../../src/cli/verify-bundle.ts';
import type { CliIo } from '../../src/report/io.ts';
import { FIXTURE_CATALOG_PATH, FIXTURE_SPEC_PATH, fixtureCatalog, fixtureMeta, passingResults } from './fixtures/results.ts';

const result = buildRunResult(passingResults(), fixtureCatalog(), fixtureMeta());
const files = { specPath: FIXTURE_SPEC_PATH, catalogPath: FIXTURE_CATALOG_PATH };

async function bundle(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'wgc-bundle-')), 'bundle');
  await writeCertificationBundle(result, dir, files);
  return dir;
}

function capture(): { io: CliIo; text: () => string } {
  let text = '';
  return { io: { out: (t) => void (text += t), err: (t) => void (text += t) }, text: () => text };
}

describe('certification bundle', () => {
  test('holds the reports, spec, catalog and certificate, with a sha256sum manifest of every file', async () => {
    const dir = await bundle();
    const manifest = readFileSync(join(dir, 'MANIFEST.sha256'), 'utf8').trim().split('\n');
    const listed = manifest.map((l) => l.split('  ')[1]);
    expect(listed).toEqual([
      'certification.json',
      'reports/junit.xml',
      'reports/report.html',
      'reports/report.json',
      'reports/report.schema.json',
      'reports/summary.md',
      'specs/clauses.yaml',
      'specs/openapi.yaml',
    ]);
    for (const line of manifest) {
      const [hash, file] = line.split('  ') as [string, string];
      expect(
        createHash('sha256')
          .update(readFileSync(join(dir, file)))
          .digest('hex'),
      ).toBe(hash);
    }
    expect(readFileSync(join(dir, 'specs/openapi.yaml'))).toEqual(readFileSync(FIXTURE_SPEC_PATH));
    const cert = JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8'));
    expect(cert).toMatchObject({
      suite: result.meta.suite,
      verdict: 'conformant',
      seed: 424242,
      specHash: result.meta.specHash,
      catalogHash: result.meta.catalogHash,
      coverage: { full: true },
    });
    expect(await verifyBundle(dir)).toEqual({ ok: true, checked: 8, problems: [] });
  });

  test('copies already written reports when given', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wgc-bundle-copy-'));
    const written = await writeReports(result, join(root, 'out'));
    await writeCertificationBundle(result, join(root, 'bundle'), { ...files, reports: written });
    expect(readFileSync(join(root, 'bundle/reports/report.html'), 'utf8')).toBe(readFileSync(join(root, 'out/report.html'), 'utf8'));
    expect((await verifyBundle(join(root, 'bundle'))).ok).toBe(true);
  });

  test('refuses a spec or catalog that is not the one the run used, and a folder that is not empty', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wgc-bundle-bad-'));
    const other = join(root, 'other.yaml');
    writeFileSync(other, 'openapi: 3.1.1\n');
    await expect(writeCertificationBundle(result, join(root, 'b1'), { ...files, specPath: other })).rejects.toThrow(/is not the spec the run used/);
    await expect(writeCertificationBundle(result, join(root, 'b2'), { ...files, catalogPath: other })).rejects.toThrow(/is not the catalog the run used/);
    await expect(writeCertificationBundle(result, root, files)).rejects.toThrow(/not empty/);
  });

  test('verify detects a tampered, a missing and an added file', async () => {
    const dir = await bundle();
    appendFileSync(join(dir, 'reports/summary.md'), '\nall good, trust me\n');
    rmSync(join(dir, 'reports/junit.xml'));
    writeFileSync(join(dir, 'extra.txt'), 'hello');
    const v = await verifyBundle(dir);
    expect(v.ok).toBe(false);
    expect(v.problems.map((p) => [p.problem, p.file])).toEqual([
      ['missing', 'reports/junit.xml'],
      ['modified', 'reports/summary.md'],
      ['unlisted', 'extra.txt'],
    ]);
  });

  test('verify notices a consistently re-hashed spec that no longer matches the report', async () => {
    const dir = await bundle();
    writeFileSync(join(dir, 'specs/openapi.yaml'), 'openapi: 3.1.1\npaths: {}\n');
    const hash = createHash('sha256')
      .update(readFileSync(join(dir, 'specs/openapi.yaml')))
      .digest('hex');
    const manifest = readFileSync(join(dir, 'MANIFEST.sha256'), 'utf8').replace(/^[0-9a-f]{64}(?=  specs\/openapi\.yaml$)/m, hash);
    writeFileSync(join(dir, 'MANIFEST.sha256'), manifest);
    const v = await verifyBundle(dir);
    expect(v.problems.map((p) => [p.problem, p.file])).toEqual([['inconsistent', 'specs/openapi.yaml']]);
  });

  test('wgc verify-bundle: 0 intact, 1 tampered, 2 not a bundle', async () => {
    const dir = await bundle();
    const ok = capture();
    expect(await verifyBundleCommand([dir], ok.io)).toBe(0);
    expect(ok.text().split('\n')[0]).toBe(`${dir}: intact (8 files match MANIFEST.sha256)`);
    writeFileSync(join(dir, 'reports/report.json'), '{}');
    const bad = capture();
    expect(await verifyBundleCommand([dir], bad.io)).toBe(1);
    expect(bad.text()).toContain('modified: reports/report.json');
    const none = capture();
    const empty = mkdtempSync(join(tmpdir(), 'wgc-nobundle-'));
    expect(await verifyBundleCommand([empty], none.io)).toBe(2);
    expect(none.text()).toContain('not a certification bundle');
    expect(existsSync(join(empty, 'MANIFEST.sha256'))).toBe(false);
  });
});
