/**
 * Signed certification bundles: `wgc keygen`, `wgc run --certify --sign-key`, and
 * `wgc verify-bundle DIR --public-key FILE` catching every way a bundle can be passed off as
 * someone else's (files edited, the manifest rewritten, the signature re-made or removed).
 */
import { execFile } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { buildRunResult } from '../../src/report/build.ts';
import { verifyBundle, writeCertificationBundle } from '../../src/report/certify.ts';
import { fingerprintOf, readSigningKey, signManifest } from '../../src/report/signature.ts';
import { INTEGRITY_ONLY, verifyBundleCommand } from '../../src/cli/verify-bundle.ts';
import { keygenCommand } from '../../src/cli/keygen.ts';
import { runCommand } from '../../src/cli/run.ts';
import type { CliIo } from '../../src/report/io.ts';
import { FIXTURE_CATALOG_PATH, FIXTURE_SPEC_PATH, fixtureCatalog, fixtureMeta, passingResults } from './fixtures/results.ts';

const result = buildRunResult(passingResults(), fixtureCatalog(), fixtureMeta());
const files = { specPath: FIXTURE_SPEC_PATH, catalogPath: FIXTURE_CATALOG_PATH };

const roots: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'wgc-signed-'));
  roots.push(d);
  return d;
}
afterAll(() => {
  for (const d of roots) rmSync(d, { recursive: true, force: true });
});

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { out: (t) => void (out += t), err: (t) => void (err += t) }, out: () => out, err: () => err };
}

/** A key pair written by `wgc keygen` into a fresh folder. */
async function keys(): Promise<{ dir: string; key: string; pub: string; fingerprint: string }> {
  const dir = join(scratch(), 'keys');
  const c = capture();
  expect(await keygenCommand(['--out', dir], c.io)).toBe(0);
  const fingerprint = /fingerprint {2}(SHA256:[0-9a-f]{64})/.exec(c.out())![1]!;
  return { dir, key: join(dir, 'wgc-signing.key'), pub: join(dir, 'wgc-signing.pub'), fingerprint };
}

async function signedBundle(key: string): Promise<string> {
  const dir = join(scratch(), 'bundle');
  await writeCertificationBundle(result, dir, { ...files, signWith: readSigningKey(key) });
  return dir;
}

async function verifyCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = capture();
  const code = await verifyBundleCommand(args, c.io);
  return { code, out: c.out(), err: c.err() };
}

