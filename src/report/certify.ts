/**
 * The certification bundle: one folder holding the reports, the exact spec and catalog the
 * run used (hash-checked against the report), the suite version and seed, and a
 * MANIFEST.sha256 (sha256sum format) of every file, so anyone can check later that nothing
 * was changed (`wgc verify-bundle DIR`, or `sha256sum -c MANIFEST.sha256`). Signed with a
 * key (`--sign-key`), it also holds MANIFEST.sig (src/report/signature.ts), which tells who
 * wrote it to whoever has the signer's public key (`wgc verify-bundle DIR --public-key FILE`).
 */
import type { KeyObject } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { RunResult } from './model.ts';
import { sha256 } from './meta.ts';
import { writeReports } from './write.ts';
import { parseReport } from './json.ts';
import { checkSignature, fingerprintOf, SIGNATURE, signManifest } from './signature.ts';

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
  /** Ed25519 private key: sign the manifest into MANIFEST.sig (and name its fingerprint in certification.json). */
  signWith?: KeyObject;
}

/** Writes the bundle into `outDir`; returns the paths of every file written (manifest, then signature, last). */
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
    // Covered by the manifest, so the signer's name is signed too.
    ...(files.signWith ? { signedBy: fingerprintOf(files.signWith) } : {}),
  };
  await writeFile(join(outDir, CERTIFICATE), `${JSON.stringify(certificate, null, 2)}\n`, 'utf8');
  written.push(join(outDir, CERTIFICATE));

  const lines: string[] = [];
  for (const rel of await listFiles(outDir)) {
    if (rel === MANIFEST || rel === SIGNATURE) continue;
    lines.push(`${sha256(await readFile(join(outDir, rel)))}  ${rel}`);
  }
  const manifest = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  await writeFile(join(outDir, MANIFEST), manifest);
  written.push(join(outDir, MANIFEST));
  if (files.signWith) {
    const facts = { suite: result.meta.suite, specHash: result.meta.specHash, catalogHash: result.meta.catalogHash, seed: result.meta.seed };
    await writeFile(join(outDir, SIGNATURE), signManifest(manifest, files.signWith, facts), 'utf8');
    written.push(join(outDir, SIGNATURE));
  }
  return written;
}

/** One problem `verifyBundle` found. */
export interface BundleProblem {
  file: string;
  problem: 'modified' | 'missing' | 'unlisted' | 'inconsistent' | 'signature';
  detail: string;
}

/** What `verifyBundle` found. */
export interface BundleVerification {
  ok: boolean;
  /** Files listed in the manifest and checked. */
  checked: number;
  problems: BundleProblem[];
  /** Fingerprint of the key whose signature over the manifest verified (absent: unsigned, or it did not verify). */
  signer?: string;
}

/** Options of `verifyBundle`. */
export interface VerifyOptions {
  /**
   * The signer's public key, obtained from them out of band: MANIFEST.sig must be its signature.
   * Without it a signature is checked against the public key it carries, which anyone can
   * replace along with the signature: integrity only, not origin.
   */
  publicKey?: KeyObject;
}

/**
 * Re-hashes every file of a bundle against its manifest, reports files that are modified,
 * missing or not listed, checks that the bundled spec and catalog are the ones the
 * certificate names, and checks MANIFEST.sig (see VerifyOptions). Throws when the folder has
 * no readable manifest.
 */
export async function verifyBundle(dir: string, options: VerifyOptions = {}): Promise<BundleVerification> {
  const manifestBytes = await readFile(join(dir, MANIFEST));
  const manifestText = manifestBytes.toString('utf8');
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
    if (rel !== MANIFEST && rel !== SIGNATURE && !listed.has(rel)) problems.push({ file: rel, problem: 'unlisted', detail: 'present but not in the manifest' });
  }
  problems.push(...(await crossCheck(dir, listed)));
  const signature = await readSignature(dir);
  if ('unreadable' in signature) {
    problems.push({ file: SIGNATURE, problem: 'signature', detail: `unreadable: ${signature.unreadable}` });
    return { ok: false, checked: listed.size, problems };
  }
  const checked = checkSignature(manifestBytes, signature.text, options.publicKey, await readCertificate(dir));
  problems.push(...checked.problems.map((detail) => ({ file: SIGNATURE, problem: 'signature' as const, detail })));
  return { ok: problems.length === 0, checked: listed.size, problems, ...(checked.signer ? { signer: checked.signer } : {}) };
}

/** MANIFEST.sig's text; undefined text when the bundle has none. */
async function readSignature(dir: string): Promise<{ text: string | undefined } | { unreadable: string }> {
  try {
    return { text: await readFile(join(dir, SIGNATURE), 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { text: undefined } : { unreadable: code ?? String(e) };
  }
}

/** certification.json as an object, or undefined (crossCheck reports why). */
async function readCertificate(dir: string): Promise<Record<string, unknown> | undefined> {
  try {
    const cert = JSON.parse(await readFile(join(dir, CERTIFICATE), 'utf8')) as unknown;
    return cert !== null && typeof cert === 'object' && !Array.isArray(cert) ? (cert as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
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
