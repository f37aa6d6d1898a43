/**
 * Signed certification bundles. A manifest proves only that nothing changed since someone
 * wrote it; anyone can rewrite it. MANIFEST.sig holds an Ed25519 signature over the exact bytes
 * of MANIFEST.sha256, and since the manifest hashes every other file (certification.json names
 * the signer's fingerprint), a signature that verifies with a public key the verifier got from
 * the signer out of band binds the whole bundle to whoever holds the private key.
 *
 * Key files are PEM: the private key PKCS#8, the public key SPKI (`wgc keygen` writes both). The
 * contents of a private key file are never put in an error message, a log line or a report.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** The signature file, beside the manifest (not listed in it: it is written after it). */
export const SIGNATURE = 'MANIFEST.sig';
/** `format` of MANIFEST.sig; a verifier refuses any other. */
export const SIGNATURE_FORMAT = 'wgc-bundle-signature/1';
/** The files `wgc keygen` writes. */
export const PRIVATE_KEY_FILE = 'wgc-signing.key';
export const PUBLIC_KEY_FILE = 'wgc-signing.pub';

/** A key file that cannot be used; the message names the file and the reason, never its contents. */
export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

/** MANIFEST.sig: the signature and the facts it vouches for (the same as certification.json's, which the manifest covers). */
export const BundleSignatureSchema = z
  .object({
    format: z.literal(SIGNATURE_FORMAT),
    algorithm: z.literal('Ed25519'),
    /** The file whose exact bytes are signed. */
    signed: z.literal('MANIFEST.sha256'),
    /** sha256 (hex) of those bytes, for the reader; the signature is over the bytes themselves. */
    manifestSha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** The Ed25519 signature, base64 (64 bytes). */
    signature: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, 'base64 of 64 bytes'),
    /** The signer's public key, SPKI PEM. */
    publicKey: z.string(),
    /** "SHA256:" and the sha256 (hex) of the DER SPKI public key. */
    fingerprint: z.string().regex(/^SHA256:[0-9a-f]{64}$/),
    suite: z.object({ name: z.string(), version: z.string() }).strict(),
    specHash: z.string(),
    catalogHash: z.string(),
    seed: z.number(),
  })
  .strict();

export type BundleSignature = z.infer<typeof BundleSignatureSchema>;

/** The facts of the run MANIFEST.sig repeats from certification.json. */
export type SignedFacts = Pick<BundleSignature, 'suite' | 'specHash' | 'catalogHash' | 'seed'>;

/** "SHA256:<hex>" of the DER SPKI encoding of the public key (of a private key: of its public half). */
export function fingerprintOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return `SHA256:${createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('hex')}`;
}

/** A new Ed25519 key pair as PEM text (private PKCS#8, public SPKI) and the public key's fingerprint. */
export function generateSigningKeyPair(): { privatePem: string; publicPem: string; fingerprint: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: fingerprintOf(publicKey),
  };
}

function readKeyText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new KeyFileError(`${path}: cannot read the key file (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

function requireEd25519(key: KeyObject, path: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyFileError(`${path}: a ${key.asymmetricKeyType ?? 'non-asymmetric'} key, not Ed25519 (make one with wgc keygen)`);
  return key;
}

/** Reads the Ed25519 private key `wgc run --certify --sign-key FILE` signs with. */
export function readSigningKey(path: string): KeyObject {
  const text = readKeyText(path);
  if (/-----BEGIN PUBLIC KEY-----/.test(text) && !/PRIVATE KEY-----/.test(text)) {
    throw new KeyFileError(`${path}: a public key; signing takes the private key (${PRIVATE_KEY_FILE})`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    // The crypto error is not repeated: the point is that nothing of the file's text is.
    throw new KeyFileError(`${path}: not an unencrypted PEM private key (wgc keygen writes one: ${PRIVATE_KEY_FILE})`);
  }
  return requireEd25519(key, path);
}

/** Reads the signer's Ed25519 public key (`wgc verify-bundle DIR --public-key FILE`). */
export function readPublicKey(path: string): KeyObject {
  const text = readKeyText(path);
  if (/PRIVATE KEY-----/.test(text)) throw new KeyFileError(`${path}: a private key; verifying takes the signer's public key (${PUBLIC_KEY_FILE}), and a private key is never handed over`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch {
    throw new KeyFileError(`${path}: not a PEM public key (wgc keygen writes one: ${PUBLIC_KEY_FILE})`);
  }
  return requireEd25519(key, path);
}

