/**
 * The resolved configuration as a zod schema: the one typed object every other module reads.
 * Values are validated field by field while resolving (with messages naming the source);
 * this schema is the final, structural guarantee.
 */
import { z } from 'zod';
import { ROLES } from '../vocabulary.ts';

export const KeyRefSchema = z
  .object({
    /** Label: names the key in reports and redaction markers. */
    name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" or "-"'),
    /** Name of the environment variable holding the secret. */
    env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an upper-case environment variable name'),
  })
  .strict();

export const FixturesSchema = z
  .object({
    accountId: z.string().min(1).optional(),
    accountPersonId: z.string().min(1).optional(),
  })
  .strict();

export const ShardSchema = z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).strict();

export const ConfigSchema = z
  .object({
    baseUrl: z.string().optional(),
    controlUrl: z.string().optional(),
    /** Secret (environment only). */
    controlToken: z.string().min(1).optional(),
    profile: z.string().optional(),
    /** Supplied keys with their secrets, read from the environment variables the profile names. */
    keys: z.array(KeyRefSchema.extend({ secret: z.string().min(1) })),
    fixtures: FixturesSchema.optional(),
    /** The target's role names → the document's roles (profile only). */
    roles: z.record(z.string(), z.enum(ROLES)).optional(),
    /** Without control: the share of cast members the supplied keys must fill (0 to 1). */
    minCastShare: z.number().min(0).max(1),
    /** Run even when the keys fill less than minCastShare. */
    allowPartial: z.boolean(),
    out: z.string().min(1),
    seed: z.number().int().min(0).max(0xffffffff),
    runs: z.number().int().positive(),
    /** Empty: all suites. */
    suites: z.array(z.string().min(1)),
    /** Empty: every check of the selected suites. */
    checks: z.array(z.string().min(1)),
    readOnly: z.boolean(),
    maxCredits: z.number().int().nonnegative().optional(),
    /** Coverage a conformant run must reach: verified clauses, a share of the observable ones ("90%"), or "full". */
    requireCoverage: z.union([z.number().int().nonnegative(), z.string().regex(/^(full|\d+(\.\d+)?%)$/)]).optional(),
    patience: z.number().int().positive().max(100),
    timeoutMs: z.number().int().positive(),
    /** Time budget of the run (ms), when set. */
    maxDurationMs: z.number().int().positive().optional(),
    /** Clean-up time after the budget or a signal (ms). */
    graceMs: z.number().int().positive(),
    /** No progress output. */
    quiet: z.boolean(),
    concurrency: z.number().int().positive(),
    /** Requests in flight to the target at once, run-wide. */
    maxInFlight: z.number().int().positive(),
    allowInsecureHttp: z.boolean(),
    shard: ShardSchema.refine((s) => s.index <= s.count, 'index ≤ count').optional(),
    certify: z.boolean(),
    /** Path of the Ed25519 private key signing the certification bundle (the path, never the key). */
    signKey: z.string().min(1).optional(),
    maxResponseBytes: z.number().int().positive(),
    suitesDir: z.string().optional(),
    /** Folder for Allure results, when asked for. */
    allureResults: z.string().optional(),
    /** Base of the links to the seed document. */
    seedUrl: z.string().optional(),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
export type KeyRef = z.infer<typeof KeyRefSchema>;
export type Fixtures = z.infer<typeof FixturesSchema>;

/** Defaults (seed is drawn at random when not given). */
export const DEFAULTS = {
  out: 'reports',
  runs: 25,
  suites: [] as string[],
  checks: [] as string[],
  readOnly: false,
  patience: 1,
  timeoutMs: 10_000,
  graceMs: 5_000,
  quiet: false,
  concurrency: 2,
  maxInFlight: 8,
  allowInsecureHttp: false,
  certify: false,
  maxResponseBytes: 8 * 1024 * 1024,
  minCastShare: 0.5,
  allowPartial: false,
} as const;

/**
 * The config with secrets removed, for reports: the control token becomes a marker and keys
 * keep only their label and the name of their environment variable.
 */
export function redactConfig(config: Config): Record<string, unknown> {
  const { controlToken, keys, ...rest } = config;
  const out: Record<string, unknown> = { ...rest, keys: keys.map((k) => ({ name: k.name, env: k.env })) };
  if (controlToken !== undefined) out.controlToken = '[REDACTED:control_token]';
  return JSON.parse(JSON.stringify(out)) as Record<string, unknown>;
}
