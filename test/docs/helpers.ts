/**
 * Shared by the docs tests: the documentation files, their commands, and a static check of
 * a `wgc` invocation against the real subcommands, their usage texts and the config table.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { HELP, main } from '../../src/cli/main.ts';
import { configReference, parseFlags, parseProfile } from '../../src/config/index.ts';
import { ciCommands, markdownCommands, type DocCommand, type WgcInvocation } from '../../src/docs/commands.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The user guide: the README and every page under docs/guide/. */
export function guideFiles(): string[] {
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs/guide'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/guide/${f}`),
  ];
}

/** The CI examples. */
export const CI_EXAMPLES = ['examples/github-actions/conformance.yml', 'examples/gitlab-ci/.gitlab-ci.yml'] as const;

export const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every documented command: guide code blocks, then the CI examples. */
export function documentedCommands(): DocCommand[] {
  return [...guideFiles().flatMap((f) => markdownCommands(read(f), f)), ...CI_EXAMPLES.flatMap((f) => ciCommands(read(f), f))];
}

/** What `wgc <sub> --help` printed and returned (dispatched in-process through main). */
export async function helpOf(sub: string): Promise<{ code: number; text: string }> {
  const chunks: string[] = [];
  const io = { out: (t: string) => void chunks.push(t), err: (t: string) => void chunks.push(t) };
  // Commands in their own modules write to the process streams; collect those too.
  const spyOut = vi.spyOn(process.stdout, 'write').mockImplementation((t: string | Uint8Array) => (chunks.push(String(t)), true));
  const spyErr = vi.spyOn(process.stderr, 'write').mockImplementation((t: string | Uint8Array) => (chunks.push(String(t)), true));
  try {
    const code = await main([sub, '--help'], io);
    return { code, text: chunks.join('') };
  } finally {
    spyOut.mockRestore();
    spyErr.mockRestore();
  }
}

const RUN_FLAGS = new Set(configReference().flatMap((r) => (r.flag ? [r.flag] : [])));

/** Positional arguments each report command takes (from their usage lines). */
const POSITIONALS: Record<string, (n: number) => boolean> = {
  diff: (n) => n === 2,
  'verify-bundle': (n) => n === 1,
  merge: (n) => n >= 1,
  clauses: (n) => n === 0,
  docs: (n) => n === 0,
};

/**
 * Problems of one invocation (empty when fine): an unknown subcommand, an option its usage
 * does not list, a `wgc run` option the config table does not know or whose value is
 * malformed, an unknown suite, a profile that is not in examples/profiles or does not parse.
 */
export async function invocationProblems(inv: WgcInvocation, suites: readonly string[], help: (sub: string) => Promise<{ code: number; text: string }>): Promise<string[]> {
  const [sub, ...args] = inv.args;
  if (sub === undefined) return [`${inv.where}: "${inv.program}" without a subcommand`];
  if (sub === '--help' || sub === '-h' || sub === 'help') return [];
  const usage = await help(sub);
  // `wgc clauses --help` is a usage error (it prints its usage line all the same), so a command
  // also counts as real when `wgc help` lists it.
  const listed = new RegExp(`^  ${sub}\\b`, 'm').test(HELP);
  if (usage.code !== 0 && !(listed && /usage: wgc /.test(usage.text))) return [`${inv.where}: wgc ${sub} is not a command of this build`];
  const problems: string[] = [];
  if (args.includes('--help') || args.includes('-h')) return [];
  if (sub === 'run') {
    const errors: string[] = [];
    const values = parseFlags(args, errors);
    problems.push(...errors.map((e) => `${inv.where}: wgc run ${e}`));
    for (const a of args) {
      const flag = a.startsWith('--') ? a.split('=')[0]! : undefined;
      if (flag && !RUN_FLAGS.has(flag)) problems.push(`${inv.where}: ${flag} is not in the configuration reference`);
    }
    for (const s of (values.suites as string[] | undefined) ?? []) if (!suites.includes(s)) problems.push(`${inv.where}: --suite ${s}: no such suite`);
    if (typeof values.profile === 'string') {
      const profile = join('examples/profiles', basename(values.profile));
      if (!existsSync(join(ROOT, profile))) problems.push(`${inv.where}: --target ${values.profile}: no ${profile} to copy it from`);
      else {
        const errs: string[] = [];
        parseProfile(read(profile), profile, errs);
        problems.push(...errs.map((e) => `${inv.where}: ${e}`));
      }
    }
    return problems;
  }
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) {
      positional.push(a);
      continue;
    }
    const flag = a.split('=')[0]!;
    const esc = flag.replace(/[-]/g, '\\-');
    if (!new RegExp(`(^|[\\s\\[])${esc}\\b`).test(usage.text)) problems.push(`${inv.where}: wgc ${sub} has no option ${flag}`);
    // An option the usage line writes as "--opt VALUE" takes the next word.
    else if (!a.includes('=') && new RegExp(`${esc} (?![\\[-])\\S`).test(usage.text.split('\n')[0]!)) i++;
  }
  const ok = POSITIONALS[sub];
  if (ok && !ok(positional.length)) problems.push(`${inv.where}: wgc ${sub} does not take ${positional.length} positional argument(s) (usage: ${usage.text.split('\n')[0]})`);
  return problems;
}
