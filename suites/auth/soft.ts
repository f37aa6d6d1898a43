/**
 * Soft expectations: run any throwing expectation of src/engine/expect.ts (or any code that
 * throws a Finding) and, instead of stopping the check, record the finding with
 * ctx.softFail. Checks that verify several independent clauses use it so that one failed
 * clause does not leave the others "not reached".
 */
import type { CheckContext } from '../../src/engine/check.ts';
import { Finding } from '../../src/engine/finding.ts';

const isFinding = (e: unknown): e is Finding => e instanceof Finding || (e instanceof Error && e.name === 'Finding' && 'evidence' in e);

/**
 * Runs `fn`; a Finding it throws is recorded with ctx.softFail and undefined is returned.
 * NotObservable, Disabled and harness errors propagate unchanged: they are not target failures.
 */
export function soft<T>(ctx: CheckContext, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (!isFinding(e)) throw e;
    ctx.softFail(e.evidence);
    return undefined;
  }
}

/** The async form of {@link soft}. */
export async function softAsync<T>(ctx: CheckContext, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (!isFinding(e)) throw e;
    ctx.softFail(e.evidence);
    return undefined;
  }
}
