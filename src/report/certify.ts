/**
 * The certification bundle: one folder holding the reports, the exact spec and catalog the
 * run used (hash-checked against the report), the suite version and seed, and a
 * MANIFEST.sha256 (sha256sum format) of every file, so anyone can check later that nothing
 * was changed (`wgc verify-bundle DIR`, or `sha256sum -c MANIFEST.sha256`).
 */
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { RunResult } from './model.ts';
import { sha256 } from './meta.ts';
import { writeReports } from './write.ts';
import { parseReport } from './json.ts';

/** The manifest: one "<sha256>  <path>" line per file (sha256sum format). */
export const MANIFEST = 'MANIFEST.sha256';
/** The certificate: suite version, verdict, coverage, target, seed and hashes. */
export const CERTIFICATE = 'certification.json';
/** Where the bundle keeps the spec and the catalog. */
export const BUNDLED_SPEC = 'specs/openapi.yaml';
export const BUNDLED_CATALOG = 'specs/clauses.yaml';

/** Inputs of a bundle besides the result. */
export interface BundleFiles {
  /** The specs/openapi.yaml the run used (its sha256 must equal the report's specHash). */
  specPath: string;
  /** The clause catalog the run used (its sha256 must equal the report's catalogHash). */
  catalogPath: string;
  /** Already written report files to copy into reports/; when absent the reports are rendered afresh. */
  reports?: readonly string[];
}

/** Writes the bundle into `outDir`; returns the paths of every file written (manifest last). */
export async function writeCertificationBundle(result: RunResult, outDir: string, files: BundleFiles): Promise<string[]> {
  const spec = await readFile(files.specPath);
  const catalog = await readFile(files.catalogPath);
  if (sha256(spec) !== result.meta.specHash) {
    throw new Error(`${files.specPath}: sha256 ${sha256(spec)} is not the spec the run used (${result.meta.specHash})`);
  }
  if (sha256(catalog) !== result.meta.catalogHash) {
    throw new Error(`${files.catalogPath}: sha256 ${sha256(catalog)} is not the catalog the run used (${result.meta.catalogHash})`);
  }
  if (files.reports && files.reports.length > 0 && !files.reports.some((f) => basename(f) === 'report.json')) {
    throw new Error('a certification bundle needs report.json among the reports');
  }
  // Everything in the folder goes into the manifest, so start from an empty one.
  const existing = await readdir(outDir).catch(() => [] as string[]);
  if (existing.length > 0) throw new Error(`${outDir}: not empty; a certification bundle needs a fresh folder`);
  await mkdir(join(outDir, 'specs'), { recursive: true });
  const reportsDir = join(outDir, 'reports');
  const written: string[] = [];
  if (files.reports && files.reports.length > 0) {
    await mkdir(reportsDir, { recursive: true });
    for (const f of files.reports) {
      const to = join(reportsDir, basename(f));
      await copyFile(f, to);
      written.push(to);
    }
  } else {
    written.push(...(await writeReports(result, reportsDir)));
  }
  await writeFile(join(outDir, BUNDLED_SPEC), spec);
  await writeFile(join(outDir, BUNDLED_CATALOG), catalog);
  written.push(join(outDir, BUNDLED_SPEC), join(outDir, BUNDLED_CATALOG));
  const certificate = {
    formatVersion: result.formatVersion,
    suite: result.meta.suite,
    verdict: result.summary.verdict,
    headline: result.summary.headline,
    coverage: result.summary.coverage,
    target: result.meta.target.baseUrl,
    seed: result.meta.seed,
    startedAt: result.meta.startedAt,
    specHash: result.meta.specHash,
    catalogHash: result.meta.catalogHash,
  };
  await writeFile(join(outDir, CERTIFICATE), `${JSON.stringify(certificate, null, 2)}\n`, 'utf8');
  written.push(join(outDir, CERTIFICATE));

  const lines: string[] = [];
  for (const rel of await listFiles(outDir)) {
    if (rel === MANIFEST) continue;
    lines.push(`${sha256(await readFile(join(outDir, rel)))}  ${rel}`);
  }
  await writeFile(join(outDir, MANIFEST), `${lines.join('\n')}\n`, 'utf8');
  written.push(join(outDir, MANIFEST));
  return written;
}

/** One problem `verifyBundle` found. */
export interface BundleProblem {
  file: string;
  problem: 'modified' | 'missing' | 'unlisted' | 'inconsistent';
  detail: string;
}

/** What `verifyBundle` found. */
export interface BundleVerification {
  ok: boolean;
  /** Files listed in the manifest and checked. */
  checked: number;
  problems: BundleProblem[];
}

/**
 * Re-hashes every file of a bundle against its manifest, reports files that are modified,
 * missing or not listed, and checks that the bundled spec and catalog are the ones the
 * certificate names. Throws when the folder has no readable manifest.
 */
export async function verifyBundle(dir: string): Promise<BundleVerification> {
  const manifestText = await readFile(join(dir, MANIFEST), 'utf8');
  const problems: BundleProblem[] = [];
  const listed = new Map<string, string>();
  for (const [i, line] of manifestText.split('\n').entries()) {
    if (line.trim() === '') continue;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m) {
      problems.push({ file: MANIFEST, problem: 'inconsistent', detail: `line ${i + 1} is not "<sha256>  <file>"` });
      continue;
    }
    listed.set(m[2]!, m[1]!);
  }
  for (const [file, expected] of listed) {
    if (file.split('/').includes('..') || file.startsWith('/')) {
      problems.push({ file, problem: 'inconsistent', detail: 'path leaves the bundle' });
      continue;
    }
    let actual: string;
    try {
      actual = sha256(await readFile(join(dir, file)));
    } catch {
      problems.push({ file, problem: 'missing', detail: 'listed in the manifest but not present' });
      continue;
    }
    if (actual !== expected) problems.push({ file, problem: 'modified', detail: `sha256 ${actual}, manifest says ${expected}` });
  }
  for (const rel of await listFiles(dir)) {
    if (rel !== MANIFEST && !listed.has(rel)) problems.push({ file: rel, problem: 'unlisted', detail: 'present but not in the manifest' });
  }
  problems.push(...(await crossCheck(dir, listed)));
  return { ok: problems.length === 0, checked: listed.size, problems };
}

/** The certificate and the report must name the hashes of the bundled spec and catalog. */
async function crossCheck(dir: string, listed: ReadonlyMap<string, string>): Promise<BundleProblem[]> {
  const problems: BundleProblem[] = [];
  try {
    const cert = JSON.parse(await readFile(join(dir, CERTIFICATE), 'utf8')) as { specHash?: string; catalogHash?: string };
    const report = parseReport(await readFile(join(dir, 'reports', 'report.json'), 'utf8'), 'reports/report.json');
    const pairs: [string, string | undefined, string | undefined, string][] = [
      [BUNDLED_SPEC, listed.get(BUNDLED_SPEC), cert.specHash, report.meta.specHash],
      [BUNDLED_CATALOG, listed.get(BUNDLED_CATALOG), cert.catalogHash, report.meta.catalogHash],
    ];
    for (const [file, hash, inCert, inReport] of pairs) {
      if (hash !== inCert || hash !== inReport) {
        problems.push({ file, problem: 'inconsistent', detail: `manifest ${hash}, certificate ${inCert}, report ${inReport}` });
      }
    }
  } catch (e) {
    problems.push({ file: CERTIFICATE, problem: 'inconsistent', detail: `cannot cross-check: ${(e as Error).message}` });
  }
  return problems;
}

/** Every file under `dir`, relative, with "/" separators, sorted. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}
