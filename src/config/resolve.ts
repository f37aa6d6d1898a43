/**
 * Resolves the configuration once: defaults < profile file < environment < flags. Inputs are
 * passed in (argv, env, a file reader) because only src/cli may touch process.env and argv.
 * Every problem is collected and reported together, each naming its source and the expected
 * form; nothing is half-resolved.
 */
import { randomInt } from 'node:crypto';
import { FIELDS, type FieldSpec } from './fields.ts';
import { coerce } from './coerce.ts';
import { parseProfile, type ProfileValues } from './profile.ts';
import { ConfigSchema, DEFAULTS, type Config } from './schema.ts';

export interface ConfigInputs {
  /** Flags of `wgc run` (without the subcommand). */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Reads a file as UTF-8 text (throws when it cannot). */
  readFile: (path: string) => string;
  /** Draws the seed when none is given; default a random 32-bit integer. */
  randomSeed?: () => number;
  /**
   * Read DEFAULT_PROFILE (through readFile, so relative to the working folder) when neither
   * --target nor WGC_TARGET names a profile; default true. A command defined by its arguments
   * alone (the benchmark) turns it off.
   */
  discoverProfile?: boolean;
}

/** The profile a run reads from the working folder when none is named. */
export const DEFAULT_PROFILE = 'wg-conformance.json';

/** 'discovered': the profile path is DEFAULT_PROFILE, found in the working folder. */
export type ConfigSource = 'default' | 'profile' | 'env' | 'flag' | 'discovered';

export interface ResolvedConfig {
  config: Config;
  /** Where each set field came from. */
  sources: Record<string, ConfigSource>;
  /** The seed was drawn at random (print it so the run can be replayed). */
  seedWasRandom: boolean;
  /** The profile file read, if any, and what named it (print it: a profile found by itself must not go unnoticed). */
  profileUsed?: { path: string; via: '--target' | 'WGC_TARGET' | 'working folder' };
}

/** The line a run prints about its profile ("profile wg-conformance.json (found in the working folder; ...)"), if it read one. */
export function describeProfile(resolved: Pick<ResolvedConfig, 'profileUsed'>): string | undefined {
  const used = resolved.profileUsed;
  if (!used) return undefined;
  return used.via === 'working folder' ? `profile ${used.path} (found in the working folder; --target FILE or WGC_TARGET names another)` : `profile ${used.path} (from ${used.via})`;
}

/** The configuration is unusable; `problems` lists every reason (one sentence each). */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

const BY_FLAG = new Map(FIELDS.filter((f) => f.flag).map((f) => [f.flag!, f]));

/** Parses `wgc run` flags (`--flag value`, `--flag=value`, bare boolean flags, repeated --suite). */
export function parseFlags(argv: readonly string[], errors: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      errors.push(`unexpected argument "${arg}"; options start with --, see wgc run --help`);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const spec = BY_FLAG.get(flag);
    if (!spec) {
      errors.push(`${flag}: unknown option; see wgc run --help`);
      continue;
    }
    let raw: string | boolean;
    if (eq >= 0) raw = arg.slice(eq + 1);
    else if (spec.kind === 'boolean') raw = true;
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) raw = argv[++i]!;
    else {
      errors.push(`${flag}: expected a value after the option`);
      continue;
    }
    const c = coerce(spec.kind, raw);
    if (!c.ok) errors.push(`${flag}: ${c.problem}`);
    else if (spec.kind === 'list') values[spec.field] = [...((values[spec.field] as string[]) ?? []), ...(c.value as string[])];
    else values[spec.field] = c.value;
  }
  return values;
}

function fromEnv(env: ConfigInputs['env'], errors: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const spec of FIELDS) {
    const raw = spec.env ? env[spec.env] : undefined;
    if (raw === undefined || raw === '') continue;
    const c = coerce(spec.kind, raw);
    // Never quote a secret's value back, even in an error.
    if (!c.ok) errors.push(`${spec.env}: ${spec.secret ? 'expected a non-empty value' : c.problem}`);
    else values[spec.field] = c.value;
  }
  return values;
}

