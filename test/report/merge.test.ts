import { describe, expect, test } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRunResult } from '../../src/report/build.ts';
import { mergePartials, MergeError } from '../../src/report/merge.ts';
import { readPartialFile, writePartialFile, type ShardPartial } from '../../src/report/partial.ts';
import { readReport } from '../../src/report/json.ts';
import { mergeCommand } from '../../src/cli/merge.ts';
import type { RunResult } from '../../src/report/model.ts';
import type { CliIo } from '../../src/report/io.ts';
import { verifyBundle } from '../../src/report/certify.ts';
import { generateSigningKeyPair, readPublicKey } from '../../src/report/signature.ts';
import { DEFAULT_SPEC_PATH, hashFile } from '../../src/report/meta.ts';
import { FIXTURE_CATALOG_PATH, fixtureCatalog, fixtureMeta, mixedResults } from './fixtures/results.ts';

const catalog = fixtureCatalog();

/** The report without the fields a sharded run may legitimately change. */
function comparable(r: RunResult) {
  const { startedAt: _s, durationMs: _d, shard: _sh, mergedShards: _m, ...meta } = r.meta;
  return { ...r, meta };
}

async function shardFiles(dir: string, specHash?: string) {
  const results = mixedResults();
  const first = results.filter((_, i) => i % 2 === 0);
  const second = results.filter((_, i) => i % 2 === 1);
  const sum = (list: typeof results) => list.reduce((n, r) => n + r.requests, 0);
  const spec = specHash ? { specHash } : {};
  const a = await writePartialFile(dir, { index: 1, count: 2 }, catalog.hash, fixtureMeta({ durationMs: 3000, requests: sum(first), ...spec }), first);
  const b = await writePartialFile(dir, { index: 2, count: 2 }, catalog.hash, fixtureMeta({ startedAt: '2025-11-22T12:00:01.000Z', durationMs: 2500, requests: sum(second), ...spec }), second);
  return [a, b];
}

