/**
 * docs/writing-checks.md "Adding a check for a new clause, step by step", followed: in a copy of
 * the repository, a scratch clause (ME-099) goes through every step the guide lists, in its
 * order, and at the end the new check passes on the reference, the new fault is caught by the
 * self-test, and the generated docs and the catalog snapshot are current. The guide's list of
 * steps must be exactly the steps taken here (by the file or folder each names), so the guide
 * cannot drift from what adding a check really takes.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'reports', '.git', '.stryker-tmp', 'scratch', 'allure-results', '.wgc-tmp']);

const CLAUSE = 'ME-099';
const CHECK = 'auth/scratch-role-is-a-workspace-role';
const FAULT = 'scratch-me-role-unknown';

/** What the walkthrough says each step touches, in order (the first backticked path of each item). */
function guideSteps(): string[] {
  const text = readFileSync(join(ROOT, 'docs/writing-checks.md'), 'utf8');
  const section = text.split('## Adding a check for a new clause, step by step')[1]!.split('\n## ')[0]!;
  return [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]!);
}

/**
 * Time for one test here: each runs one or two commands in the copy (sh: up to 240 s each), a
 * self-test of the copy and a vitest run among them. Beside a looping benchmark the self-test's
 * test took over a minute, vitest's default limit.
 */
const TEST_MS = 2 * 240_000 + 30_000;

let dir: string;
function sh(cmd: string, args: string[], timeout = 240_000) {
  const r = spawnSync(cmd, args, {
    cwd: dir,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, WGC_BASE_URL: '', WGC_TARGET: '', CI: process.env.CI ?? '', WGC_DOCUMENTS_DIR: join(ROOT, '..', 'shared') },
  });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}
function edit(file: string, anchor: string, insert: string, where: 'before' | 'after' = 'after'): void {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(anchor);
  if (at < 0) throw new Error(`walkthrough: ${file} no longer contains ${JSON.stringify(anchor)}; update the scratch steps`);
  const pos = where === 'after' ? at + anchor.length : at;
  writeFileSync(path, text.slice(0, pos) + insert + text.slice(pos));
}

function replace(file: string, from: string, to: string): void {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`walkthrough: ${file} no longer contains ${JSON.stringify(from)}; update the scratch steps`);
  writeFileSync(path, text.replace(from, to));
}

