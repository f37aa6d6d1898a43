/**
 * `wgc verify-bundle DIR [--public-key FILE]`: re-hashes a certification bundle against its
 * MANIFEST.sha256 and, with --public-key, checks that MANIFEST.sig is that key's signature over
 * it (who made the bundle). Exit 0 when intact (and signed by the given key), 1 when a file is
 * modified, missing, unlisted or inconsistent or the signature is missing, malformed or not the
 * given key's, 2 when DIR is not a bundle or the key file cannot be used.
 */
import type { KeyObject } from 'node:crypto';
import { verifyBundle, MANIFEST } from '../report/certify.ts';
import { KeyFileError, readPublicKey, SIGNATURE } from '../report/signature.ts';
import { processIo, type CliIo } from '../report/io.ts';

const USAGE = `usage: wgc verify-bundle DIR [--public-key FILE]

Re-hashes the certification bundle DIR against its ${MANIFEST} and checks that the bundled spec
and catalog are the ones certification.json and the report name: integrity.

--public-key FILE  the signer's public key (their wgc-signing.pub, obtained from them out of
                   band, its fingerprint compared with the one they gave you): ${SIGNATURE} must
                   be that key's signature over ${MANIFEST}, which tells who made the bundle.
                   Without it, a ${SIGNATURE} is checked only against the public key it carries,
                   which whoever rewrote the bundle could have replaced: integrity, not origin.

Exit codes: 0 intact (and, with --public-key, signed by that key) · 1 a file modified, missing,
added or inconsistent, or the signature missing, malformed, made by another key or not over
this manifest · 2 DIR is not a bundle, or the key file cannot be read or is not an Ed25519
public key.
`;

/** Printed whenever a bundle is verified without --public-key. */
export const INTEGRITY_ONLY = "checked integrity only, not origin: pass --public-key FILE (the signer's public key, obtained from them out of band) to check who made it";

/** Runs `wgc verify-bundle`; returns the exit code. */
export async function verifyBundleCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  const positional: string[] = [];
  let keyPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--public-key' || a.startsWith('--public-key=')) {
      keyPath = a.includes('=') ? a.slice('--public-key='.length) : argv[++i];
      if (!keyPath) return usage(io, "--public-key: expected the FILE of the signer's public key");
    } else if (a.startsWith('-')) return usage(io, `unknown option ${a}`);
    else positional.push(a);
  }
  if (positional.length !== 1) return usage(io, 'expected one bundle folder');
  const dir = positional[0]!;
  let publicKey: KeyObject | undefined;
  if (keyPath !== undefined) {
    try {
      publicKey = readPublicKey(keyPath);
    } catch (e) {
      if (!(e instanceof KeyFileError)) throw e;
      io.err(`wgc verify-bundle: --public-key: ${e.message}\n`);
      return 2;
    }
  }
  let verification;
  try {
    verification = await verifyBundle(dir, publicKey ? { publicKey } : {});
  } catch (e) {
    io.err(`wgc verify-bundle: ${dir}: not a certification bundle (no readable ${MANIFEST}: ${(e as Error).message})\n`);
    return 2;
  }
  if (!verification.ok) {
    io.out(`${dir}: ${verification.problems.length} problem${verification.problems.length === 1 ? '' : 's'}\n`);
    for (const p of verification.problems) io.out(`  ${p.problem}: ${p.file} (${p.detail})\n`);
    return 1;
  }
  const files = `${verification.checked} files match ${MANIFEST}`;
  if (publicKey) {
    io.out(`${dir}: intact and signed by ${verification.signer} (${files}; ${SIGNATURE} verifies with ${keyPath})\n`);
    return 0;
  }
  io.out(`${dir}: intact (${files})\n`);
  io.out(
    verification.signer
      ? `${SIGNATURE}: a valid signature by the public key it carries, ${verification.signer}; whoever rewrites a bundle can sign it with a key of their own\n`
      : `not signed (no ${SIGNATURE})\n`,
  );
  io.out(`${INTEGRITY_ONLY}\n`);
  return 0;
}

function usage(io: CliIo, problem: string): number {
  io.err(`wgc verify-bundle: ${problem}\n${USAGE.split('\n')[0]}\n`);
  return 2;
}
