/**
 * `wgc keygen [--out DIR]`: writes an Ed25519 key pair for signing certification bundles:
 * wgc-signing.key (private, PKCS#8 PEM, mode 0600) and wgc-signing.pub (public, SPKI PEM), and
 * prints the public key's fingerprint. Never overwrites a key. Exit 0 written, 2 usage error or
 * a key already there.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKeyPair, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE } from '../report/signature.ts';
import { processIo, type CliIo } from '../report/io.ts';

const USAGE = `usage: wgc keygen [--out DIR]

Writes an Ed25519 key pair for signing certification bundles into DIR (default: the working
folder), and prints the public key's fingerprint:

  ${PRIVATE_KEY_FILE}  the private key (PKCS#8 PEM, mode 0600). Keep it secret and out of
                   version control; wgc run --certify --sign-key FILE signs with it.
  ${PUBLIC_KEY_FILE}  the public key (SPKI PEM). Hand it to whoever verifies your bundles
                   (wgc verify-bundle DIR --public-key FILE), and give them the fingerprint
                   through another channel, so they can tell the key is yours.

An existing key is never overwritten.

Exit codes: 0 written · 2 usage error, or DIR already holds a key.
`;

/** Runs `wgc keygen`; returns the exit code. */
export async function keygenCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  let out = '.';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--out' || a.startsWith('--out=')) {
      const v = a.includes('=') ? a.slice('--out='.length) : argv[++i];
      if (!v) return usage(io, '--out: expected a folder');
      out = v;
    } else return usage(io, `unexpected argument ${a}`);
  }
  const privatePath = join(out, PRIVATE_KEY_FILE);
  const publicPath = join(out, PUBLIC_KEY_FILE);
  // Both are checked first, so a pair is written whole or not at all.
  const present = [privatePath, publicPath].filter((p) => existsSync(p));
  if (present.length > 0) return refuse(io, present[0]!);
  const pair = generateSigningKeyPair();
  try {
    mkdirSync(out, { recursive: true });
    // 'wx': fails if the file appeared since the check, instead of replacing someone's key.
    writeFileSync(privatePath, pair.privatePem, { mode: 0o600, flag: 'wx' });
    writeFileSync(publicPath, pair.publicPem, { mode: 0o644, flag: 'wx' });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EEXIST') return refuse(io, err.path ?? privatePath);
    io.err(`wgc keygen: ${err.path ?? out}: cannot write (${err.code ?? err.message})\n`);
    return 2;
  }
  io.out(
    [
      `private key  ${privatePath}  (mode 0600: keep it secret, never commit it; sign with wgc run --certify --sign-key ${privatePath})`,
      `public key   ${publicPath}  (hand it to whoever verifies your bundles)`,
      `fingerprint  ${pair.fingerprint}`,
      '',
    ].join('\n'),
  );
  return 0;
}

function refuse(io: CliIo, path: string): number {
  io.err(`wgc keygen: ${path} already exists; a key is never overwritten (choose another --out, or remove the old pair yourself if you mean to replace it)\n`);
  return 2;
}

function usage(io: CliIo, problem: string): number {
  io.err(`wgc keygen: ${problem}\n${USAGE.split('\n')[0]}\n`);
  return 2;
}
