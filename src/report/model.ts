/**
 * The canonical result model of a conformance run. Every rendering (JSON, HTML, JUnit,
 * Markdown, terminal, Allure labels) is a view of one `RunResult`; the JSON report is this
 * object as is, and `specs/report.schema.json` is generated from these schemas.
 *
 * Bump FORMAT_VERSION on any change that an older reader would misread.
 */
import { z } from 'zod';
import { LiveCatalogSchema } from '../target/live-catalog-schema.ts';
import { CheckResultSchema, EvidenceSchema, OutcomeSchema } from '../engine/result-schema.ts';
import { CapturedRequestSchema, CapturedResponseSchema, ExchangeSchema, TransportErrorSchema } from '../http/exchange-schema.ts';
import { LEVELS } from '../catalog/types.ts';

/** Version of the report format; readers refuse other versions. */
export const FORMAT_VERSION = 1;

/** The outcome scale of src/engine/outcome.ts. */
export { OutcomeSchema };
/** MUST or SHOULD. */
export const LevelSchema = z.enum(LEVELS);

/** conformant: no MUST clause failed and the harness did not break; see `verdict.ts`. */
export const VERDICTS = ['conformant', 'not-conformant', 'inconclusive'] as const;
export const VerdictSchema = z.enum(VERDICTS);
export type Verdict = z.infer<typeof VerdictSchema>;

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a lower-case hex sha256');
const Headers = z.record(z.string(), z.string());

/**
 * A captured exchange as the report shows it (already redacted at capture), with its curl
 * command ("Reproduce with": secrets stay redacted). Derived from the engine's one declaration
 * (src/http/exchange-schema.ts ExchangeSchema): the parsed JSON body is left out (its text is there).
 */
export const ReportExchangeSchema = ExchangeSchema.extend({
  request: CapturedRequestSchema.strict(),
  response: CapturedResponseSchema.omit({ json: true }).strict().optional(),
  error: TransportErrorSchema.strict().optional(),
  curl: z.string(),
}).strict();
export type ReportExchange = z.infer<typeof ReportExchangeSchema>;

/**
 * One deviation of the target, reproducible from the report alone: the engine's Evidence
 * (src/engine/result-schema.ts EvidenceSchema) with the check that found it, its exchanges as the
 * report shows them, and how many identical findings (same clause, message and request line)
 * were folded into this one.
 */
export const ReportEvidenceSchema = EvidenceSchema.extend({
  checkId: z.string(),
  exchange: ReportExchangeSchema.optional(),
  context: z.array(ReportExchangeSchema).optional(),
  occurrences: z.number().int().positive(),
}).strict();
export type ReportEvidence = z.infer<typeof ReportEvidenceSchema>;

/** What one check said about one clause. */
export const ClauseCheckSchema = z
  .object({
    checkId: z.string(),
    title: z.string(),
    outcome: OutcomeSchema,
    reason: z.string().optional(),
  })
  .strict();
export type ClauseCheck = z.infer<typeof ClauseCheckSchema>;

/** One catalog clause with its outcome, the checks that spoke of it and its evidence. */
export const ClauseEntrySchema = z
  .object({
    id: z.string(),
    level: LevelSchema,
    area: z.string(),
    /** Seed reference, e.g. "5 rule 4". */
    ref: z.string(),
    /** Link to the seed section, when the run knew where the seed document lives. */
    seedLink: z.string().nullable(),
    statement: z.string(),
    /** False when the catalog marks the clause as unobservable by any client. */
    observable: z.boolean(),
    outcome: OutcomeSchema,
    /** Why, for notObservable, disabled and harnessError. */
    reason: z.string().optional(),
    checks: z.array(ClauseCheckSchema),
    evidence: z.array(ReportEvidenceSchema),
  })
  .strict();
export type ClauseEntry = z.infer<typeof ClauseEntrySchema>;

const countFields = {
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  notObservable: z.number().int().nonnegative(),
  disabled: z.number().int().nonnegative(),
  harnessError: z.number().int().nonnegative(),
};
/** Number of clauses per outcome. */
export const OutcomeCountsSchema = z.object(countFields).strict();
export type OutcomeCounts = z.infer<typeof OutcomeCountsSchema>;