/** The steps taken here, by what each touches (compared with the guide's list). */
const STEPS: [string, () => void][] = [
  [
    'specs/clauses.yaml',
    () =>
      edit(
        'specs/clauses.yaml',
        '  - id: ME-005',
        `  - id: ${CLAUSE}\n    level: MUST\n    ref: "2.4 table"\n    statement: Scratch clause of the writing-checks walkthrough; GET /me names one of the four workspace roles.\n    observe: { keys: "any valid key", control: false, ledger: false, mutation: false }\n`,
        'before',
      ),
  ],
  [
    'specs/rules.yaml',
    () =>
      replace(
        'specs/rules.yaml',
        'summary: The holder\'s workspace role, a string.\n    governs: ["GET /me"]\n    clauses: [ME-001, ME-005]',
        `summary: The holder's workspace role, a string.\n    governs: ["GET /me"]\n    clauses: [ME-001, ME-005, ${CLAUSE}]`,
      ),
  ],
  ['test/catalog', () => expect(sh('npx', ['vitest', 'run', '--config', 'test/vitest.config.ts', 'test/catalog', '-u']).code).toBe(0)],
  [
    'suites/<suite>/<topic>.ts',
    () =>
      writeFileSync(
        join(dir, 'suites/auth/scratch.ts'),
        `import { ROLES, type CheckDef } from '../../src/engine/check.ts';
import { expectJson } from '../../src/engine/expect.ts';
import { Finding } from '../../src/engine/finding.ts';

export const scratchRole: CheckDef = {
  id: '${CHECK}',
  title: 'GET /me names one of the four workspace roles',
  clauses: ['${CLAUSE}'],
  async run(ctx) {
    const ex = await ctx.api.send({ method: 'GET', path: '/me', key: ctx.key('owner') });
    const body = expectJson('${CLAUSE}', ex) as { role?: unknown };
    if (!ROLES.includes(body.role as never)) throw new Finding({ clause: '${CLAUSE}', message: \`role \${JSON.stringify(body.role)} is not a workspace role\`, exchange: ex });
  },
};
`,
      ),
  ],
  [
    'suites/<suite>/index.ts',
    () => {
      edit('suites/auth/index.ts', '\nimport ', `\nimport { scratchRole } from './scratch.ts';`, 'before');
      edit('suites/auth/index.ts', 'checks: [', 'scratchRole, ');
    },
  ],
  ['src/reference/', () => undefined /* the reference already names the member's role */],
  [
    'src/reference/faults.ts',
    () => {
      edit('src/reference/faults.ts', 'export const FAULTS: readonly FaultDef[] = [', `\n  f('${FAULT}', ['${CLAUSE}'], 'GET /me names a role that is not a workspace role.'),`);
      replace('src/reference/introspection.ts', 'role: p.member.role,', `role: faults.has('${FAULT}') ? 'superuser' : p.member.role,`);
    },
  ],
  [
    'test/reference/probes.ts',
    () =>
      edit(
        'test/reference/probes.ts',
        'export const PROBES: Record<string, Probe> = {',
        `\n  '${CLAUSE}': async (_r, ws) => expect(['owner', 'admin', 'analyst', 'member']).toContain((await ws.api('GET', '/me')).json.role),`,
      ),
  ],
  ['specs/credit-plan.json', () => expect(sh('npm', ['run', '--silent', 'credit-plan']).code).toBe(0)],
  ['docs/', () => expect(sh(process.execPath, ['bin/wgc.mjs', 'docs']).code).toBe(0)],
  ['reports/', () => undefined /* checked by the tests below */],
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wgc-walkthrough-'));
  cpSync(ROOT, dir, { recursive: true, filter: (p) => !SKIP.has(relative(ROOT, p).split(/[\\/]/)[0] ?? '') });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [, step] of STEPS) step();
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('docs/writing-checks.md, adding a check for a new clause', () => {
  test('lists exactly the steps this test takes, in order', () => {
    expect(guideSteps()).toEqual(STEPS.map(([what]) => what));
  });

  test(
    'the new check passes on the reference: the clause is verified',
    () => {
      const r = sh(process.execPath, ['bin/wgc.mjs', 'run', '--check', CHECK, '--seed', '1', '--out', 'reports/walk', '--quiet']);
      expect(r.code, r.out).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'reports/walk/report.json'), 'utf8')) as { clauses: { id: string; outcome: string }[] };
      expect(report.clauses.find((c) => c.id === CLAUSE)?.outcome).toBe('passed');
    },
    TEST_MS,
  );

  test(
    'the new fault is caught by the self-test, and its probe passes clean and fails under it',
    () => {
      const r = sh(process.execPath, ['bin/wgc.mjs', 'selftest', '--fault', FAULT, '--out', 'reports/st', '--concurrency', '1']);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/kill rate: 100\.0% \(1\/1\)/);
      const probes = sh('npx', ['vitest', 'run', '--config', 'test/vitest.config.ts', 'test/reference/fault-probes.test.ts', '-t', `${CLAUSE} passes|${FAULT}|exist for every clause`]);
      expect(probes.code, probes.out).toBe(0);
      expect(probes.out).toMatch(/3 passed/);
    },
    TEST_MS,
  );

  test(
    'the generated docs and the catalog snapshot are current, and name the new clause, check and fault',
    () => {
      expect(sh(process.execPath, ['bin/wgc.mjs', 'docs', '--check']).code).toBe(0);
      const clauses = readFileSync(join(dir, 'docs/clauses.md'), 'utf8');
      expect(clauses).toContain(`### ${CLAUSE}`);
      expect(clauses).toMatch(new RegExp(`${CHECK}\` \\(\\[suites/auth/scratch\\.ts:\\d+\\]`));
      expect(clauses).toContain(`\`${FAULT}\``);
      expect(existsSync(join(dir, 'test/catalog/__snapshots__'))).toBe(true);
      const plan = JSON.parse(readFileSync(join(dir, 'specs/credit-plan.json'), 'utf8')) as { checks: Record<string, unknown> };
      expect(plan.checks[CHECK]).toEqual({ fixed: 0, perRun: 0 });
    },
    TEST_MS,
  );
});

// Keep the scratch names out of the real tree (a leftover would be a real clause).
test('the scratch clause, check and fault exist only in the copy', () => {
  expect(readFileSync(join(ROOT, 'specs/clauses.yaml'), 'utf8')).not.toContain(CLAUSE);
  expect(existsSync(join(ROOT, 'suites/auth/scratch.ts'))).toBe(false);
});
