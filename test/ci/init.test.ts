/**
 * Config discovery and `wgc init` (issue 19, item 4): wg-conformance.json in the working folder
 * is the profile when neither --target nor WGC_TARGET names one, and the run says which file it
 * read; init writes a starter profile with its notes in "$comment", which the profile reader
 * accepts, and prints the variables to set. End to end: init, then `wgc run` in that folder
 * against a reference target, with only the secrets init named.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { initCommand } from '../../src/cli/init.ts';
import { parseProfile } from '../../src/config/profile.ts';
import { ConfigError, DEFAULT_PROFILE, describeProfile, resolveConfig, type ConfigInputs } from '../../src/config/resolve.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import type { RunResult } from '../../src/report/model.ts';
import { cleanEnv, ERRORS_SUITE_KEYS, referenceWithKeys, runWgc } from './helpers.ts';

/** Inputs whose readFile serves `files` and records what was read. */
function inputs(files: Record<string, string | Error>, over: Partial<ConfigInputs> = {}): ConfigInputs & { read: string[] } {
  const read: string[] = [];
  return {
    argv: [],
    env: {},
    randomSeed: () => 7,
    ...over,
    read,
    readFile: (p) => {
      read.push(p);
      const f = files[p];
      if (f instanceof Error) throw f;
      if (f === undefined) throw Object.assign(new Error(`ENOENT ${p}`), { code: 'ENOENT' });
      return f;
    },
  };
}

function problems(i: ConfigInputs): string[] {
  try {
    resolveConfig(i);
  } catch (e) {
    if (e instanceof ConfigError) return [...e.problems];
    throw e;
  }
  throw new Error('expected a ConfigError');
}

const found = JSON.stringify({ baseUrl: 'https://found.example', runs: 3 });
const named = JSON.stringify({ baseUrl: 'https://named.example' });

describe('profile discovery', () => {
  test(`${DEFAULT_PROFILE} in the working folder is the profile when none is named, and says so`, () => {
    const i = inputs({ [DEFAULT_PROFILE]: found });
    const r = resolveConfig(i);
    expect(i.read).toEqual([DEFAULT_PROFILE]);
    expect(r.config).toMatchObject({ baseUrl: 'https://found.example', runs: 3, profile: DEFAULT_PROFILE });
    expect(r.sources).toMatchObject({ baseUrl: 'profile', profile: 'discovered' });
    expect(r.profileUsed).toEqual({ path: DEFAULT_PROFILE, via: 'working folder' });
    expect(describeProfile(r)).toBe(`profile ${DEFAULT_PROFILE} (found in the working folder; --target FILE or WGC_TARGET names another)`);
  });

  test('--target and WGC_TARGET win, and the working folder is then not read', () => {
    for (const over of [{ argv: ['--target', 'n.json'] }, { env: { WGC_TARGET: 'n.json' } }]) {
      const i = inputs({ [DEFAULT_PROFILE]: found, 'n.json': named }, over);
      const r = resolveConfig(i);
      expect(i.read).toEqual(['n.json']);
      expect(r.config.baseUrl).toBe('https://named.example');
      expect(describeProfile(r)).toBe(`profile n.json (from ${'argv' in over ? '--target' : 'WGC_TARGET'})`);
    }
  });

  test('no file: no profile, no problem; discovery off: the file is not even read', () => {
    const none = resolveConfig(inputs({}));
    expect(none.config.baseUrl).toBeUndefined();
    expect(none.profileUsed).toBeUndefined();
    expect(describeProfile(none)).toBeUndefined();
    const off = inputs({ [DEFAULT_PROFILE]: found }, { discoverProfile: false });
    expect(resolveConfig(off).config.baseUrl).toBeUndefined();
    expect(off.read).toEqual([]);
  });

  test('a file that is there but unusable is an error naming it, not silently skipped', () => {
    expect(problems(inputs({ [DEFAULT_PROFILE]: Object.assign(new Error('EACCES'), { code: 'EACCES' }) }))).toEqual([
      `${DEFAULT_PROFILE} (the profile found in the working folder): cannot read it (EACCES); fix it, or name another profile with --target`,
    ]);
    expect(problems(inputs({ [DEFAULT_PROFILE]: '{"runs": 0}' }))).toEqual([`${DEFAULT_PROFILE}: runs: expected a positive integer, got 0`]);
    // A discovered profile's keys need their variables like a named one's.
    expect(problems(inputs({ [DEFAULT_PROFILE]: JSON.stringify({ keys: [{ name: 'k', env: 'K_SECRET' }] }) }))).toEqual([
      `${DEFAULT_PROFILE}: key "k": environment variable K_SECRET is not set; it must hold the key's secret`,
    ]);
  });

  test('"$comment" holds notes (a string or a list of strings) and is ignored; anything else there is refused', () => {
    for (const comment of ['one note', ['two', 'notes'], []]) {
      const errors: string[] = [];
      const p = parseProfile(JSON.stringify({ $comment: comment, baseUrl: 'https://x.example' }), 'p.json', errors);
      expect(errors).toEqual([]);
      expect(p.settings).toEqual({ baseUrl: 'https://x.example' });
    }
    for (const comment of [3, { a: 'b' }, ['ok', 4]]) {
      const errors: string[] = [];
      parseProfile(JSON.stringify({ $comment: comment }), 'p.json', errors);
      expect(errors).toEqual(['p.json: $comment: expected a string or a list of strings (notes for the reader, ignored by the run)']);
    }
  });
});

