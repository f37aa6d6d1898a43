/**
 * The zod schemas of a check's result: its outcome, its findings' evidence and its scenario
 * (outcome.ts, finding.ts and check.ts hold the types and what the run does with them). The
 * report validates what it writes and what a shard hands back with these. Kept apart so that
 * the vitest worker, which makes results but never validates one, does not load zod (see
 * src/http/exchange-schema.ts).
 */
import { z } from 'zod';
import { ExchangeSchema } from '../http/exchange-schema.ts';
import { LiveCatalogSchema } from '../target/live-catalog-schema.ts';
import { OUTCOMES } from './outcome.ts';

export const OutcomeSchema = z.enum(OUTCOMES);

/**
 * Everything needed to understand and reproduce one deviation from the report alone: the clause
 * the target violated, one sentence of what was wrong, expected and received, the exchange that
 * showed it (already redacted) and others that set the scene (e.g. the create before the
 * replay); for property-based runs the seed and path that replay the counterexample, the
 * generator's scenario (e.g. "name longer than maxLength 80", and the JSON path it touched).
 * The one declaration of the shape: the report's view (src/report/model.ts) is derived from it.
 */
export const EvidenceSchema = z.object({
  clause: z.string(),
  message: z.string(),
  expected: z.string().optional(),
  received: z.string().optional(),
  exchange: ExchangeSchema.optional(),
  context: z.array(ExchangeSchema).optional(),
  seed: z.number().optional(),
  path: z.string().optional(),
  scenario: z.string().optional(),
  counterexample: z.string().optional(),
  /**
   * How the counterexample was shrunk (src/generators/minimize.ts): candidates tried, kept, and
   * whether it is minimal (no smaller candidate still fails) or the budget ran out first; the
   * value as first generated (truncated).
   */
  /**
   * The id of the exchange the finding's reproduction starts at (after the set-up): a run that
   * needs nothing sent before it, such as one sequence of the sequences suite, which starts
   * from an empty model and makes its own records.
   */
  from: z.string().optional(),
  shrunk: z.object({ calls: z.number().int(), steps: z.number().int(), minimal: z.boolean(), original: z.string() }).strict().optional(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/** One request of a check's scenario: through which client, in which phase, against which base URL (the target's base URL, or the control URL) the request URL starts with. */
export const ScenarioStepSchema = z.object({
  via: z.enum(['api', 'control']),
  phase: z.enum(['setup', 'check', 'cleanup']),
  base: z.string(),
  exchange: ExchangeSchema,
});
export type ScenarioStep = z.infer<typeof ScenarioStepSchema>;

/**
 * What one check concluded, per clause. Serialisable (sent from vitest workers through task
 * meta, and in shard partials, where it is parsed with this schema). `clauses`: the outcome per
 * clause of the check; `reason`: why, for notObservable, disabled and harnessError (and "not
 * reached" notes); `requests`: requests the check sent; `plannedCredits`: what it was planned
 * to spend; `scenario`: every request of the check's scenario, in order, when it reported a
 * finding (the suite's set-up through the test-control protocol, the check's own API and
 * control requests, its clean-up), redacted like every exchange; the report turns it into a
 * runnable reproduction script. The one declaration of the shape: the report's per-check view
 * (src/report/model.ts CheckSummarySchema) is derived from it.
 */
export const CheckResultSchema = z.object({
  checkId: z.string().min(1),
  suite: z.string(),
  title: z.string(),
  outcome: OutcomeSchema,
  clauses: z.record(z.string(), OutcomeSchema),
  reason: z.string().optional(),
  findings: z.array(EvidenceSchema),
  requests: z.number().int().nonnegative(),
  plannedCredits: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
  seed: z.number(),
  scenario: z.array(ScenarioStepSchema).optional(),
  /** What the check saw of the target that the report keeps beside the verdicts: the live catalog (src/target/live-catalog.ts). */
  observed: z.object({ liveCatalog: LiveCatalogSchema.optional() }).strict().optional(),
  /**
   * Why each clause the check could not judge, where the rest of the check concluded (its
   * reason holds them all, joined): the report's entry of each clause shows its own, not the
   * whole list. Not in the report's per-check view, whose reason holds them.
   */
  notJudged: z.record(z.string(), z.string()).optional(),
  /** Per clause of the check, how many times it was judged (src/engine/judged.ts); absent where the check did not run. */
  judged: z.record(z.string(), z.number().int().nonnegative()).optional(),
});
export type CheckResult = z.infer<typeof CheckResultSchema>;
