/**
 * The CI examples and example profiles are complete and cannot drift: the workflows shard,
 * merge, budget credits, publish JUnit and the summary, and take every secret from the CI
 * secret store under the names the profile gives; every WGC_* variable they set is one the
 * configuration reference knows; the profiles parse.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { configReference, parseProfile } from '../../src/config/index.ts';
import { ciCommands, wgcInvocations, type WgcInvocation } from '../../src/docs/commands.ts';
import { read, ROOT } from './helpers.ts';

type Obj = Record<string, unknown>;
/** A step running `wgc run` / `wgc merge`, however the program is spelled (the installed package, or a clone). */
const RUNS_WGC = /(wg-conformance|wgc\.mjs) run\b/;
const MERGES = /(wg-conformance|wgc\.mjs) merge\b/;
const CONFIG_ENV = new Set(configReference().flatMap((r) => (r.env ? [r.env] : [])));

/** The key environment variables a profile names. */
function profileKeyEnvs(path: string): string[] {
  const errors: string[] = [];
  const profile = parseProfile(read(path), path, errors);
  expect(errors).toEqual([]);
  return profile.keys.map((k) => k.env);
}

/** The wgc invocations of a CI file, by subcommand. */
function invocations(file: string): Map<string, WgcInvocation[]> {
  const map = new Map<string, WgcInvocation[]>();
  for (const inv of ciCommands(read(file), file).flatMap(wgcInvocations)) map.set(inv.args[0]!, [...(map.get(inv.args[0]!) ?? []), inv]);
  return map;
}

/** The value after a flag in an invocation (`--flag v` or `--flag=v`). */
function flagValue(inv: WgcInvocation, flag: string): string | undefined {
  const i = inv.args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  return inv.args[i]!.includes('=') ? inv.args[i]!.slice(flag.length + 1) : inv.args[i + 1];
}

