/**
 * "A refused call changes nothing" (SCOPE-012) for definition writes: a victim definition is
 * read back after the refused attempts, before any permitted write touches it. Every attempt
 * carries its own marker (in its reason, and its name where the write sets one), so a refused
 * write that took effect is caught even when another key was wrongly let through.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { brief } from '../_shared/json.ts';
import { createDefinition, is2xx, uniqueName, type DefinitionView } from '../_shared/definitions.ts';
import type { Attempt } from '../_shared/access-judge.ts';
import { readDefinition, writable } from '../_shared/access-readback.ts';
import { findResourceId } from '../_shared/receipts.ts';

const isFinding = (e: unknown): e is Finding => e instanceof Finding || (e instanceof Error && e.name === 'Finding' && 'evidence' in e);

/** The clause this file verifies. */
export const NO_TRACE = 'SCOPE-012';

/** A unique marker for one attempt, within every name and reason bound. */
export const markerFor = (ctx: CheckContext, key: KeyHandle, what: string): string => uniqueName(ctx, `${what}-by-${key.name}`);

/**
 * A definition the check's rows act on, made with the fully permitted key (archived at
 * clean-up). If it cannot be made, what depends on it is not observable here; creating is the
 * definition suite's clause, not this one's.
 */
export async function setupDefinition(ctx: CheckContext, key: KeyHandle, overrides: Record<string, unknown> = {}): Promise<DefinitionView> {
  try {
    return (await createDefinition(ctx, key, 'setup', overrides)).definition;
  } catch (e) {
    if (isFinding(e)) throw new NotObservable(`could not create the definition the check acts on: ${e.evidence.message} (${e.evidence.received ?? ''})`);
    throw e;
  }
}

/** Reads the victim back; not listed at all is not observable (reading back is setup). */
export async function readVictim(ctx: CheckContext, key: KeyHandle, id: string): Promise<DefinitionView> {
  const d = await readDefinition(ctx, key, id);
  if (!d) throw new NotObservable(`definition ${id}, made by this check, is not in the listing (includeArchived=true)`);
  return d;
}

/**
 * Records SCOPE-012 findings: the writable fields of `before` and `after` must be equal when
 * every attempt that should have been refused was; and in any case no marker of a refused
 * attempt may show up in the definition.
 */
export function expectUntouched(ctx: CheckContext, attempts: readonly Attempt[], markers: ReadonlyMap<string, string>, before: DefinitionView, after: DefinitionView | undefined, what: string): void {
  const refused = attempts.filter((a) => !is2xx(a.ex));
  if (refused.length === 0) return;
  const letThrough = attempts.some((a) => is2xx(a.ex));
  const context = refused.map((a) => a.ex);
  if (!after) {
    if (!letThrough) ctx.softFail({ clause: NO_TRACE, message: `${what}: the definition disappeared from the listing after refused calls`, expected: brief(writable(before)), received: 'not listed', context });
    return;
  }
  const shown = JSON.stringify(writable(after));
  const leaked = refused.filter((a) => {
    const m = markers.get(a.key.name);
    return m !== undefined && shown.includes(m);
  });
  if (leaked.length > 0) {
    ctx.softFail({
      clause: NO_TRACE,
      message: `${what}: refused calls took effect (their markers are in the definition): ${leaked.map((a) => `${a.key.name} (${a.ex.response?.status})`).join(', ')}`,
      expected: 'the definition as it was before the refused calls',
      received: brief(writable(after), 1000),
      exchange: leaked[0]!.ex,
      context,
    });
    return;
  }
  if (!letThrough && JSON.stringify(writable(before)) !== shown) {
    ctx.softFail({
      clause: NO_TRACE,
      message: `${what}: the definition changed although every call was refused`,
      expected: brief(writable(before), 1000),
      received: brief(writable(after), 1000),
      exchange: refused[0]!.ex,
      context,
    });
  }
}

/**
 * Records a SCOPE-012 finding when GET /operations lists a receipt after the refused attempts
 * that it did not list before. Receipts of attempts that were let through are set aside; when
 * one of those names no id, or the list cannot be read, nothing can be attributed and nothing
 * is recorded (other checks of SCOPE-012 still judge it).
 */
export function expectNoReceipt(
  ctx: CheckContext,
  attempts: readonly Attempt[],
  before: { ids: Set<string>; exchanges: Exchange[] } | undefined,
  after: { ids: Set<string>; exchanges: Exchange[] } | undefined,
  what: string,
): void {
  const refused = attempts.filter((a) => !is2xx(a.ex));
  if (!before || !after || refused.length === 0) return;
  const letThrough = attempts.filter((a) => is2xx(a.ex)).map((a) => findResourceId(a.ex));
  if (letThrough.some((id) => id === undefined)) return;
  const fresh = [...after.ids].filter((id) => !before.ids.has(id) && !letThrough.includes(id));
  if (fresh.length === 0) return;
  ctx.softFail({
    clause: NO_TRACE,
    message: `${what}: GET /operations lists ${fresh.length} new receipt(s) after calls that were all refused: ${fresh.slice(0, 5).join(', ')}`,
    expected: 'no receipt for a refused submission',
    received: `new receipt ids: ${fresh.slice(0, 5).join(', ')}`,
    exchange: after.exchanges[after.exchanges.length - 1]!,
    context: [...before.exchanges.slice(-1), ...refused.slice(0, 5).map((a) => a.ex)],
  });
}