/** Clause counts of one area. */
export const AreaCountsSchema = z.object({ area: z.string(), total: z.number().int().nonnegative(), observable: z.number().int().nonnegative(), ...countFields }).strict();
export type AreaCounts = z.infer<typeof AreaCountsSchema>;

/** How much of the catalog the verdict rests on. */
export const CoverageSchema = z
  .object({
    /** Clauses in the catalog. */
    total: z.number().int().nonnegative(),
    /** Clauses some client can observe (no `unobservable` reason). */
    observable: z.number().int().nonnegative(),
    /** Clauses that passed (verified on this target). */
    verified: z.number().int().nonnegative(),
    mustTotal: z.number().int().nonnegative(),
    mustObservable: z.number().int().nonnegative(),
    mustVerified: z.number().int().nonnegative(),
    /** Conformant, and every observable MUST clause was verified: a full certification. */
    full: z.boolean(),
  })
  .strict();
export type Coverage = z.infer<typeof CoverageSchema>;

/** The verdict, its coverage and the clause ids that decided it. */
export const SummarySchema = z
  .object({
    verdict: VerdictSchema,
    /** conformant 0, not-conformant 1, inconclusive 2. */
    exitCode: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    /** One sentence: the verdict with its coverage. */
    headline: z.string(),
    coverage: CoverageSchema,
    counts: OutcomeCountsSchema,
    /** Failed MUST clause ids (verdict-affecting). */
    mustFailed: z.array(z.string()),
    /** Failed SHOULD clause ids (warnings, not verdict-affecting). */
    warnings: z.array(z.string()),
    /** Clause ids with harness errors. */
    harnessErrors: z.array(z.string()),
  })
  .strict();
export type Summary = z.infer<typeof SummarySchema>;

/** One request of a failing check's scenario, as a replay needs it. */
export const ReportStepSchema = z
  .object({
    /** The exchange id (findings name the exchanges they show by it). */
    id: z.string(),
    /** Sent to the API or to the test-control protocol. */
    via: z.enum(['api', 'control']),
    /** The suite's set-up, the check itself, or its clean-up. */
    phase: z.enum(['setup', 'check', 'cleanup']),
    /** The base URL the request URL starts with (target base URL, or control URL). */
    base: z.string(),
    method: z.string(),
    url: z.string(),
    headers: Headers,
    body: z.string().optional(),
    /** The recorded answer's status, or the transport error. */
    status: z.number().int().optional(),
    error: z.string().optional(),
    /**
     * Values of the answer that later requests reuse (ids, cursors, a minted key's secret as
     * its redaction marker): the variable a replay keeps it in ("secret:<label>" for a secret),
     * its jq path in the answer, and the recorded value.
     */
    captures: z.array(z.object({ name: z.string(), path: z.string(), value: z.string() }).strict()),
    /** A finding shows this request. */
    finding: z.boolean(),
  })
  .strict();
export type ReportStep = z.infer<typeof ReportStepSchema>;

/** Every request of a failing check's scenario, in order (src/report/scenario.ts). */
export const ReportScenarioSchema = z
  .object({
    steps: z.array(ReportStepSchema),
    /** Requests left out: after the last one a finding shows (clean-up), and `omittedInside`. */
    omitted: z.number().int().nonnegative(),
    /** Requests left out from the middle of a very long check (its set-up and last requests are kept). */
    omittedInside: z.number().int().nonnegative(),
  })
  .strict();
export type ReportScenario = z.infer<typeof ReportScenarioSchema>;

/**
 * One executed check, as the report lists it: the engine's CheckResult (src/engine/check.ts
 * CheckResultSchema) with its findings counted (they are listed under their clauses) and a
 * failing check's scenario as a replay needs it (absent for checks without findings).
 */
export const CheckSummarySchema = CheckResultSchema.omit({ notJudged: true })
  .extend({
    checkId: z.string(),
    findings: z.number().int().nonnegative(),
    scenario: ReportScenarioSchema.optional(),
  })
  .strict();
export type CheckSummary = z.infer<typeof CheckSummarySchema>;

/** Shard `index` (1-based) of `count`. */
export const ShardSchema = z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).strict();
export type Shard = z.infer<typeof ShardSchema>;

/**
 * The pace the run kept (src/target/pace.ts, src/http/limit.ts): the round trip the preflight
 * measured, the suites side by side and requests in flight it started with (chosen from the
 * round trip unless set by hand), and the waits the target's rate limit imposed.
 */