/** Signs the manifest's exact bytes; returns MANIFEST.sig's text. */
export function signManifest(manifest: Buffer, key: KeyObject, facts: SignedFacts): string {
  const publicKey = createPublicKey(key);
  const sig: BundleSignature = {
    format: SIGNATURE_FORMAT,
    algorithm: 'Ed25519',
    signed: 'MANIFEST.sha256',
    manifestSha256: createHash('sha256').update(manifest).digest('hex'),
    signature: sign(null, manifest, key).toString('base64'),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: fingerprintOf(publicKey),
    suite: facts.suite,
    specHash: facts.specHash,
    catalogHash: facts.catalogHash,
    seed: facts.seed,
  };
  return `${JSON.stringify(sig, null, 2)}\n`;
}

/** What checking MANIFEST.sig found: problems (each a sentence), and the signer when the signature verified. */
export interface SignatureCheck {
  problems: string[];
  /** Fingerprint of the key the signature verified with. */
  signer?: string;
}

/**
 * Checks MANIFEST.sig (its text, undefined when absent) against the manifest's bytes: with the
 * public key the verifier supplied when there is one (which must be the key the file carries),
 * else with the key the file carries, which proves integrity only. `certificate` is the bundle's
 * certification.json (undefined when unreadable): its signer and facts must be the file's.
 */
export function checkSignature(manifest: Buffer, text: string | undefined, given: KeyObject | undefined, certificate: Record<string, unknown> | undefined): SignatureCheck {
  const claimed = typeof certificate?.signedBy === 'string' ? certificate.signedBy : undefined;
  if (text === undefined) {
    if (given) return { problems: [`missing: the bundle is not signed, so nothing ties it to the given public key ${fingerprintOf(given)}`] };
    return { problems: claimed ? [`missing: certification.json says the bundle was signed by ${claimed}`] : [] };
  }
  let sig: BundleSignature;
  try {
    sig = BundleSignatureSchema.parse(JSON.parse(text));
  } catch (e) {
    const why = e instanceof z.ZodError ? e.issues.map((i) => `${i.path.join('.') || 'top level'}: ${i.message}`).join('; ') : 'not JSON';
    return { problems: [`malformed: not a ${SIGNATURE_FORMAT} file (${why})`] };
  }
  let embedded: KeyObject;
  try {
    embedded = createPublicKey({ key: sig.publicKey, format: 'pem' });
  } catch {
    return { problems: ['malformed: its publicKey is not a PEM public key'] };
  }
  if (embedded.asymmetricKeyType !== 'ed25519') return { problems: [`malformed: its publicKey is a ${embedded.asymmetricKeyType} key, not Ed25519`] };
  if (fingerprintOf(embedded) !== sig.fingerprint) return { problems: [`malformed: its fingerprint ${sig.fingerprint} is not that of the public key it carries (${fingerprintOf(embedded)})`] };
  if (given && fingerprintOf(given) !== sig.fingerprint) {
    return { problems: [`signed by another key: MANIFEST.sig carries the public key ${sig.fingerprint}, the given public key is ${fingerprintOf(given)}`] };
  }
  const key = given ?? embedded;
  if (!verify(null, manifest, key, Buffer.from(sig.signature, 'base64'))) {
    const whose = given ? 'the given public key' : 'the public key MANIFEST.sig carries';
    return { problems: [`the signature does not verify with ${whose} (${sig.fingerprint}): MANIFEST.sha256 was changed after it was signed`] };
  }
  const problems: string[] = [];
  if (certificate) {
    const facts: [string, unknown, unknown][] = [
      ['signer', sig.fingerprint, claimed],
      ['suite', sig.suite, certificate.suite],
      ['specHash', sig.specHash, certificate.specHash],
      ['catalogHash', sig.catalogHash, certificate.catalogHash],
      ['seed', sig.seed, certificate.seed],
    ];
    for (const [name, inSig, inCert] of facts) {
      if (JSON.stringify(inSig) !== JSON.stringify(inCert)) problems.push(`inconsistent: ${name} ${JSON.stringify(inSig)}, certification.json says ${JSON.stringify(inCert) ?? 'nothing'}`);
    }
  }
  return { problems, signer: sig.fingerprint };
}
