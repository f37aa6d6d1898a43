/** Configuration: precedence, validation messages, profile secrets policy, redaction, reference table. */
import { describe, expect, test } from 'vitest';
import { ConfigError, configReference, redactConfig, resolveConfig, FIELDS, type ConfigInputs } from '../../src/config/index.ts';

function inputs(over: Partial<ConfigInputs> & { files?: Record<string, string> } = {}): ConfigInputs {
  const files = over.files ?? {};
  return {
    argv: over.argv ?? [],
    env: over.env ?? {},
    readFile: (p) => {
      if (!(p in files)) throw Object.assign(new Error(`ENOENT ${p}`), { code: 'ENOENT' });
      return files[p]!;
    },
    randomSeed: over.randomSeed ?? (() => 424242),
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

describe('precedence: defaults < profile < env < flags', () => {
  const profile = JSON.stringify({ baseUrl: 'https://profile.example', runs: 5, timeoutMs: 2000, concurrency: 3, out: 'p-out' });

  test('defaults apply when nothing is set, and a random seed is drawn and flagged', () => {
    const { config, seedWasRandom, sources } = resolveConfig(inputs());
    expect(config).toMatchObject({
      out: 'reports',
      runs: 25,
      timeoutMs: 10000,
      concurrency: 2,
      readOnly: false,
      allowInsecureHttp: false,
      certify: false,
      maxResponseBytes: 8 * 1024 * 1024,
      suites: [],
      keys: [],
    });
    expect(config.baseUrl).toBeUndefined();
    expect(config.seed).toBe(424242);
    expect(seedWasRandom).toBe(true);
    expect(sources.runs).toBe('default');
  });

  test('each layer overrides the one below, field by field', () => {
    const { config, sources, seedWasRandom } = resolveConfig(
      inputs({
        files: { 'p.json': profile },
        env: { WGC_TARGET: 'p.json', WGC_RUNS: '7', WGC_TIMEOUT_MS: '3000', WGC_SEED: '99' },
        argv: ['--runs', '9', '--seed=1', '--suite', 'auth', '--suite', 'billing,errors', '--read-only'],
      }),
    );
    expect(config.baseUrl).toBe('https://profile.example'); // profile only
    expect(config.concurrency).toBe(3); // profile beats default
    expect(config.timeoutMs).toBe(3000); // env beats profile
    expect(config.runs).toBe(9); // flag beats env
    expect(config.seed).toBe(1);
    expect(seedWasRandom).toBe(false);
    expect(config.suites).toEqual(['auth', 'billing', 'errors']);
    expect(config.readOnly).toBe(true);
    expect(sources).toMatchObject({ baseUrl: 'profile', timeoutMs: 'env', runs: 'flag', out: 'profile' });
  });
});

describe('validation messages name the field and the expected form', () => {
  test.each([
    [['--runs', 'abc'], '--runs: expected a positive integer, got "abc"'],
    [['--runs', '0'], '--runs: expected a positive integer, got "0"'],
    [['--seed', '4294967296'], '--seed: expected an integer from 0 to 4294967295, got "4294967296"'],
    [['--shard', '3/2'], '--shard: expected i/n with 1 ≤ i ≤ n, e.g. 2/4, got "3/2"'],
    [['--base-url', 'ftp://x'], '--base-url: expected an http(s) URL, got "ftp://x"'],
    [['--base-url', 'https://u:p@h.example'], '--base-url: expected a URL without user:password@ credentials (they would be echoed in reports)'],
    [['--timeout'], '--timeout: expected a value after the option'],
    [['--frobnicate'], '--frobnicate: unknown option; see wgc run --help'],
    [['stray'], 'unexpected argument "stray"; options start with --, see wgc run --help'],
  ])('%j', (argv, message) => {
    expect(problems(inputs({ argv }))).toEqual([message]);
  });

  test('environment errors name the variable; all problems are reported together', () => {
    expect(problems(inputs({ env: { WGC_CONCURRENCY: 'many', WGC_READ_ONLY: 'perhaps' }, argv: ['--max-credits', '-1'] }))).toEqual([
      '--max-credits: expected a non-negative integer, got "-1"',
      'WGC_READ_ONLY: expected true or false, got "perhaps"',
      'WGC_CONCURRENCY: expected a positive integer, got "many"',
    ]);
  });

  test('a control URL needs the token from the environment and a base URL', () => {
    expect(problems(inputs({ argv: ['--control-url', 'http://127.0.0.1:1/c'] }))).toEqual([
      '--control-url: a control URL needs its token in WGC_CONTROL_TOKEN (the token is read from the environment only)',
      '--control-url: a control URL needs --base-url (without a base URL the embedded reference target and its own control are used)',
    ]);
  });
});

describe('profile', () => {
  test('keys are read from the environment variables the profile names', () => {
    const files = { 't.json': JSON.stringify({ baseUrl: 'https://t.example', keys: [{ name: 'admin', env: 'T_ADMIN' }], fixtures: { accountId: 'a1' } }) };
    const { config } = resolveConfig(inputs({ files, argv: ['--target', 't.json'], env: { T_ADMIN: 'wg_secret_value_1' } }));
    expect(config.keys).toEqual([{ name: 'admin', env: 'T_ADMIN', secret: 'wg_secret_value_1' }]);
    expect(config.fixtures).toEqual({ accountId: 'a1' });
  });

  test('inline secrets, secret-looking env values and control tokens are rejected with what to do instead', () => {
    const files = {
      't.json': JSON.stringify({
        controlToken: 'abc',
        keys: [
          { name: 'a', env: 'OK_NAME', secret: 'wg_live_123' },
          { name: 'b', env: 'wg_live_9f8e7d6c5b4a' },
          { name: 'c', env: 'MISSING_VAR' },
        ],
        colour: 'blue',
      }),
    };
    expect(problems(inputs({ files, argv: ['--target', 't.json'] }))).toEqual([
      't.json: controlToken: secrets are never read from the profile; set WGC_CONTROL_TOKEN instead',
      't.json: keys[0].secret: secrets are never read from the profile; put the secret in an environment variable and give its name in keys[0].env',
      't.json: keys[1].env: expected the upper-case NAME of an environment variable holding the secret (e.g. WGC_KEY_ADMIN), got a value that may be the secret itself; never put secrets in the profile',
      expect.stringMatching(/^t\.json: colour: unknown field; a profile may hold baseUrl, controlUrl, .*keys, fixtures, roles$/),
      't.json: key "c": environment variable MISSING_VAR is not set; it must hold the key\'s secret',
    ]);
  });

  test('an unreadable or malformed profile is a clear error', () => {
    expect(problems(inputs({ argv: ['--target', 'nope.json'] }))).toEqual(['--target: cannot read the profile "nope.json" (ENOENT)']);
    expect(problems(inputs({ files: { 'x.json': '{' }, argv: ['--target', 'x.json'] }))[0]).toMatch(/^x\.json: not valid JSON/);
    expect(problems(inputs({ files: { 'x.json': '{"runs":"five"}' }, argv: ['--target', 'x.json'] }))).toEqual(['x.json: runs: expected a positive integer, got "five"']);
  });
});

describe("keys-only runs: the target's role names, the share of the casts, --allow-partial", () => {
  test("roles maps the target's role names to the document's; allowPartial and minCastShare are run settings", () => {
    const files = { 't.json': JSON.stringify({ roles: { 'workspace-owner': 'owner', 'Workspace Admin': 'admin' }, allowPartial: true, minCastShare: '25%' }) };
    const { config, sources } = resolveConfig(inputs({ files, argv: ['--target', 't.json'] }));
    expect(config.roles).toEqual({ 'workspace-owner': 'owner', 'Workspace Admin': 'admin' });
    expect(config).toMatchObject({ allowPartial: true, minCastShare: 0.25 });
    expect(sources).toMatchObject({ allowPartial: 'profile', minCastShare: 'profile' });
    expect(redactConfig(config)).toMatchObject({ roles: { 'workspace-owner': 'owner' }, allowPartial: true, minCastShare: 0.25 });
  });

  test('defaults: half of the cast members, no --allow-partial, no roles; env and flags override', () => {
    const { config } = resolveConfig(inputs());
    expect(config).toMatchObject({ allowPartial: false, minCastShare: 0.5 });
    expect(config.roles).toBeUndefined();
    expect(resolveConfig(inputs({ env: { WGC_ALLOW_PARTIAL: '1', WGC_MIN_CAST_SHARE: '0.9' } })).config).toMatchObject({ allowPartial: true, minCastShare: 0.9 });
    expect(resolveConfig(inputs({ env: { WGC_MIN_CAST_SHARE: '0.9' }, argv: ['--allow-partial', '--min-cast-share', '0%'] })).config).toMatchObject({ allowPartial: true, minCastShare: 0 });
  });

  test("a role that is not the document's, a name with no letter, or two spellings of one name mapped apart are profile errors naming the field", () => {
    const profile = (roles: unknown) => ({ files: { 't.json': JSON.stringify({ roles }) }, argv: ['--target', 't.json'] });
    expect(problems(inputs(profile({ Boss: 'superuser', Lead: 'Owner', ok: 'analyst' })))).toEqual([
      't.json: roles."Boss": expected one of the API document\'s roles (owner, admin, analyst, member), got "superuser"',
      't.json: roles."Lead": expected one of the API document\'s roles (owner, admin, analyst, member), got "Owner"',
    ]);
    expect(problems(inputs(profile({ ' - ': 'owner' })))).toEqual(['t.json: roles." - ": a role name needs a letter or digit']);
    expect(problems(inputs(profile({ 'Team Lead': 'owner', team_lead: 'admin' })))).toEqual([
      't.json: roles."team_lead": names the same role as "Team Lead" (case, spaces, "-" and "_" aside) but maps it to another role',
    ]);
    expect(problems(inputs(profile(['owner'])))).toEqual(['t.json: roles: expected { "the target\'s role name": "owner" | "admin" | "analyst" | "member" }']);
  });

  test.each([
    [['--min-cast-share', '1.5'], '--min-cast-share: expected a share from 0 to 1 or a percentage, such as 0.5 or 50%, got "1.5"'],
    [['--min-cast-share', '120%'], '--min-cast-share: expected a share from 0 to 1 or a percentage, such as 0.5 or 50%, got "120%"'],
    [['--allow-partial=maybe'], '--allow-partial: expected true or false, got "maybe"'],
  ])('%j', (argv, message) => {
    expect(problems(inputs({ argv }))).toEqual([message]);
  });
});

describe('redaction and reference', () => {
  test('redactConfig drops key secrets and masks the control token', () => {
    const files = { 't.json': JSON.stringify({ baseUrl: 'https://t.example', controlUrl: 'https://t.example/c', keys: [{ name: 'admin', env: 'T_ADMIN' }] }) };
    const { config } = resolveConfig(inputs({ files, argv: ['--target', 't.json'], env: { T_ADMIN: 'wg_secret_value_1', WGC_CONTROL_TOKEN: 'ctl_token_value_2' } }));
    const text = JSON.stringify(redactConfig(config));
    expect(text).not.toContain('wg_secret_value_1');
    expect(text).not.toContain('ctl_token_value_2');
    expect(redactConfig(config)).toMatchObject({ controlToken: '[REDACTED:control_token]', keys: [{ name: 'admin', env: 'T_ADMIN' }] });
  });

  test('an invalid secret in the environment is never quoted back', () => {
    // (WGC_CONTROL_TOKEN is only rejected when empty-ish; check that no message ever carries a token value.)
    const msgs = problems(inputs({ env: { WGC_CONTROL_TOKEN: 'ctl_zzz_secret', WGC_RUNS: 'x' } }));
    expect(msgs.join('\n')).not.toContain('ctl_zzz_secret');
  });

  test('the reference table covers every field with flag or env, and every schema field', () => {
    const rows = configReference();
    for (const f of FIELDS) expect(rows.find((r) => r.field === f.field)).toBeDefined();
    expect(rows.map((r) => r.field)).toEqual(expect.arrayContaining(['keys', 'fixtures', 'roles', 'controlToken', 'seed', 'maxCredits', 'minCastShare', 'allowPartial']));
    expect(rows.find((r) => r.field === 'controlToken')).toMatchObject({ flag: '', env: 'WGC_CONTROL_TOKEN' });
  });
});
