/**
 * What the caller (the `wgc run` command) tells the report builder about the run, and the
 * helpers that compute the fixed facts (suite version, file hashes).
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { PaceSchema, ShardSchema } from './model.ts';

/** specs/openapi.yaml of this checkout. */
export const DEFAULT_SPEC_PATH = fileURLToPath(new URL('../../specs/openapi.yaml', import.meta.url));
const PACKAGE_JSON = fileURLToPath(new URL('../../package.json', import.meta.url));

/**
 * Run facts for `buildRunResult`. JSON-serialisable, so shard partials can carry it.
 * Fields marked "default" are computed when omitted.
 */
export const RunMetaInputSchema = z
  .object({
    /** Default: name and version from package.json. */
    suite: z.object({ name: z.string(), version: z.string() }).strict().optional(),
    /** sha256 (hex) of specs/openapi.yaml: use `hashFile(DEFAULT_SPEC_PATH)`. */
    specHash: z.string().regex(/^[0-9a-f]{64}$/),
    targetBaseUrl: z.string(),
    /** The test-control protocol was used. */
    control: z.boolean(),
    /** The resolved configuration, already redacted (it is redacted again defensively). */
    config: z.record(z.string(), z.unknown()),
    seed: z.number(),
    /** ISO 8601. */
    startedAt: z.string(),
    durationMs: z.number().nonnegative(),
    /** Requests sent. Default: the sum over the check results. */
    requests: z.number().int().nonnegative().optional(),
    /** Credits charged per the usage ledger; null without a ledger. */
    creditsCharged: z.number().nullable(),
    /**
     * The credit plan (src/engine/credits.ts CreditPlan fits; its per-check `entries` are
     * dropped): planned credits, exact (default: sum of the checks' plannedCredits), their
     * ceiling (default: planned), wanted without a limit (default: planned), the
     * --max-credits limit, checks excluded by the limit.
     */
    creditPlan: z
      .object({
        planned: z.number().nonnegative().optional(),
        ceiling: z.number().nonnegative().optional(),
        wanted: z.number().nonnegative().optional(),
        limit: z.number().nonnegative().nullable(),
        excluded: z.array(z.string()).optional(),
      })
      .optional(),
    shard: ShardSchema.nullable().optional(),
    /** The pace of the run (src/target/pace.ts). */
    pace: PaceSchema.optional(),
    /** Problems of the run itself: unhandled errors, modules that failed to load. */
    runErrors: z.array(z.string()).optional(),
    /**
     * Clauses whose checks were switched off before they ran (e.g. by --suite), with the
     * reason; they are reported as disabled instead of "no check ran for this clause".
     */
    disabledClauses: z.record(z.string(), z.string()).optional(),
    /** Where the seed document lives, for links from clauses to their section. */
    seedDoc: z.object({ url: z.string(), markdown: z.string().optional() }).strict().optional(),
  })
  .strict();

/** Run facts for `buildRunResult` (see RunMetaInputSchema for each field). */
export type RunMetaInput = z.infer<typeof RunMetaInputSchema>;

let suiteCache: { name: string; version: string } | undefined;

/** Name and version of this suite, from package.json. */
export function suiteInfo(): { name: string; version: string } {
  if (!suiteCache) {
    const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { name: string; version: string };
    suiteCache = { name: pkg.name, version: pkg.version };
  }
  return suiteCache;
}

/** sha256 (lower-case hex) of bytes or text. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of a file's bytes. */
export function hashFile(path: string): string {
  return sha256(readFileSync(path));
}
