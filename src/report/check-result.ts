/**
 * Runtime validation of CheckResults arriving from outside the process (vitest workers
 * through task meta, shard partial files). The contract is the `CheckResult` interface in
 * src/engine/check.ts; this schema only checks what the report relies on and keeps any
 * other field as is (loose objects), so a newer engine does not lose data here.
 */
import { z } from 'zod';
import type { CheckResult } from '../engine/check.ts';
import { OutcomeSchema } from './model.ts';

const ExchangeSchema = z.looseObject({
  id: z.string(),
  request: z.looseObject({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().optional(),
  }),
  response: z
    .looseObject({
      status: z.number(),
      headers: z.record(z.string(), z.string()),
      text: z.string(),
      isJson: z.boolean(),
      bytes: z.number(),
      truncated: z.boolean(),
    })
    .optional(),
  error: z.looseObject({ kind: z.string(), message: z.string() }).optional(),
  startedAt: z.string(),
  durationMs: z.number(),
  retries: z.number(),
});

const EvidenceSchema = z.looseObject({
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
});

/** The CheckResult contract (src/engine/check.ts) as a loose zod schema. */
export const CheckResultSchema = z.looseObject({
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
});

/** The value as a CheckResult, or a one-line description of what is wrong with it. */
export function parseCheckResult(value: unknown): { ok: true; result: CheckResult } | { ok: false; problem: string } {
  const parsed = CheckResultSchema.safeParse(value);
  if (parsed.success) return { ok: true, result: parsed.data as unknown as CheckResult };
  return {
    ok: false,
    problem: parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; '),
  };
}