describe('merge', () => {
  test('merging the partials of two shards gives the unsharded report (timing and shard fields aside)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-merge-'));
    const unsharded = buildRunResult(mixedResults(), catalog, fixtureMeta());
    const partials = await Promise.all((await shardFiles(dir)).map(readPartialFile));
    const merged = mergePartials([...partials].reverse(), catalog);
    expect(comparable(merged)).toEqual(comparable(unsharded));
    expect(merged.meta).toMatchObject({ shard: null, mergedShards: 2, startedAt: '2025-11-22T12:00:00.000Z', durationMs: 3500 });
  });

  test('wgc merge writes the reports and exits with the verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-merge-cli-'));
    const files = await shardFiles(dir);
    let out = '';
    const io: CliIo = { out: (t) => void (out += t), err: (t) => void (out += t) };
    const code = await mergeCommand(['--out', join(dir, 'out'), '--catalog', FIXTURE_CATALOG_PATH, ...files], io);
    expect(code).toBe(1);
    expect(out).toContain('NOT-CONFORMANT');
    const report = readReport(join(dir, 'out', 'report.json'));
    expect(comparable(report)).toEqual(comparable(buildRunResult(mixedResults(), catalog, fixtureMeta())));
  });

  test('--require-coverage: a bad value is a usage error; a failed MUST clause stays not conformant (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-merge-cov-'));
    const files = await shardFiles(dir);
    let out = '';
    const io: CliIo = { out: (t) => void (out += t), err: (t) => void (out += t) };
    expect(await mergeCommand(['--out', join(dir, 'a'), '--catalog', FIXTURE_CATALOG_PATH, '--require-coverage', 'most', ...files], io)).toBe(2);
    expect(out).toContain('--require-coverage: expected a number of clauses');
    expect(await mergeCommand(['--out', join(dir, 'b'), '--catalog', FIXTURE_CATALOG_PATH, '--require-coverage=full', ...files], io)).toBe(1);
  });

  test('refuses incomplete, duplicated or mismatched shards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-merge-bad-'));
    const [a, b] = (await Promise.all((await shardFiles(dir)).map(readPartialFile))) as [ShardPartial, ShardPartial];
    expect(() => mergePartials([a], catalog)).toThrow(new MergeError('missing shard 2 of 2'));
    expect(() => mergePartials([a, a], catalog)).toThrow('shard 1 of 2: given twice');
    expect(() => mergePartials([a, { ...b, meta: { ...b.meta, seed: 1 } }], catalog)).toThrow("shard 2 of 2: seed 1 differs from shard 1's 424242");
    expect(() => mergePartials([a, { ...b, catalogHash: '0'.repeat(64) }], catalog)).toThrow(/shard 2 of 2: ran against a different clause catalog/);
    let err = '';
    const io: CliIo = { out: () => {}, err: (t) => void (err += t) };
    expect(await mergeCommand(['--out', join(dir, 'o'), '--catalog', FIXTURE_CATALOG_PATH, join(dir, 'partial-1-of-2.json')], io)).toBe(2);
    expect(err).toBe('wgc merge: missing shard 2 of 2\n');
    err = '';
    expect(await mergeCommand(['--out', join(dir, 'o'), join(dir, 'nope.json')], io)).toBe(2);
    expect(err).toBe(`wgc merge: ${join(dir, 'nope.json')}: file not found\n`);
    expect(await mergeCommand([join(dir, 'partial-1-of-2.json')], io)).toBe(2);
  });

  test('wgc merge --certify writes the certification bundle of the merged run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-merge-certify-'));
    const files = await shardFiles(dir, hashFile(DEFAULT_SPEC_PATH));
    let out = '';
    const io: CliIo = { out: (t) => void (out += t), err: (t) => void (out += t) };
    const code = await mergeCommand(['--out', join(dir, 'out'), '--catalog', FIXTURE_CATALOG_PATH, '--certify', ...files], io);
    expect(code).toBe(1);
    expect(out).toContain(join(dir, 'out', 'certification'));
    const verified = await verifyBundle(join(dir, 'out', 'certification'));
    expect(verified.problems).toEqual([]);
    expect(verified.ok).toBe(true);
    const bundled = readReport(join(dir, 'out', 'certification', 'reports', 'report.json'));
    expect(bundled.meta.mergedShards).toBe(2);
    // A second certification into the same folder is refused before anything is written.
    let err = '';
    const quiet: CliIo = { out: () => {}, err: (t) => void (err += t) };
    expect(await mergeCommand(['--out', join(dir, 'out'), '--catalog', FIXTURE_CATALOG_PATH, '--certify', ...files], quiet)).toBe(2);
    expect(err).toMatch(/already exists; a bundle is never overwritten/);
  });

  test('wgc merge --certify --sign-key signs the merged bundle; the signer verifies with the public key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-merge-sign-'));
    const files = await shardFiles(dir, hashFile(DEFAULT_SPEC_PATH));
    const pair = generateSigningKeyPair();
    writeFileSync(join(dir, 'k.key'), pair.privatePem, { mode: 0o600 });
    writeFileSync(join(dir, 'k.pub'), pair.publicPem);
    let out = '';
    const io: CliIo = { out: (t) => void (out += t), err: (t) => void (out += t) };
    expect(await mergeCommand(['--out', join(dir, 'out'), '--catalog', FIXTURE_CATALOG_PATH, '--certify', '--sign-key', join(dir, 'k.key'), ...files], io)).toBe(1);
    expect(out).toContain(`certification bundle signed by ${pair.fingerprint}`);
    const verified = await verifyBundle(join(dir, 'out', 'certification'), { publicKey: readPublicKey(join(dir, 'k.pub')) });
    expect(verified.problems).toEqual([]);
    expect(verified.signer).toBe(pair.fingerprint);
    // Without --certify there is nothing to sign: a usage error.
    let err = '';
    const quiet: CliIo = { out: () => {}, err: (t) => void (err += t) };
    expect(await mergeCommand(['--out', join(dir, 'out2'), '--sign-key', join(dir, 'k.key'), ...files], quiet)).toBe(2);
    expect(err).toMatch(/--sign-key without --certify/);
  });

  test('wgc merge --certify refuses shards that ran against another spec', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wgc-merge-certify-spec-'));
    const files = await shardFiles(dir);
    let err = '';
    const io: CliIo = { out: () => {}, err: (t) => void (err += t) };
    expect(await mergeCommand(['--out', join(dir, 'out'), '--catalog', FIXTURE_CATALOG_PATH, '--certify', ...files], io)).toBe(2);
    expect(err).toMatch(/--certify: .*openapi\.yaml: sha256 \w+ is not the spec the run used/);
  });
});