/** What someone without the key can do: edit a file, then re-hash everything into a new manifest. */
function rewriteManifest(dir: string): Buffer {
  const lines = (readdirSync(dir, { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[])
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((rel) => rel !== 'MANIFEST.sha256' && rel !== 'MANIFEST.sig')
    .sort()
    .map(
      (rel) =>
        `${createHash('sha256')
          .update(readFileSync(join(dir, rel)))
          .digest('hex')}  ${rel}`,
    );
  const manifest = Buffer.from(`${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'MANIFEST.sha256'), manifest);
  return manifest;
}

/** Edits report.json's headline (still a valid report, so only the hashes can tell). */
function tamperReport(dir: string): void {
  const path = join(dir, 'reports/report.json');
  const report = JSON.parse(readFileSync(path, 'utf8'));
  report.summary.headline = `${report.summary.headline} (independently audited)`;
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}

describe('wgc keygen', () => {
  test('writes a 0600 PKCS#8 private key and an SPKI public key, prints the fingerprint, and never overwrites a key', async () => {
    const k = await keys();
    const privatePem = readFileSync(k.key, 'utf8');
    expect(privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(readFileSync(k.pub, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    if (process.platform !== 'win32') expect(statSync(k.key).mode & 0o777).toBe(0o600);
    const spki = createPublicKey(readFileSync(k.pub, 'utf8')).export({ type: 'spki', format: 'der' });
    expect(k.fingerprint).toBe(`SHA256:${createHash('sha256').update(spki).digest('hex')}`);

    const again = capture();
    expect(await keygenCommand(['--out', k.dir], again.io)).toBe(2);
    expect(again.err()).toContain(`${k.key} already exists; a key is never overwritten`);
    expect(readFileSync(k.key, 'utf8')).toBe(privatePem);
    // A lone public key blocks a new pair too: a pair is written whole or not at all.
    rmSync(k.key);
    expect(await keygenCommand(['--out', k.dir], capture().io)).toBe(2);
    expect(existsSync(k.key)).toBe(false);
  });
});

describe('a signed bundle', () => {
  test('holds MANIFEST.sig (outside the manifest) and names the signer in certification.json; it passes with the public key', async () => {
    const k = await keys();
    const dir = await signedBundle(k.key);
    const manifest = readFileSync(join(dir, 'MANIFEST.sha256'));
    expect(manifest.toString()).not.toContain('MANIFEST.sig');
    const sig = JSON.parse(readFileSync(join(dir, 'MANIFEST.sig'), 'utf8'));
    expect(sig).toMatchObject({
      format: 'wgc-bundle-signature/1',
      algorithm: 'Ed25519',
      signed: 'MANIFEST.sha256',
      fingerprint: k.fingerprint,
      publicKey: readFileSync(k.pub, 'utf8'),
      suite: result.meta.suite,
      specHash: result.meta.specHash,
      catalogHash: result.meta.catalogHash,
      seed: 424242,
    });
    // The signature is plain Ed25519 over the manifest's bytes: checkable without this suite.
    expect(verify(null, manifest, createPublicKey(readFileSync(k.pub, 'utf8')), Buffer.from(sig.signature, 'base64'))).toBe(true);
    const cert = JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8'));
    expect(cert).toMatchObject({ signedBy: k.fingerprint, suite: result.meta.suite, specHash: result.meta.specHash, catalogHash: result.meta.catalogHash, seed: 424242 });
    // Nothing of the private key is in the bundle.
    const secretLine = readFileSync(k.key, 'utf8').split('\n')[1]!;
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }).filter((x) => x.isFile())) expect(readFileSync(join(e.parentPath, e.name), 'utf8')).not.toContain(secretLine);

    expect(await verifyBundle(dir, { publicKey: createPublicKey(readFileSync(k.pub, 'utf8')) })).toEqual({ ok: true, checked: 8, problems: [], signer: k.fingerprint });
    const v = await verifyCli([dir, '--public-key', k.pub]);
    expect(v.code).toBe(0);
    expect(v.out).toBe(`${dir}: intact and signed by ${k.fingerprint} (8 files match MANIFEST.sha256; MANIFEST.sig verifies with ${k.pub})\n`);
  });

  test('without --public-key: integrity only, and it says so', async () => {
    const k = await keys();
    const v = await verifyCli([await signedBundle(k.key)]);
    expect(v.code).toBe(0);
    expect(v.out).toContain(`MANIFEST.sig: a valid signature by the public key it carries, ${k.fingerprint}`);
    expect(v.out).toContain(`${INTEGRITY_ONLY}\n`);
    expect(INTEGRITY_ONLY).toBe("checked integrity only, not origin: pass --public-key FILE (the signer's public key, obtained from them out of band) to check who made it");
    const unsigned = join(scratch(), 'unsigned');
    await writeCertificationBundle(result, unsigned, files);
    const u = await verifyCli([unsigned]);
    expect(u.code).toBe(0);
    expect(u.out).toBe(`${unsigned}: intact (8 files match MANIFEST.sha256)\nnot signed (no MANIFEST.sig)\n${INTEGRITY_ONLY}\n`);
    // An unsigned bundle never passes for a signed one.
    const withKey = await verifyCli([unsigned, '--public-key', k.pub]);
    expect(withKey.code).toBe(1);
    expect(withKey.out).toContain('signature: MANIFEST.sig (missing: the bundle is not signed');
  });
});

describe('what --public-key catches', () => {
  test('an edited report.json under the old manifest', async () => {
    const k = await keys();
    const dir = await signedBundle(k.key);
    tamperReport(dir);
    const v = await verifyCli([dir, '--public-key', k.pub]);
    expect(v.code).toBe(1);
    expect(v.out).toContain('modified: reports/report.json');
  });

  test('an edited report.json with MANIFEST.sha256 rewritten to match: the signature does not verify', async () => {
    const k = await keys();
    const dir = await signedBundle(k.key);
    tamperReport(dir);
    rewriteManifest(dir);
    const v = await verifyCli([dir, '--public-key', k.pub]);
    expect(v.code).toBe(1);
    expect(v.out).toBe(`${dir}: 1 problem\n  signature: MANIFEST.sig (the signature does not verify with the given public key (${k.fingerprint}): MANIFEST.sha256 was changed after it was signed)\n`);
    // The signature still carries its own key, so even without --public-key the rewrite shows.
    expect((await verifyCli([dir])).code).toBe(1);
  });

  test('a bundle re-signed by someone else, their own key embedded: passes integrity, fails origin', async () => {
    const k = await keys();
    const mallory = await keys();
    const dir = await signedBundle(k.key);
    tamperReport(dir);
    const certPath = join(dir, 'certification.json');
    writeFileSync(certPath, readFileSync(certPath, 'utf8').replace(k.fingerprint, mallory.fingerprint));
    const manifest = rewriteManifest(dir);
    const facts = { suite: result.meta.suite, specHash: result.meta.specHash, catalogHash: result.meta.catalogHash, seed: result.meta.seed };
    writeFileSync(join(dir, 'MANIFEST.sig'), signManifest(manifest, readSigningKey(mallory.key), facts));

    const blind = await verifyCli([dir]);
    expect(blind.code).toBe(0);
    expect(blind.out).toContain(INTEGRITY_ONLY);
    const v = await verifyCli([dir, '--public-key', k.pub]);
    expect(v.code).toBe(1);
    expect(v.out).toContain(`signed by another key: MANIFEST.sig carries the public key ${mallory.fingerprint}, the given public key is ${k.fingerprint}`);
  });

  test("another key pair's public key", async () => {
    const k = await keys();
    const other = await keys();
    const v = await verifyCli([await signedBundle(k.key), '--public-key', other.pub]);
    expect(v.code).toBe(1);
    expect(v.out).toContain(`signed by another key: MANIFEST.sig carries the public key ${k.fingerprint}, the given public key is ${other.fingerprint}`);
  });

  test('MANIFEST.sig removed, or malformed', async () => {
    const k = await keys();
    const dir = await signedBundle(k.key);
    const sig = readFileSync(join(dir, 'MANIFEST.sig'), 'utf8');
    rmSync(join(dir, 'MANIFEST.sig'));
    const v = await verifyCli([dir, '--public-key', k.pub]);
    expect(v.code).toBe(1);
    expect(v.out).toContain(`missing: the bundle is not signed, so nothing ties it to the given public key ${k.fingerprint}`);
    // Without the key, certification.json (covered by the manifest) still says it was signed.
    const blind = await verifyCli([dir]);
    expect(blind.code).toBe(1);
    expect(blind.out).toContain(`missing: certification.json says the bundle was signed by ${k.fingerprint}`);

    writeFileSync(join(dir, 'MANIFEST.sig'), sig.replace(/"signature": "[^"]+"/, '"signature": "AAAA"'));
    const bad = await verifyCli([dir, '--public-key', k.pub]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/signature: MANIFEST\.sig \(malformed: not a wgc-bundle-signature\/1 file \(signature: base64 of 64 bytes\)\)/);
    writeFileSync(join(dir, 'MANIFEST.sig'), 'not json');
    expect((await verifyCli([dir, '--public-key', k.pub])).out).toContain('malformed: not a wgc-bundle-signature/1 file (not JSON)');
  });
});

describe('key files and usage errors (exit 2, naming the file, never its contents)', () => {
  test('verify-bundle: an unreadable key, a private key as --public-key, a non-Ed25519 key, a folder that is not a bundle', async () => {
    const k = await keys();
    const dir = await signedBundle(k.key);
    const missing = await verifyCli([dir, '--public-key', join(k.dir, 'nope.pub')]);
    expect([missing.code, missing.err]).toEqual([2, `wgc verify-bundle: --public-key: ${join(k.dir, 'nope.pub')}: cannot read the key file (ENOENT)\n`]);
    const priv = await verifyCli([dir, '--public-key', k.key]);
    expect(priv.code).toBe(2);
    expect(priv.err).toContain(`${k.key}: a private key;`);
    expect(priv.err).not.toContain(readFileSync(k.key, 'utf8').split('\n')[1]!);
    const ec = join(k.dir, 'ec.pub');
    writeFileSync(ec, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }));
    expect(await verifyCli([dir, '--public-key', ec])).toMatchObject({ code: 2, err: `wgc verify-bundle: --public-key: ${ec}: a ec key, not Ed25519 (make one with wgc keygen)\n` });
    expect((await verifyCli([k.dir, '--public-key', k.pub])).code).toBe(2);
    expect((await verifyCli([dir, '--public-key'])).code).toBe(2);
    expect((await verifyCli([dir, '--frobnicate'])).code).toBe(2);
  });

  test('run: --sign-key (or WGC_SIGN_KEY) without --certify, an unreadable key, a public key, a non-Ed25519 key', async () => {
    const k = await keys();
    const a = capture();
    expect(await runCommand(['--sign-key', k.key], {}, a.io)).toBe(2);
    expect(a.err()).toBe('wgc run: --sign-key without --certify: only a certification bundle is signed (add --certify)\n');
    const b = capture();
    expect(await runCommand([], { WGC_SIGN_KEY: k.key }, b.io)).toBe(2);
    expect(b.err()).toMatch(/^wgc run: WGC_SIGN_KEY without --certify/);
    const out = scratch();
    const c = capture();
    expect(await runCommand(['--certify', '--out', out, '--sign-key', join(k.dir, 'nope.key')], {}, c.io)).toBe(2);
    expect(c.err()).toBe(`wgc run: --sign-key: ${join(k.dir, 'nope.key')}: cannot read the key file (ENOENT)\n`);
    const d = capture();
    expect(await runCommand(['--certify', '--out', out, '--sign-key', k.pub], {}, d.io)).toBe(2);
    expect(d.err()).toContain(`${k.pub}: a public key; signing takes the private key`);
    const rsa = join(k.dir, 'ec.key');
    writeFileSync(rsa, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const e = capture();
    expect(await runCommand(['--certify', '--out', out, '--sign-key', rsa], {}, e.io)).toBe(2);
    expect(e.err()).toBe(`wgc run: --sign-key: ${rsa}: a ec key, not Ed25519 (make one with wgc keygen)\n`);
    const garbage = join(k.dir, 'garbage.key');
    writeFileSync(garbage, 'hunter2-not-a-key');
    const f = capture();
    expect(await runCommand(['--certify', '--out', out, '--sign-key', garbage], {}, f.io)).toBe(2);
    expect(f.err()).toContain(`${garbage}: not an unencrypted PEM private key`);
    expect(f.err()).not.toContain('hunter2');
    expect(existsSync(join(out, 'report.json'))).toBe(false);
  });
});

describe('end to end', () => {
  test('wgc run --certify --sign-key on the example suite writes a bundle that verifies with the public key', async () => {
    const k = await keys();
    const out = scratch();
    const c = capture();
    expect(await runCommand(['--suites-dir', 'test/core/fixtures/suites', '--out', out, '--seed', '7', '--runs', '2', '--certify', '--sign-key', k.key], {}, c.io)).toBe(0);
    expect(c.out()).toContain(`certification bundle signed by ${k.fingerprint}`);
    const report = readFileSync(join(out, 'certification/reports/report.json'), 'utf8');
    expect(JSON.parse(report).meta.config.signKey).toBe(k.key);
    expect(report).not.toContain(readFileSync(k.key, 'utf8').split('\n')[1]!);
    const v = await verifyCli([join(out, 'certification'), '--public-key', k.pub]);
    expect(v.code, v.out).toBe(0);
    expect(v.out).toContain(`intact and signed by ${k.fingerprint}`);
    expect(fingerprintOf(readSigningKey(k.key))).toBe(k.fingerprint);
  });

  test('through bin/wgc.mjs: keygen 0 then 2; verify-bundle 0, 1 with another key, 2 with no key file', async () => {
    const root = scratch();
    const wgc = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['bin/wgc.mjs', ...args]).then(
        (r) => ({ code: 0, out: r.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
      );
    expect((await wgc('keygen', '--out', join(root, 'k'))).code).toBe(0);
    expect((await wgc('keygen', '--out', join(root, 'k'))).code).toBe(2);
    expect((await wgc('keygen', '--out', join(root, 'other'))).code).toBe(0);
    const dir = await signedBundle(join(root, 'k/wgc-signing.key'));
    const good = await wgc('verify-bundle', dir, '--public-key', join(root, 'k/wgc-signing.pub'));
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/intact and signed by SHA256:[0-9a-f]{64}/);
    expect((await wgc('verify-bundle', dir, '--public-key', join(root, 'other/wgc-signing.pub'))).code).toBe(1);
    expect((await wgc('verify-bundle', dir, '--public-key', join(root, 'nope.pub'))).code).toBe(2);
  });
});
