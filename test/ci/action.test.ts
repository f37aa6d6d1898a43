/**
 * The GitHub Action (action.yml, issue 19 item 3), run locally step by step (composite.ts):
 * it installs the package it is given with npm (this checkout, as `npm i` of a path), runs
 * `npx wg-conformance run` in the working folder against a reference target with the key
 * secrets of its `keys` input, appends summary.md to the job summary, hands the reports folder
 * to actions/upload-artifact (emulated: the folder is copied), and fails on the run's exit code.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import type { RunningReference } from '../../src/reference/index.ts';
import { readAction, runAction, type ActionRun, type UsesHandler } from './composite.ts';
import { cleanEnv, ERRORS_SUITE_KEYS, referenceWithKeys, ROOT, runChild } from './helpers.ts';

const action = readAction(join(ROOT, 'action.yml'));

describe('action.yml', () => {
  test('is composite, with the inputs the issue asks for', () => {
    expect(action.runs.using).toBe('composite');
    for (const input of ['profile', 'keys', 'control-token', 'max-credits', 'shard', 'require-coverage', 'package']) expect(Object.keys(action.inputs)).toContain(input);
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['exit-code', 'reports']));
  });

  test('no input is spliced into a script: every run script reads inputs from its env', () => {
    for (const step of action.runs.steps.filter((s) => s.run !== undefined)) {
      expect(step.run, step.name).not.toMatch(/\$\{\{/);
      expect(step.shell, step.name).toBe('bash');
    }
  });

  test('runs the package as `npx --no-install wg-conformance` and uploads with actions/upload-artifact', () => {
    const scripts = action.runs.steps.map((s) => s.run ?? '').join('\n');
    expect(scripts).toMatch(/npx --no-install wg-conformance "\$\{argv\[@\]\}"/);
    expect(scripts).not.toMatch(/npx wg-conformance/);
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.path).toBe('${{ steps.run.outputs.reports }}');
    expect(String(upload?.if)).toContain('always()');
  });
});

describe('the CI examples install the package, as the Action does', () => {
  type Obj = Record<string, unknown>;
  const text = (f: string) => readFileSync(join(ROOT, f), 'utf8');

  test('GitHub Actions (sharded): npm ci of the pinned package, npx --no-install wg-conformance, no checkout of the suite', () => {
    const file = 'examples/github-actions/conformance.yml';
    const wf = parse(text(file)) as { jobs: Record<string, { defaults?: Obj; steps: Obj[] }> };
    for (const [name, job] of Object.entries(wf.jobs)) {
      expect((job.defaults?.run as Obj | undefined)?.['working-directory'], name).toBe('wg-conformance');
      const steps = job.steps;
      expect(
        steps.filter((s) => s.uses === 'actions/checkout@v4').map((s) => s.with),
        name,
      ).toEqual([undefined]);
      expect(steps.find((s) => String(s.uses).startsWith('actions/setup-node@'))?.with, name).toMatchObject({ 'cache-dependency-path': 'wg-conformance/package-lock.json' });
      const runs = steps.map((s) => String(s.run ?? ''));
      expect(runs, name).toContain('npm ci');
      expect(
        runs.filter((r) => /wg-conformance (run|merge)/.test(r)).every((r) => r.startsWith('npx --no-install wg-conformance ')),
        name,
      ).toBe(true);
    }
    expect(text(file)).toContain('npm i -D github:example-org/wg-conformance#v0.1.0');
    expect(text(file)).not.toMatch(/bin\/wgc\.mjs|git clone/);
  });

  test('GitLab CI: the same install (npm ci of the pinned package in wg-conformance/) and the same command', () => {
    const file = 'examples/gitlab-ci/.gitlab-ci.yml';
    const ci = parse(text(file)) as Record<string, Obj>;
    expect(ci['.wgc']!.before_script).toEqual(['cd wg-conformance', 'npm ci']);
    const scripts = ['conformance-shard', 'conformance-verdict'].flatMap((j) => ci[j]!.script as string[]);
    expect(scripts.length).toBe(2);
    for (const line of scripts) expect(line.trim()).toMatch(/^npx --no-install wg-conformance (run|merge) /);
    expect(text(file)).toMatch(/npm i -D git\+https:\/\/github\.com\/example-org\/wg-conformance\.git#v0\.1\.0/);
    expect(text(file)).not.toMatch(/bin\/wgc\.mjs|git clone/);
  });

  test('the Action example passes only inputs action.yml declares, and its keys from the secret store', () => {
    const wf = parse(text('examples/github-actions/conformance-action.yml')) as { jobs: Record<string, { steps: Obj[] }> };
    const step = wf.jobs.conformance!.steps.find((s) => /^example-org\/wg-conformance@/.test(String(s.uses)))!;
    const withs = step.with as Record<string, string>;
    for (const name of Object.keys(withs)) expect(Object.keys(action.inputs), name).toContain(name);
    const lines = withs.keys!.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^([A-Z_][A-Z0-9_]*)=\$\{\{ secrets\.\1 \}\}$/);
  });
});

/** A copy of what actions/upload-artifact would upload, by artifact name (names are unique per run). */
function uploadEmulator(into: string): { handler: UsesHandler; uploaded: Map<string, string[]> } {
  const uploaded = new Map<string, string[]>();
  return {
    uploaded,
    handler: (withs) => {
      const name = withs.name!;
      if (!name) throw new Error('upload-artifact: no name');
      if (uploaded.has(name)) throw new Error(`upload-artifact: an artifact named ${name} was already uploaded in this run`);
      const path = withs.path!;
      const files = existsSync(path) ? (statSync(path).isDirectory() ? readdirSync(path) : [basename(path)]) : [];
      if (files.length === 0 && withs['if-no-files-found'] === 'error') throw new Error(`upload-artifact: no files at ${path}`);
      cpSync(path, join(into, name), { recursive: true });
      uploaded.set(name, files.sort());
    },
  };
}

