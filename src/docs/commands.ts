/**
 * The shell commands the documentation shows, extracted so tests can check and run them:
 *
 * - Markdown code blocks: ```sh blocks are **runnable** (a test runs them in a scratch folder,
 *   in order, and checks the exit code a trailing `# exit N` comment states, 0 otherwise);
 *   ```shell and ```bash blocks are shown only (they need a staging deployment, secrets or a
 *   long run) and are checked statically; ```yaml blocks are CI snippets, checked like the
 *   CI examples.
 * - CI files: every `run:` (GitHub Actions) and `script:`/`before_script:`/`after_script:`
 *   (GitLab CI) line.
 *
 * A `wgc` invocation is any of `npx [--no-install] wg-conformance`, `wg-conformance`, `npx wgc`,
 * `npx --no-install wgc`, `node bin/wgc.mjs` or `wgc` at the start of a command.
 */
import { parse } from 'yaml';

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The info string's first word ("sh", "shell", "yaml", ""). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
}

/** One documented shell command. */
export interface DocCommand {
  /** Where it is documented, "README.md:42". */
  where: string;
  /** The command without its trailing comment (continuation lines joined). */
  command: string;
  /** The exit code its `# exit N` comment states; undefined when it states none. */
  exit?: number;
  /** From a ```sh block: a test runs it. */
  runnable: boolean;
}

/** A `wgc` invocation found in a command: the arguments after the program. */
export interface WgcInvocation {
  where: string;
  /** How it was spelled ("npx wgc", "node bin/wgc.mjs", "wgc"). */
  program: string;
  args: string[];
}

const RUNNABLE = new Set(['sh']);
const SHOWN = new Set(['shell', 'bash', 'console']);

/** The fenced code blocks of a Markdown text (``` or ~~~ fences, at least three). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[j]!);
    }
    blocks.push({ lang: open[2]!.toLowerCase(), line: i + 1, text: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** Splits a command line from its trailing `# comment` (a `#` after whitespace, outside quotes). */
export function splitComment(line: string): { command: string; comment?: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '\\') i++;
    else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return { command: line.slice(0, i).trimEnd(), comment: line.slice(i + 1).trim() };
  }
  return { command: line.trimEnd() };
}

/** The shell commands of a block of script text (comments and blank lines dropped). */
export function scriptCommands(text: string, where: (offset: number) => string, runnable: boolean): DocCommand[] {
  const out: DocCommand[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let joined = lines[i]!;
    while (/\\\s*$/.test(joined) && i + 1 < lines.length) joined = `${joined.replace(/\\\s*$/, ' ')}${lines[++i]!.trim()}`;
    const { command, comment } = splitComment(joined.trim());
    if (command === '') continue;
    const exit = comment ? /\bexit (\d+)\b/.exec(comment) : null;
    out.push({ where: where(start), command, runnable, ...(exit ? { exit: Number(exit[1]) } : {}) });
  }
  return out;
}

/** The commands of a Markdown file's ```sh, ```shell and ```bash blocks, and of its ```yaml CI snippets. */
export function markdownCommands(markdown: string, file: string): DocCommand[] {
  const out: DocCommand[] = [];
  for (const b of codeBlocks(markdown)) {
    if (RUNNABLE.has(b.lang) || SHOWN.has(b.lang)) {
      const lines =
        b.lang === 'console'
          ? b.text
              .split('\n')
              .filter((l) => l.startsWith('$ '))
              .map((l) => l.slice(2))
              .join('\n')
          : b.text;
      out.push(...scriptCommands(lines, (o) => `${file}:${b.line + 1 + o}`, RUNNABLE.has(b.lang)));
    } else if (b.lang === 'yaml' || b.lang === 'yml') {
      out.push(...ciCommands(b.text, `${file}:${b.line}`));
    }
  }
  return out;
}

const SCRIPT_KEYS = new Set(['run', 'script', 'before_script', 'after_script']);

/** The commands of a CI file (GitHub Actions `run:`, GitLab `script:` and friends). */
export function ciCommands(yamlText: string, file: string): DocCommand[] {
  const out: DocCommand[] = [];
  const visit = (node: unknown, path: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${path}[${i}]`));
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
        const here = path ? `${path}.${k}` : k;
        if (SCRIPT_KEYS.has(k) && (typeof v === 'string' || Array.isArray(v))) {
          const scripts = typeof v === 'string' ? [v] : v.filter((s): s is string => typeof s === 'string');
          scripts.forEach((s, i) => out.push(...scriptCommands(s, () => `${file} (${here}${typeof v === 'string' ? '' : `[${i}]`})`, false)));
        } else visit(v, here);
      }
    }
  };
  visit(parse(yamlText), '');
  return out;
}

/** Replaces CI and shell variables with "1", so flags can be checked without a CI around them. */
export function substituteVariables(command: string): string {
  return command
    .replace(/\$\{\{[^}]*\}\}/g, '1')
    .replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, '1')
    .replace(/\$[A-Za-z_][A-Za-z0-9_]*/g, '1');
}

const OPERATORS = new Set(['|', '||', '&&', ';', '&', '>', '>>', '<', '2>', '2>>', '&>']);

/** Splits a shell command into words and operators (quotes removed; no expansion). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (ch === "'" || ch === '"') {
      const end = command.indexOf(ch, i + 1);
      word += command.slice(i + 1, end < 0 ? undefined : end);
      inWord = true;
      i = end < 0 ? command.length : end;
    } else if (ch === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if ('|&;<>'.includes(ch) || (ch === '2' && !inWord && command[i + 1] === '>')) {
      if (inWord) words.push(word);
      let op = ch;
      while (i + 1 < command.length && OPERATORS.has(op + command[i + 1]!)) op += command[++i];
      words.push(op);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

const PROGRAMS: readonly (readonly string[])[] = [
  ['npx', '--no-install', 'wg-conformance'],
  ['npx', 'wg-conformance'],
  ['wg-conformance'],
  ['npx', '--no-install', 'wgc'],
  ['npx', 'wgc'],
  ['node', 'bin/wgc.mjs'],
  ['wgc'],
];

/** The `wgc` invocations of a command (one per pipeline stage or list element that is one). */
export function wgcInvocations(cmd: DocCommand): WgcInvocation[] {
  const words = shellWords(substituteVariables(cmd.command));
  const found: WgcInvocation[] = [];
  let atStart = true;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (OPERATORS.has(w)) {
      // A redirection's target is a file name, not a command.
      if (['>', '>>', '<', '2>', '2>>', '&>'].includes(w)) i++;
      else atStart = true;
      continue;
    }
    if (!atStart) continue;
    atStart = false;
    // Leading VAR=value assignments belong to the command that follows.
    let j = i;
    while (j < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[j]!)) j++;
    const program = PROGRAMS.find((p) => p.every((part, k) => words[j + k] === part));
    if (!program) continue;
    const args: string[] = [];
    let k = j + program.length;
    for (; k < words.length && !OPERATORS.has(words[k]!); k++) args.push(words[k]!);
    found.push({ where: cmd.where, program: program.join(' '), args });
    i = k - 1;
  }
  return found;
}
