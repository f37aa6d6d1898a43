/**
 * Runtime validation of CheckResults arriving from outside the process (vitest workers
 * through task meta, shard partial files), with the engine's own schema of them
 * (src/engine/result-schema.ts CheckResultSchema): one declaration, so the compiler sees any drift.
 */
import { CheckResultSchema, type CheckResult } from '../engine/result-schema.ts';

export { CheckResultSchema };

/** The value as a CheckResult, or a one-line description of what is wrong with it. */
export function parseCheckResult(value: unknown): { ok: true; result: CheckResult } | { ok: false; problem: string } {
  const parsed = CheckResultSchema.safeParse(value);
  if (parsed.success) return { ok: true, result: parsed.data };
  return {
    ok: false,
    problem: parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; '),
  };
}