describe('example profiles', () => {
  test.each(readdirSync(join(ROOT, 'examples/profiles')))('%s parses as a target profile, secrets by env var name only', (file) => {
    const errors: string[] = [];
    const p = parseProfile(read(`examples/profiles/${file}`), file, errors);
    expect(errors).toEqual([]);
    expect(p.settings.baseUrl).toMatch(/^https:\/\//);
    for (const k of p.keys) expect(k.env).toMatch(/^WGC_KEY_[A-Z0-9_]+$/);
  });
});

describe('GitHub Actions example', () => {
  const file = 'examples/github-actions/conformance.yml';
  const wf = parse(read(file)) as Obj;
  const jobs = wf.jobs as Record<string, Obj>;
  const steps = (job: string): (Obj & { runText: string })[] => (jobs[job]!.steps as Obj[]).map((s) => ({ ...s, runText: typeof s.run === 'string' ? s.run : '' }));
  const inv = invocations(file);
  const run = inv.get('run')![0]!;

  test('is triggered, and has a sharded job and a verdict job after it', () => {
    expect(Object.keys(wf.on as Obj)).toEqual(expect.arrayContaining(['push', 'workflow_dispatch']));
    expect(Object.keys(jobs)).toEqual(['shard', 'verdict']);
    expect(jobs.verdict!.needs).toBe('shard');
    expect(String(jobs.verdict!.if)).toMatch(/!cancelled\(\)|always\(\)/);
  });

  test('shards with --shard i/n matching the matrix, one seed for all, a credit budget', () => {
    const shards = ((jobs.shard!.strategy as Obj).matrix as Obj).shard as number[];
    expect(shards).toEqual(Array.from({ length: shards.length }, (_, i) => i + 1));
    const raw = steps('shard').find((s) => RUNS_WGC.test(s.runText))!.runText;
    expect(raw).toContain(`--shard \${{ matrix.shard }}/${shards.length}`);
    expect(raw).toMatch(/--seed \$\{\{ github\.run_number \}\}/);
    expect(Number(flagValue(run, '--max-credits'))).toBeGreaterThan(0);
    expect(flagValue(run, '--target')).toMatch(/staging\.json$/);
  });

  test('keeps each partial and merges them all; the merge is the gate', () => {
    const upload = steps('shard').find((s) => String(s.uses).startsWith('actions/upload-artifact@'))!;
    expect(String((upload.with as Obj).path)).toMatch(/partial-\*\.json$/);
    const download = steps('verdict').find((s) => String(s.uses).startsWith('actions/download-artifact@'))!;
    expect((download.with as Obj)['merge-multiple']).toBe(true);
    const merge = inv.get('merge')![0]!;
    expect(flagValue(merge, '--out')).toBe('reports');
    expect(merge.args.at(-1)).toMatch(/partial-\*\.json$/);
    expect(steps('verdict').find((s) => MERGES.test(s.runText))!.if).toBeUndefined();
  });

  test('publishes the step summary, the reports and JUnit', () => {
    expect(steps('verdict').some((s) => /cat reports\/summary\.md >> "\$GITHUB_STEP_SUMMARY"/.test(s.runText))).toBe(true);
    const uploaded = steps('verdict')
      .filter((s) => String(s.uses).startsWith('actions/upload-artifact@'))
      .map((s) => String((s.with as Obj).path));
    expect(uploaded.join('\n')).toMatch(/reports\/junit\.xml/);
    expect(uploaded.join('\n')).toMatch(/reports\/report\.html/);
  });

  test('takes every key of the profile, and the control token, from the secret store', () => {
    const env = steps('shard').find((s) => RUNS_WGC.test(s.runText))!.env as Record<string, string>;
    for (const name of profileKeyEnvs('examples/profiles/staging.json')) expect(env[name], name).toBe(`\${{ secrets.${name} }}`);
    expect(env.WGC_CONTROL_TOKEN).toBe('${{ secrets.WGC_CONTROL_TOKEN }}');
    for (const [name, value] of Object.entries(env)) {
      expect(CONFIG_ENV.has(name) || name.startsWith('WGC_KEY_'), `${name} is neither a config variable nor a key`).toBe(true);
      expect(value, `${name} must come from secrets or vars, never inline`).toMatch(/^\$\{\{ (secrets|vars)\.[A-Z0-9_]+ \}\}$/);
    }
  });
});

describe('GitLab CI example', () => {
  const file = 'examples/gitlab-ci/.gitlab-ci.yml';
  const ci = parse(read(file)) as Record<string, Obj>;
  const inv = invocations(file);

  test('has a parallel shard job and a verdict job that needs it', () => {
    expect(ci.stages).toEqual(['conformance', 'verdict']);
    expect(ci['conformance-shard']!.parallel).toBeGreaterThan(1);
    expect(ci['conformance-verdict']!.needs).toEqual(['conformance-shard']);
    expect(ci['conformance-verdict']!.when).toBe('always');
  });

  test('shards by CI_NODE_INDEX/CI_NODE_TOTAL with one seed and a credit budget, keeping the partials', () => {
    const script = (ci['conformance-shard']!.script as string[]).join('\n');
    expect(script).toContain('--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"');
    expect(script).toContain('--seed "$CI_PIPELINE_IID"');
    expect(Number(flagValue(inv.get('run')![0]!, '--max-credits'))).toBeGreaterThan(0);
    expect(((ci['conformance-shard']!.artifacts as Obj).paths as string[]).join()).toMatch(/partial-\*\.json/);
    expect((ci['conformance-shard']!.allow_failure as Obj).exit_codes).toEqual([1]);
  });

  test('merges, and publishes JUnit to the merge request', () => {
    expect(inv.get('merge')![0]!.args.at(-1)).toMatch(/partial-\*\.json$/);
    const artifacts = ci['conformance-verdict']!.artifacts as Obj;
    expect((artifacts.reports as Obj).junit).toBe('reports/junit.xml');
    expect(artifacts.when).toBe('always');
  });

  test('holds no secret: keys and the control token come from CI/CD variables', () => {
    const variables = { ...(ci.variables as Obj), ...((ci['.wgc'] as Obj).variables as Obj) };
    for (const name of Object.keys(variables)) expect(name).not.toMatch(/^WGC_(KEY_|CONTROL_TOKEN)/);
    for (const name of profileKeyEnvs('examples/profiles/staging.json')) expect(read(file)).toContain(name);
  });
});