/** Runs init in `cwd`, capturing what it prints. */
async function init(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await initCommand(argv, { out: (t) => void (out += t), err: (t) => void (err += t) }, cwd);
  return { code, out, err };
}

describe('wgc init', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wgc-init-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('writes a commented profile the reader accepts, and prints the variables to set', async () => {
    const cwd = mkdtempSync(join(dir, 'a-'));
    const r = await init(
      [
        '--base-url',
        'https://staging.example.com/',
        '--key',
        'owner-all-scopes',
        '--key',
        'reader=CI_READER_KEY',
        '--control-url',
        'https://staging.example.com/__control/v1',
        '--max-credits',
        '1500',
        '--read-only',
      ],
      cwd,
    );
    expect(r).toMatchObject({ code: 0, err: '' });
    const text = readFileSync(join(cwd, DEFAULT_PROFILE), 'utf8');
    const doc = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['$comment', 'baseUrl', 'controlUrl', 'maxCredits', 'readOnly', 'keys']);
    expect(doc).toMatchObject({ baseUrl: 'https://staging.example.com', maxCredits: 1500, readOnly: true });
    expect((doc.$comment as string[]).join('\n')).toContain('Set before a run: WGC_KEY_OWNER_ALL_SCOPES, CI_READER_KEY, WGC_CONTROL_TOKEN.');
    const errors: string[] = [];
    const parsed = parseProfile(text, DEFAULT_PROFILE, errors);
    expect(errors).toEqual([]);
    expect(parsed.keys).toEqual([
      { name: 'owner-all-scopes', env: 'WGC_KEY_OWNER_ALL_SCOPES' },
      { name: 'reader', env: 'CI_READER_KEY' },
    ]);
    expect(r.out).toMatch(/^wrote wg-conformance\.json: target profile for https:\/\/staging\.example\.com \(with the test-control protocol\), 2 keys\n/);
    expect(r.out).toMatch(/\n  WGC_KEY_OWNER_ALL_SCOPES {2}the secret of key "owner-all-scopes"\n  CI_READER_KEY {13}the secret of key "reader"\n  WGC_CONTROL_TOKEN {9}the bearer token/);
    expect(r.out).toContain('\nThen run: wg-conformance run\n');
  });

  test('never overwrites without --force; --file writes elsewhere and says how to run it', async () => {
    const cwd = mkdtempSync(join(dir, 'b-'));
    writeFileSync(join(cwd, DEFAULT_PROFILE), '{"mine": true}');
    const refused = await init(['--base-url', 'https://s.example'], cwd);
    expect(refused).toMatchObject({ code: 2, out: '' });
    expect(refused.err).toBe(`wgc init: ${DEFAULT_PROFILE} already exists; pass --force to overwrite it, or --file PATH to write another\n`);
    expect(readFileSync(join(cwd, DEFAULT_PROFILE), 'utf8')).toBe('{"mine": true}');
    const forced = await init(['--base-url', 'https://s.example', '--force'], cwd);
    expect(forced.code).toBe(0);
    expect(forced.out).toContain('No key named');
    expect(JSON.parse(readFileSync(join(cwd, DEFAULT_PROFILE), 'utf8'))).toMatchObject({ baseUrl: 'https://s.example', keys: [] });
    const other = await init(['--base-url', 'https://s.example', '--file', 'conformance/none.json'], cwd);
    expect(other).toMatchObject({ code: 2, err: 'wgc init: cannot write conformance/none.json (ENOENT)\n' });
    const elsewhere = await init(['--base-url', 'https://s.example', '--file', 'staging.json'], cwd);
    expect(elsewhere.out).toContain('\nThen run: wg-conformance run --target staging.json\n');
  });

  test('refuses what the run would refuse, and secrets in place of variable names, all problems at once', async () => {
    const cwd = mkdtempSync(join(dir, 'c-'));
    const r = await init(['--base-url', 'http://staging.example.com/api/v1', '--key', 'bad label', '--key', 'x=wg_live_abc', '--key', 'a', '--key', 'a=OTHER', '--shard', '1/2', '--frob'], cwd);
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n')).toEqual([
      'wgc init: --key bad label: the label must be letters, digits, "_" or "-"',
      'wgc init: --key x=wg_live_abc: expected the upper-case NAME of the environment variable that will hold the secret (e.g. WGC_KEY_X), never the secret itself',
      'wgc init: --key a=OTHER: the label "a" is given twice',
      'wgc init: --frob: unknown option',
      'wgc init: --shard: not settable in a profile; pass it to wgc run instead',
      expect.stringMatching(/^wgc init: --base-url: refused to send to http:\/\/staging\.example\.com: plain http/),
      expect.stringMatching(/^wgc init: --base-url: http:\/\/staging\.example\.com\/api\/v1 ends in the API prefix/),
      'see wgc init --help',
    ]);
    expect(r.err).not.toContain('wg_live_abc\n');
    expect((await init([], cwd)).err).toContain('wgc init: --base-url: required');
    expect((await init(['--base-url', 'http://10.0.0.5:8080', '--allow-insecure-http'], cwd)).code).toBe(0);
  });
});