function readProfile(path: string, inputs: ConfigInputs, via: string, errors: string[]): ProfileValues | undefined {
  let text: string;
  try {
    text = inputs.readFile(path);
  } catch (e) {
    errors.push(`${via}: cannot read the profile "${path}" (${(e as { code?: string }).code ?? (e as Error).message})`);
    return undefined;
  }
  return parseProfile(text, path, errors);
}

/** DEFAULT_PROFILE when the working folder has it; undefined when it does not (any other read error is reported). */
function discoverProfile(inputs: ConfigInputs, errors: string[]): ProfileValues | undefined {
  let text: string;
  try {
    text = inputs.readFile(DEFAULT_PROFILE);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT') return undefined;
    errors.push(`${DEFAULT_PROFILE} (the profile found in the working folder): cannot read it (${code ?? (e as Error).message}); fix it, or name another profile with --target`);
    return undefined;
  }
  return parseProfile(text, DEFAULT_PROFILE, errors);
}

/** Resolves and validates the configuration. Throws ConfigError listing every problem. */
export function resolveConfig(inputs: ConfigInputs): ResolvedConfig {
  const errors: string[] = [];
  const flags = parseFlags(inputs.argv, errors);
  const env = fromEnv(inputs.env, errors);
  const named = (flags.profile ?? env.profile) as string | undefined;
  let profileUsed: ResolvedConfig['profileUsed'];
  let profile: ProfileValues | undefined;
  if (named) {
    const via = flags.profile ? '--target' : 'WGC_TARGET';
    profile = readProfile(named, inputs, via, errors);
    profileUsed = { path: named, via };
  } else if (inputs.discoverProfile !== false) {
    profile = discoverProfile(inputs, errors);
    if (profile) profileUsed = { path: DEFAULT_PROFILE, via: 'working folder' };
  }
  const profilePath = profileUsed?.path;

  const merged: Record<string, unknown> = { ...DEFAULTS, suites: [...DEFAULTS.suites] };
  const sources: Record<string, ConfigSource> = Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, 'default' as const]));
  const layer = (values: Record<string, unknown>, source: ConfigSource): void => {
    for (const [k, v] of Object.entries(values)) {
      merged[k] = v;
      sources[k] = source;
    }
  };
  layer(profile?.settings ?? {}, 'profile');
  if (profileUsed?.via === 'working folder') layer({ profile: DEFAULT_PROFILE }, 'discovered');
  layer(env, 'env');
  layer(flags, 'flag');

  let seedWasRandom = false;
  if (merged.seed === undefined) {
    merged.seed = (inputs.randomSeed ?? (() => randomInt(0, 0x100000000)))();
    sources.seed = 'default';
    seedWasRandom = true;
  }

  merged.keys = (profile?.keys ?? []).map((k) => {
    const secret = inputs.env[k.env];
    if (!secret) errors.push(`${profilePath}: key "${k.name}": environment variable ${k.env} is not set; it must hold the key's secret`);
    return { ...k, secret: secret ?? '' };
  });
  if (profile?.fixtures) merged.fixtures = profile.fixtures;
  if (profile?.roles) merged.roles = profile.roles;

  if (merged.controlUrl !== undefined && merged.controlToken === undefined) {
    errors.push(`${describe('controlUrl', sources)}: a control URL needs its token in WGC_CONTROL_TOKEN (the token is read from the environment only)`);
  }
  if (merged.controlUrl !== undefined && merged.baseUrl === undefined) {
    errors.push(`${describe('controlUrl', sources)}: a control URL needs --base-url (without a base URL the embedded reference target and its own control are used)`);
  }
  if (errors.length > 0) throw new ConfigError(errors);

  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`));
  }
  return { config: parsed.data, sources, seedWasRandom, ...(profileUsed ? { profileUsed } : {}) };
}

/** How a field was set, for messages: its flag, env var or "profile: field". */
function describe(field: string, sources: Record<string, ConfigSource>): string {
  const spec: FieldSpec | undefined = FIELDS.find((f) => f.field === field);
  switch (sources[field]) {
    case 'flag':
      return spec?.flag ?? field;
    case 'env':
      return spec?.env ?? field;
    default:
      return `profile: ${field}`;
  }
}
