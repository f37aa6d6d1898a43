/**
 * `wgc merge --out DIR [--catalog clauses.yaml] [--certify] [--require-coverage N|N%|full] PARTIAL...`: merges the partials
 * of every shard of a run into one set of reports, identical to an unsharded run's except for
 * timing and shard fields. With --certify it also writes the certification bundle of the
 * merged run into DIR/certification (signed with --sign-key FILE, as `wgc run --certify
 * --sign-key` signs), as `wgc run --certify` does for an unsharded run (the
 * shards must have run against this checkout's specs/openapi.yaml). --require-coverage holds the
 * merged run to a coverage as `wgc run` does (a conformant run short of it is inconclusive).
 * Exit code: the merged verdict's (0/1/2), or 2 on bad input.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { writeCertificationBundle } from '../report/certify.ts';
import { fingerprintOf, KeyFileError, readSigningKey } from '../report/signature.ts';
import { DEFAULT_SPEC_PATH } from '../report/meta.ts';
import { loadCatalog, CatalogError } from '../catalog/load.ts';
import { mergePartials, MergeError } from '../report/merge.ts';
import { readPartialFile } from '../report/partial.ts';
import { ReportReadError } from '../report/json.ts';
import { writeReports } from '../report/write.ts';
import { renderTerminalSummary } from '../report/terminal.ts';
import { processIo, type CliIo } from '../report/io.ts';
import { requireCoverage } from '../report/verdict.ts';
import { coerce } from '../config/coerce.ts';

const USAGE = 'usage: wgc merge --out DIR [--catalog clauses.yaml] [--certify [--sign-key FILE]] [--require-coverage N|N%|full] PARTIAL.json...\n';

/** Runs `wgc merge`; returns the exit code. */
export async function mergeCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  let out: string | undefined;
  let catalogPath: string | undefined;
  let certify = false;
  let signKey: string | undefined;
  let required: number | string | undefined;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (name: string) => (a.startsWith(`${name}=`) ? a.slice(name.length + 1) : argv[++i]);
    if (a === '--out' || a.startsWith('--out=')) out = value('--out');
    else if (a === '--catalog' || a.startsWith('--catalog=')) catalogPath = value('--catalog');
    else if (a === '--certify') certify = true;
    else if (a === '--sign-key' || a.startsWith('--sign-key=')) signKey = value('--sign-key');
    else if (a === '--require-coverage' || a.startsWith('--require-coverage=')) {
      const read = coerce('coverage', value('--require-coverage'));
      if (!read.ok) {
        io.err(`wgc merge: --require-coverage: ${read.problem}\n${USAGE}`);
        return 2;
      }
      required = read.value as number | string;
    } else if (a === '--help' || a === '-h') {
      io.out(USAGE);
      return 0;
    } else if (a.startsWith('-')) {
      io.err(`wgc merge: unknown option ${a}\n${USAGE}`);
      return 2;
    } else files.push(a);
  }
  if (!out) {
    io.err(`wgc merge: --out DIR is required\n${USAGE}`);
    return 2;
  }
  if (files.length === 0) {
    io.err(`wgc merge: no partial files given\n${USAGE}`);
    return 2;
  }
  if (signKey !== undefined && !certify) {
    io.err('wgc merge: --sign-key without --certify: only a certification bundle is signed (add --certify)\n');
    return 2;
  }
  // The signing key is read before anything is merged, as `wgc run` does.
  let signWith: KeyObject | undefined;
  if (signKey !== undefined) {
    try {
      signWith = readSigningKey(signKey);
    } catch (e) {
      if (!(e instanceof KeyFileError)) throw e;
      io.err(`wgc merge: --sign-key: ${e.message}\n`);
      return 2;
    }
  }
  const bundle = join(resolve(out), 'certification');
  if (certify && existsSync(bundle)) {
    io.err(`wgc merge: --certify: ${bundle} already exists; a bundle is never overwritten (choose another --out or remove it)\n`);
    return 2;
  }
  try {
    const partials = await Promise.all(files.map(readPartialFile));
    const catalog = loadCatalog(catalogPath);
    const merged = mergePartials(partials, catalog);
    const result = { ...merged, summary: requireCoverage(merged.summary, required) };
    const written = await writeReports(result, out);
    const listed = [...written];
    if (certify) {
      try {
        await writeCertificationBundle(result, bundle, { specPath: DEFAULT_SPEC_PATH, catalogPath: catalog.path, reports: written, ...(signWith ? { signWith } : {}) });
      } catch (e) {
        io.err(`wgc merge: --certify: ${(e as Error).message}\n`);
        return 2;
      }
      listed.push(bundle);
      if (signWith) io.out(`certification bundle signed by ${fingerprintOf(signWith)} (MANIFEST.sig; check it with wgc verify-bundle DIR --public-key FILE)\n`);
    }
    io.out(renderTerminalSummary(result, { color: false, files: listed }));
    return result.summary.exitCode;
  } catch (e) {
    if (e instanceof ReportReadError || e instanceof MergeError || e instanceof CatalogError) {
      io.err(`wgc merge: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