describe('init, then run in that folder against a reference target', () => {
  let ref: RunningReference;
  let secrets: string[];
  let dir: string;
  beforeAll(async () => {
    ({ ref, secrets } = await referenceWithKeys(ERRORS_SUITE_KEYS));
    dir = mkdtempSync(join(tmpdir(), 'wgc-init-run-'));
  });
  afterAll(async () => {
    await ref?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the written profile is found, its keys are read from the variables init printed, and the run passes', async () => {
    const r = await init(['--base-url', ref.baseUrl, '--key', 'owner-all-scopes', '--key', 'noread=CI_NOREAD_KEY'], dir);
    expect(r.code).toBe(0);
    const vars = [...r.out.matchAll(/^ {2}([A-Z0-9_]+) {2,}/gm)].map((m) => m[1]!);
    expect(vars).toEqual(['WGC_KEY_OWNER_ALL_SCOPES', 'CI_NOREAD_KEY']);

    // Without the secrets the run stops before sending anything, naming the discovered file: it was read.
    const missing = await runWgc(['run', '--suite', 'errors', '--seed', '1', '--out', 'out'], { cwd: dir, env: cleanEnv() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`wgc run: ${DEFAULT_PROFILE}: key "owner-all-scopes": environment variable WGC_KEY_OWNER_ALL_SCOPES is not set`);

    const env = cleanEnv(Object.fromEntries(vars.map((v, i) => [v, secrets[i]!])));
    const run = await runWgc(['run', '--suite', 'errors', '--seed', '1', '--out', 'out'], { cwd: dir, env });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain(`target ${ref.baseUrl} (no test-control protocol)`);
    expect(run.stdout).toContain(`profile ${DEFAULT_PROFILE} (found in the working folder`);
    const report = JSON.parse(readFileSync(join(dir, 'out/report.json'), 'utf8')) as RunResult;
    expect(report.meta.config).toMatchObject({ profile: DEFAULT_PROFILE, baseUrl: ref.baseUrl });
    expect(report.meta.config.keys).toHaveLength(2);
    // Both keys were matched to the suite's cast and used: the checks needing only them passed.
    const byId = new Map(report.checks.map((c) => [c.checkId, c.outcome]));
    expect(byId.get('errors/envelope-on-read-refusals')).toBe('passed');
    expect(byId.get('errors/malformed-json')).toBe('passed');
    expect(report.checks.filter((c) => c.outcome === 'failed' || c.outcome === 'harnessError')).toEqual([]);
    for (const s of secrets) expect(readFileSync(join(dir, 'out/report.json'), 'utf8') + run.stdout + run.stderr).not.toContain(s);
  });
});