export const PaceSchema = z
  .object({
    /** The quickest of the preflight's keyless GET /me round trips, ms; null when not measured. */
    roundTripMs: z.number().nonnegative().nullable(),
    concurrency: z.number().int().positive(),
    maxInFlight: z.number().int().positive(),
    /** Where each came from: the measured round trip, or the user (flag, environment, profile). */
    chosen: z.object({ concurrency: z.enum(['measured', 'set']), maxInFlight: z.enum(['measured', 'set']) }).strict(),
    /** Rate-limit waits (one per episode) and their time added up, ms. */
    rateLimitWaits: z.number().int().nonnegative(),
    rateLimitWaitedMs: z.number().nonnegative(),
    /** Requests a minute kept to after the last wait; null when none was needed. */
    ratePerMinute: z.number().nonnegative().nullable(),
    /** The 429 retries the suites may take in all (their requests in flight decide it: src/engine/context.ts), and those they took. */
    retryBudget: z.number().int().nonnegative().optional(),
    retries: z.number().int().nonnegative().optional(),
    /** The preflight's round-trip samples (keyless GET /me, free), counted in the run's requests. */
    roundTripSamples: z.number().int().nonnegative().optional(),
  })
  .strict();
export type Pace = z.infer<typeof PaceSchema>;

/** Facts of the run: what ran, against what, with which inputs. */
export const RunMetaSchema = z
  .object({
    suite: z.object({ name: z.string(), version: z.string() }).strict(),
    /** sha256 of specs/openapi.yaml and of the clause catalog the run used. */
    specHash: Sha256Schema,
    catalogHash: Sha256Schema,
    target: z.object({ baseUrl: z.string() }).strict(),
    /** The test-control protocol was used. */
    control: z.boolean(),
    /** The resolved configuration, redacted. */
    config: z.record(z.string(), z.unknown()),
    seed: z.number(),
    startedAt: z.string(),
    durationMs: z.number().nonnegative(),
    requests: z.number().int().nonnegative(),
    /** Credits charged according to the usage ledger; null when no ledger was available. */
    creditsCharged: z.number().nullable(),
    /**
     * The credit plan: the exact credits of the admitted checks (what a conformant target like
     * the reference charges them), their ceiling (the most any conformant target may), the exact
     * credits without a limit, the --max-credits limit, and the check ids the limit disabled.
     * `ceiling` is absent from reports written before the plan had one (their `planned` was
     * declared as an upper bound): such reports stay readable.
     */
    creditPlan: z
      .object({
        planned: z.number().nonnegative(),
        ceiling: z.number().nonnegative().optional(),
        wanted: z.number().nonnegative(),
        limit: z.number().nonnegative().nullable(),
        excluded: z.array(z.string()),
      })
      .strict(),
    /**
     * The live catalog GET /capabilities served (operation names and change kinds, searched in
     * whatever layout: src/target/live-catalog.ts); null when no check could read it; absent
     * from older reports. `wgc diff` compares it between runs.
     */
    liveCatalog: LiveCatalogSchema.nullable().optional(),
    /** The pace of the run; absent from runs not made by `wgc run` and from older reports. */
    pace: PaceSchema.optional(),
    /** Set when this report covers one shard only. */
    shard: ShardSchema.nullable(),
    /** Number of shard partials merged into this report (0 for an unsharded run). */
    mergedShards: z.number().int().nonnegative(),
    /** Problems of the run itself (crashed modules, unknown clause ids...): the verdict cannot be trusted. */
    runErrors: z.array(z.string()),
  })
  .strict();
export type RunMeta = z.infer<typeof RunMetaSchema>;

/** The canonical result of a run: report.json is this object. */
export const RunResultSchema = z
  .object({
    formatVersion: z.literal(FORMAT_VERSION),
    meta: RunMetaSchema,
    summary: SummarySchema,
    areas: z.array(AreaCountsSchema),
    /** In catalog order. */
    clauses: z.array(ClauseEntrySchema),
    /** Sorted by check id. */
    checks: z.array(CheckSummarySchema),
  })
  .strict()
  .meta({
    title: 'wg-conformance run report',
    description: 'The canonical result of a conformance run of the Workspace Graph and ICP Service API (v1-beta).',
  });
export type RunResult = z.infer<typeof RunResultSchema>;