describe('the action, run locally against a reference target', () => {
  let ref: RunningReference;
  let secrets: string[];
  let work: string;
  /** When the checkout's dist/ was last built (undefined: no dist/). */
  const stampFile = join(ROOT, 'dist', 'build-stamp.json');
  const builtAt = (): number | undefined => (existsSync(stampFile) ? statSync(stampFile).mtimeMs : undefined);
  let stampBefore: number | undefined;
  beforeAll(async () => {
    ({ ref, secrets } = await referenceWithKeys(ERRORS_SUITE_KEYS));
    work = mkdtempSync(join(tmpdir(), 'wgc-action-'));
    stampBefore = builtAt();
  });
  afterAll(async () => {
    await ref?.close();
    rmSync(work, { recursive: true, force: true });
    // Installing the checkout as a folder must not have rebuilt its dist/ (prepare) under the other tests.
    expect(builtAt()).toBe(stampBefore);
  });

  /** A fresh workspace holding a wg-conformance.json for `baseUrl` naming the two keys. */
  function workspace(baseUrl: string): string {
    const ws = mkdtempSync(join(work, 'ws-'));
    writeFileSync(
      join(ws, 'wg-conformance.json'),
      JSON.stringify({
        baseUrl,
        keys: [
          { name: 'owner-all-scopes', env: 'WGC_KEY_OWNER_ALL_SCOPES' },
          { name: 'noread', env: 'CI_NOREAD_KEY' },
        ],
      }),
    );
    return ws;
  }

  async function act(ws: string, inputs: Record<string, string>): Promise<ActionRun & { uploaded: Map<string, string[]>; artifacts: string }> {
    const artifacts = join(ws, '.artifacts');
    mkdirSync(artifacts);
    const upload = uploadEmulator(artifacts);
    const run = await runAction(action, {
      inputs: { 'node-version': '', package: ROOT, ...inputs },
      workspace: ws,
      env: cleanEnv(),
      uses: { 'actions/upload-artifact': upload.handler },
      runNumber: '41',
    });
    return { ...run, uploaded: upload.uploaded, artifacts };
  }

  const keysInput = () => `WGC_KEY_OWNER_ALL_SCOPES=${secrets[0]}\n# the analyst key without graph:read\nCI_NOREAD_KEY=${secrets[1]}\n`;
  const status = (r: ActionRun) => Object.fromEntries(r.steps.map((s) => [s.name, s.status]));

  test('conformant: the summary is appended, the reports are uploaded, the step passes; no secret leaks', async () => {
    const ws = workspace(ref.baseUrl);
    const r = await act(ws, { keys: keysInput(), 'max-credits': '200', 'require-coverage': '5', args: '--suite errors' });
    expect(status(r), r.log).toEqual({
      'Set up Node.js': 'skipped',
      'Install wg-conformance': 'success',
      'Run the conformance suite': 'success',
      'Job summary': 'success',
      'Upload the reports': 'success',
      "Verdict (the run's exit code)": 'success',
    });
    expect(r.failed).toBe(false);
    const reports = join(ws, 'wg-conformance-reports');
    expect(r.outputs).toEqual({ 'exit-code': '0', reports });
    const summary = readFileSync(join(reports, 'summary.md'), 'utf8');
    expect(summary).toMatch(/conformant/i);
    expect(r.summary).toBe(summary);
    expect(r.uploaded.get('wg-conformance-reports')).toEqual(expect.arrayContaining(['junit.xml', 'report.html', 'report.json', 'summary.md']));
    // The run used the discovered profile, the input's seed default (the run number) and budget.
    const report = JSON.parse(readFileSync(join(reports, 'report.json'), 'utf8')) as { meta: { config: Record<string, unknown>; seed: number } };
    expect(report.meta.config).toMatchObject({ profile: 'wg-conformance.json', maxCredits: 200, requireCoverage: 5, suites: ['errors'] });
    expect(report.meta.seed).toBe(41);
    // Secrets: masked before use (the runner hides them after ::add-mask::), never elsewhere.
    for (const s of secrets) {
      expect(r.log).toContain(`::add-mask::${s}`);
      expect(r.log.replaceAll(`::add-mask::${s}`, '')).not.toContain(s);
      expect(r.summary).not.toContain(s);
      for (const f of readdirSync(join(r.artifacts, 'wg-conformance-reports'))) expect(readFileSync(join(r.artifacts, 'wg-conformance-reports', f), 'utf8'), f).not.toContain(s);
    }
    expect(r.githubEnv).toBe('');
  });

  test('not conformant: summary and upload still happen, and the action fails with exit 1', async () => {
    const { ref: faulty, secrets: faultySecrets } = await referenceWithKeys(ERRORS_SUITE_KEYS, ['malformed-json-422-defined']);
    try {
      const ws = workspace(faulty.baseUrl);
      const r = await act(ws, { keys: `WGC_KEY_OWNER_ALL_SCOPES=${faultySecrets[0]}\nCI_NOREAD_KEY=${faultySecrets[1]}`, args: '--suite errors' });
      expect(r.outputs['exit-code'], r.log).toBe('1');
      expect(r.failed).toBe(true);
      expect(status(r)).toMatchObject({ 'Run the conformance suite': 'success', 'Job summary': 'success', 'Upload the reports': 'success', "Verdict (the run's exit code)": 'failure' });
      const verdict = r.steps.at(-1)!;
      expect(verdict.exitCode).toBe(1);
      expect(verdict.stdout).toContain('::error title=wg-conformance::not conformant');
      expect(r.summary).toMatch(/not conformant/i);
      expect(r.uploaded.has('wg-conformance-reports')).toBe(true);
    } finally {
      await faulty.close();
    }
  });

  test('a shard uploads its partial under its own name and says so in the summary', async () => {
    const ws = workspace(ref.baseUrl);
    const r = await act(ws, { keys: keysInput(), shard: '2/2', seed: '5', args: '--suite errors --suite auth', out: 'out' });
    expect(r.outputs['exit-code']).toBe('0');
    expect(r.uploaded.get('wg-conformance-partial-2')).toEqual(['partial-2-of-2.json']);
    expect(r.summary).toBe("wg-conformance shard 2/2: partial written; the merged run's summary has the verdict.\n");
    expect(r.failed).toBe(false);
  });

  test('usage errors fail the action with exit 2 and run nothing: a malformed keys line, a package that is not installed', async () => {
    const ws = workspace(ref.baseUrl);
    const bad = await act(ws, { keys: `WGC_KEY_OWNER_ALL_SCOPES ${secrets[0]}` });
    expect(bad.outputs['exit-code']).toBe('2');
    expect(bad.failed).toBe(true);
    expect(bad.log).toContain('::error title=wg-conformance::keys: every line must be NAME=VALUE');
    expect(bad.log).not.toContain(secrets[0]!);
    expect(existsSync(join(ws, 'wg-conformance-reports', 'report.json'))).toBe(false);

    const empty = mkdtempSync(join(work, 'none-'));
    const none = await runAction(action, { inputs: { 'node-version': '' }, workspace: empty, env: cleanEnv() });
    expect(none.failed).toBe(true);
    expect(Object.fromEntries(none.steps.map((s) => [s.name, s.status]))).toMatchObject({
      'Install wg-conformance': 'failure',
      'Run the conformance suite': 'skipped',
      "Verdict (the run's exit code)": 'failure',
    });
    expect(none.log).toContain('wg-conformance is not installed here');
  });

  test('a project that installed the package itself needs no package input', async () => {
    const ws = workspace(ref.baseUrl);
    // cleanEnv turns npm's lifecycle scripts off: the folder's `prepare` would rebuild dist/.
    const installed = await runChild('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', ROOT], { cwd: ws, env: cleanEnv(), killAfterMs: 120_000 });
    expect(installed.code, installed.stderr).toBe(0);
    const r = await runAction(action, { inputs: { 'node-version': '', keys: keysInput(), args: '--suite errors --read-only' }, workspace: ws, env: cleanEnv() });
    expect(r.steps[1]!.stdout).toMatch(/^wg-conformance \d+\.\d+\.\d+/m);
    expect(r.outputs['exit-code']).toBe('0');
  });
});
