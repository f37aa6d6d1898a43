/**
 * `wgc verify-bundle DIR`: re-hashes a certification bundle against its MANIFEST.sha256.
 * Exit 0 when intact, 1 when a file is modified, missing, unlisted or inconsistent,
 * 2 when DIR is not a bundle.
 */
import { verifyBundle, MANIFEST } from '../report/certify.ts';
import { processIo, type CliIo } from '../report/io.ts';

const USAGE = 'usage: wgc verify-bundle DIR\n';

/** Runs `wgc verify-bundle`; returns the exit code. */
export async function verifyBundleCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  if (argv.length !== 1 || argv[0]!.startsWith('-')) {
    io.err(`wgc verify-bundle: expected one bundle folder\n${USAGE}`);
    return 2;
  }
  const dir = argv[0]!;
  let verification;
  try {
    verification = await verifyBundle(dir);
  } catch (e) {
    io.err(`wgc verify-bundle: ${dir}: not a certification bundle (no readable ${MANIFEST}: ${(e as Error).message})\n`);
    return 2;
  }
  if (verification.ok) {
    io.out(`${dir}: intact (${verification.checked} files match ${MANIFEST})\n`);
    return 0;
  }
  io.out(`${dir}: ${verification.problems.length} problem${verification.problems.length === 1 ? '' : 's'}\n`);
  for (const p of verification.problems) io.out(`  ${p.problem}: ${p.file} (${p.detail})\n`);
  return 1;
}
