/**
 * The commands of the README and the user guide work as documented.
 *
 * - Every `wgc` command shown anywhere (```sh, ```shell, ```bash and ```yaml blocks, and the
 *   CI examples) names a real subcommand with options its usage lists; `wgc run` options
 *   parse against the configuration reference, suites exist, profiles parse.
 * - Every ```sh block is run, in order, per file, in a scratch folder (so relative paths land
 *   there), with `wgc` bound to this checkout's bin/wgc.mjs; each command must exit with the
 *   code its `# exit N` comment states (0 without one).
 * - Relative links of those pages point at files (and headings) that exist.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { discoverSuites } from '../../src/engine/discover.ts';
import { wgcInvocations, type DocCommand } from '../../src/docs/commands.ts';
import { headingSlug } from '../../src/report/seed-link.ts';
import { documentedCommands, guideFiles, helpOf, invocationProblems, read, ROOT } from './helpers.ts';

const commands = documentedCommands();
let suites: string[];
const helpCache = new Map<string, Promise<{ code: number; text: string }>>();
const cachedHelp = (sub: string) => {
  if (!helpCache.has(sub)) helpCache.set(sub, helpOf(sub));
  return helpCache.get(sub)!;
};

beforeAll(async () => {
  suites = (await discoverSuites(join(ROOT, 'suites'))).map((s) => s.name);
});

describe('documented wgc commands (static)', () => {
  test('the guide documents the commands the brief promises', () => {
    const subs = new Set(commands.flatMap(wgcInvocations).map((i) => i.args[0]));
    for (const sub of ['run', 'diff', 'merge', 'verify-bundle', 'clauses', 'docs']) expect(subs, sub).toContain(sub);
    expect(commands.filter((c) => c.runnable).length).toBeGreaterThan(0);
  });

  test('every wgc command names a real subcommand and real options', async () => {
    const problems: string[] = [];
    for (const inv of commands.flatMap(wgcInvocations)) problems.push(...(await invocationProblems(inv, suites, cachedHelp)));
    expect(problems).toEqual([]);
  });

  test('the checker catches drift: unknown subcommands, options, suites and malformed values', async () => {
    const check = (args: string[]) => invocationProblems({ where: 'x', program: 'wgc', args }, suites, cachedHelp);
    expect(await check(['frobnicate'])).toEqual(['x: wgc frobnicate is not a command of this build']);
    expect((await check(['run', '--max-credit', '5'])).join('\n')).toMatch(/--max-credit: unknown option/);
    expect((await check(['run', '--suite', 'nope'])).join('\n')).toMatch(/--suite nope: no such suite/);
    expect((await check(['run', '--shard', '3/2'])).join('\n')).toMatch(/--shard: expected i\/n/);
    expect((await check(['diff', '--colour', 'a', 'b'])).join('\n')).toMatch(/wgc diff has no option --colour/);
    expect((await check(['diff', 'a.json'])).join('\n')).toMatch(/does not take 1 positional/);
    expect(await check(['diff', '--format', 'markdown', 'a.json', 'b.json'])).toEqual([]);
  });

  test('files the commands name exist in this repository', () => {
    const missing = commands.flatMap((c) =>
      c.command
        .split(/\s+/)
        .filter((w) => /^(examples|docs|specs|src|suites|bin)\/[\w./-]+$/.test(w))
        .filter((w) => !existsSync(join(ROOT, w)))
        .map((w) => `${c.where}: ${w}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('relative links of the guide', () => {
  const anchorsOf = (file: string): Set<string> =>
    new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((l) => (/^#{1,6}\s+(.*?)\s*$/.exec(l) ? [headingSlug(/^#{1,6}\s+(.*?)\s*$/.exec(l)![1]!)] : [])),
    );
  test.each(guideFiles())('%s', (file) => {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/.test(href)) continue;
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? join(ROOT, file) : normalize(join(ROOT, dirname(file), path));
      if (!existsSync(target)) broken.push(href);
      else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${href} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });
});

/** Runs one documented command in `cwd` with `wgc` bound to this checkout. */
function runDocumented(cmd: DocCommand, cwd: string): Promise<{ code: number | null; output: string }> {
  const wgc = `node "${join(ROOT, 'bin/wgc.mjs')}"`;
  const script = cmd.command.replace(/(^|&&|\|\||;|\|)(\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*)(npx --no-install wgc|npx wgc|node bin\/wgc\.mjs|wgc)(?=\s|$)/g, `$1$2${wgc}`);
  // The run must not pick up the developer's own WGC_* settings.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WGC_')));
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('runnable (```sh) blocks', () => {
  const byFile = new Map<string, DocCommand[]>();
  for (const c of commands.filter((x) => x.runnable)) {
    const file = c.where.split(':')[0]!;
    byFile.set(file, [...(byFile.get(file) ?? []), c]);
  }
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('stay inside their scratch folder', () => {
    const escaping = [...byFile.values()].flat().filter((c) => /(^|\s)(\/|\.\.\/|~)/.test(c.command) || /\bnpm (ci|install|test)\b/.test(c.command));
    expect(escaping.map((c) => `${c.where}: ${c.command}`)).toEqual([]);
  });

  test.each([...byFile.keys()])(
    '%s: every command exits as documented',
    async (file) => {
      const cwd = await mkdtemp(join(tmpdir(), 'wgc-doc-'));
      dirs.push(cwd);
      for (const cmd of byFile.get(file)!) {
        const { code, output } = await runDocumented(cmd, cwd);
        expect(code, `${cmd.where}: ${cmd.command}\n${output.slice(-3000)}`).toBe(cmd.exit ?? 0);
      }
      if (file === 'README.md') {
        // The tour's outputs are what the README says they are.
        const clauses = JSON.parse(readFileSync(join(cwd, 'clauses.json'), 'utf8')) as unknown[];
        expect(clauses.length).toBeGreaterThan(100);
        expect(existsSync(join(cwd, 'reports/tour/certification/MANIFEST.sha256'))).toBe(true);
      }
    },
    300_000,
  );
});
