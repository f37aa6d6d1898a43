/**
 * `wgc init`: writes a starter target profile (wg-conformance.json in the working folder, which
 * `wgc run` reads when no --target is given) from flags, and prints which environment variables
 * must hold the secrets. JSON has no comments, so the notes a reader needs go into the profile's
 * "$comment" member (a list of lines, which the profile reader accepts and ignores) and are
 * printed as well. The text written is read back with the run's own profile reader before it is
 * written, so init can never leave a profile the run refuses.
 */
import { writeFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { FIELDS } from '../config/fields.ts';
import { COMMENT_FIELD, parseProfile } from '../config/profile.ts';
import { DEFAULT_PROFILE, parseFlags } from '../config/resolve.ts';
import { KeyRefSchema, type KeyRef } from '../config/schema.ts';
import { insecureReason } from '../http/transport.ts';
import { processIo, type CliIo } from '../report/io.ts';
import { baseUrlProblem } from '../target/preflight.ts';

const PROFILE_FLAGS = FIELDS.filter((f) => f.profile && f.flag).map((f) => f.flag!);

export const INIT_USAGE = `usage: wgc init --base-url URL [--key LABEL[=ENV_VAR]]... [--control-url URL] [run options] [--file PATH] [--force]

Writes a starter target profile: ${DEFAULT_PROFILE} in the working folder (read by \`wgc run\`
when no --target is given), or --file PATH. Secrets never go in it: each key is a label and the
NAME of the environment variable that will hold its secret (default WGC_KEY_<LABEL>), and the
control token is read from WGC_CONTROL_TOKEN. init prints which variables to set.

  --base-url URL          the deployment (origin plus optional path prefix, without /api/v1)
  --key LABEL[=ENV_VAR]   a key the run may use (repeat); see docs/configuration.md for the keys
                          the suites can use without the test-control protocol
  --control-url URL       the test-control protocol, if the deployment offers it
  --file PATH             where to write (default ${DEFAULT_PROFILE})
  --force                 overwrite an existing file

Run options settable in a profile are written too: ${PROFILE_FLAGS.join(', ')}.
`;

interface InitArgs {
  file: string;
  force: boolean;
  keys: KeyRef[];
  /** Profile settings by field name, as the run's flags parse them. */
  settings: Record<string, unknown>;
}

/** The environment variable a key label's secret is read from by default: WGC_KEY_<LABEL>. */
export function defaultKeyEnv(label: string): string {
  return `WGC_KEY_${label.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** Parses init's own flags; the rest go through the run's flag parser. Problems are appended. */
function parseArgs(argv: readonly string[], problems: string[]): InitArgs {
  const args: InitArgs = { file: DEFAULT_PROFILE, force: false, keys: [], settings: {} };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = (): string | undefined => (eq > 0 ? a.slice(eq + 1) : argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--') ? argv[++i] : undefined);
    if (name === '--force') args.force = true;
    else if (name === '--file') {
      const v = value();
      if (!v) problems.push('--file: expected a path after the option');
      else args.file = v;
    } else if (name === '--key') {
      const v = value();
      if (!v) problems.push('--key: expected LABEL or LABEL=ENV_VAR after the option');
      else addKey(v, args.keys, problems);
    } else rest.push(a);
  }
  const flagProblems: string[] = [];
  const flags = parseFlags(rest, flagProblems);
  problems.push(...flagProblems.map((p) => p.replace('; see wgc run --help', '')));
  for (const [field, v] of Object.entries(flags)) {
    const spec = FIELDS.find((f) => f.field === field)!;
    if (!spec.profile) problems.push(`${spec.flag}: not settable in a profile; pass it to wgc run instead`);
    else args.settings[field] = v;
  }
  return args;
}

function addKey(text: string, keys: KeyRef[], problems: string[]): void {
  const eq = text.indexOf('=');
  const name = eq < 0 ? text : text.slice(0, eq);
  const env = eq < 0 ? defaultKeyEnv(name) : text.slice(eq + 1);
  const parsed = KeyRefSchema.safeParse({ name, env });
  if (!parsed.success) {
    const field = parsed.error.issues[0]!.path[0];
    problems.push(
      field === 'name'
        ? `--key ${text}: the label must be letters, digits, "_" or "-"`
        : `--key ${text}: expected the upper-case NAME of the environment variable that will hold the secret (e.g. ${defaultKeyEnv(name)}), never the secret itself`,
    );
  } else if (keys.some((k) => k.name === name)) problems.push(`--key ${text}: the label "${name}" is given twice`);
  else if (keys.some((k) => k.env === parsed.data.env)) problems.push(`--key ${text}: the variable ${parsed.data.env} already holds another key's secret`);
  else keys.push(parsed.data);
}

/** The environment variables the profile needs: [name, what it holds]. */
export function secretsOf(keys: readonly KeyRef[], controlUrl: unknown): [string, string][] {
  const out: [string, string][] = keys.map((k) => [k.env, `the secret of key "${k.name}"`]);
  if (controlUrl !== undefined) out.push(['WGC_CONTROL_TOKEN', 'the bearer token of the test-control protocol']);
  return out;
}

/** The notes written into the profile's "$comment" (and printed). */
function notes(secrets: readonly [string, string][], runCommand: string): string[] {
  return [
    'Target profile of wg-conformance, written by `wg-conformance init`. JSON has no comments: this "$comment" is for you, the run ignores it.',
    `Read by: ${runCommand}. Every field is described in docs/configuration.md of wg-conformance.`,
    'Secrets never go in this file. Each key names the environment variable that holds its secret; in CI map the secret store to these names.',
    secrets.length > 0
      ? `Set before a run: ${secrets.map(([name]) => name).join(', ')}.`
      : 'No key is named: without the test-control protocol most checks will not be observable. Add keys as { "name": label, "env": ENV_VAR_NAME }.',
    'Without the test-control protocol each key\'s role from GET /me is read as the API document\'s owner, admin, analyst or member (case, spaces, "-" and "_" aside: "Owner" is owner). If the target names its roles otherwise, map them here: "roles": { "workspace-owner": "owner", "Workspace Admin": "admin" }.',
    'A run whose keys fill less of the cast members of the selected suites than --min-cast-share (default half) stops before any check (exit 2) and says which keys are missing; --allow-partial (or "allowPartial": true) runs anyway.',
  ];
}

/** Runs `wgc init`; returns the exit code (0 written, 2 usage error or the file exists). */
export async function initCommand(argv: string[], io: CliIo = processIo, cwd: string = process.cwd()): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(INIT_USAGE);
    return 0;
  }
  const problems: string[] = [];
  const args = parseArgs(argv, problems);
  const baseUrl = args.settings.baseUrl as string | undefined;
  if (baseUrl === undefined) problems.push('--base-url: required (the deployment to check, e.g. https://staging.example.com)');
  for (const [flag, url] of [
    ['--base-url', baseUrl],
    ['--control-url', args.settings.controlUrl as string | undefined],
  ] as const) {
    // The run refuses these; a profile it would refuse is no starter.
    const why = url !== undefined ? insecureReason(new URL(url), args.settings.allowInsecureHttp === true) : undefined;
    if (why) problems.push(`${flag}: ${why}`);
  }
  const prefixed = baseUrl !== undefined ? baseUrlProblem(baseUrl) : undefined;
  if (prefixed) problems.push(`--base-url: ${prefixed}`);
  if (problems.length > 0) {
    io.err(`${problems.map((p) => `wgc init: ${p}`).join('\n')}\nsee wgc init --help\n`);
    return 2;
  }

  const path = resolve(cwd, args.file);
  const discovered = path === resolve(cwd, DEFAULT_PROFILE);
  const shown = isAbsolute(args.file) ? args.file : relative(cwd, path) || args.file;
  const runCommand = discovered ? 'wg-conformance run' : `wg-conformance run --target ${shown}`;
  const secrets = secretsOf(args.keys, args.settings.controlUrl);
  const controlUrl = args.settings.controlUrl;
  // baseUrl and controlUrl first, the keys last: the order a reader looks for them.
  const profile: Record<string, unknown> = { [COMMENT_FIELD]: notes(secrets, discovered ? `${runCommand} (in this folder, without --target)` : runCommand), ...args.settings, keys: args.keys };
  const ordered: Record<string, unknown> = { [COMMENT_FIELD]: profile[COMMENT_FIELD], baseUrl, ...(controlUrl !== undefined ? { controlUrl } : {}), ...profile };
  // One line per key, as in the documented examples.
  const text = `${JSON.stringify(ordered, null, 2).replace(/\{\n\s+"name": ("[^"\n]*"),\n\s+"env": ("[^"\n]*")\n\s+\}/g, '{ "name": $1, "env": $2 }')}\n`;
  // What init writes must be what the run reads: a difference is a bug here, never written.
  const readBack: string[] = [];
  const parsed = parseProfile(text, shown, readBack);
  if (readBack.length > 0 || JSON.stringify(parsed.keys) !== JSON.stringify(args.keys)) {
    throw new Error(`the profile init built does not read back as written: ${readBack.join('; ')}`);
  }

  try {
    writeFileSync(path, text, { flag: args.force ? 'w' : 'wx', mode: 0o644 });
  } catch (e) {
    const code = (e as { code?: string }).code;
    io.err(
      code === 'EEXIST' ? `wgc init: ${shown} already exists; pass --force to overwrite it, or --file PATH to write another\n` : `wgc init: cannot write ${shown} (${code ?? (e as Error).message})\n`,
    );
    return 2;
  }

  const width = Math.max(0, ...secrets.map(([name]) => name.length));
  io.out(
    [
      `wrote ${shown}: target profile for ${baseUrl}${controlUrl !== undefined ? ' (with the test-control protocol)' : ''}, ${args.keys.length} key${args.keys.length === 1 ? '' : 's'}`,
      ...(secrets.length > 0
        ? ['', 'Set these environment variables before a run (in CI, from the secret store; never in the profile):', ...secrets.map(([name, what]) => `  ${name.padEnd(width)}  ${what}`)]
        : ['', 'No key named: without the test-control protocol most checks will not be observable (add --key LABEL; docs/configuration.md lists the keys the suites use).']),
      '',
      `Then run: ${runCommand}`,
      `(The notes above are also in the profile's "${COMMENT_FIELD}", which the run ignores.)`,
      '',
    ].join('\n'),
  );
  return 0;
}
