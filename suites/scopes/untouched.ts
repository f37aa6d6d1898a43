/**
 * "A call refused for a missing scope changes nothing" (SCOPE-012). Every call from a key
 * lacking the row's scopes must be refused, so none may leave a trace, whatever the target
 * answered: a 403 that still stored something, or a 2xx it should not have given (that key is
 * also its row's finding). What is read back: a victim definition, before any permitted write
 * touches it (each attempt carries its own marker, in its reason and, where the write sets one,
 * its name), and the receipts GET /operations lists.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { brief } from '../_shared/json.ts';
import { createDefinition, uniqueName, type DefinitionView } from '../_shared/definitions.ts';
import type { Attempt } from '../_shared/access-judge.ts';
import { readDefinition, writable } from './readback.ts';

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

/** "only-admin (403), no-scope (200)": the attempts and what they were answered. */
const answered = (attempts: readonly Attempt[]): string => attempts.map((a) => `${a.key.name} (${a.ex.response?.status ?? a.ex.error?.kind})`).join(', ');

/**
 * Records SCOPE-012 findings for calls that should all have been refused: no marker of theirs
 * may show up in the definition, and its writable fields must be as they were before.
 */
export function expectUntouched(ctx: CheckContext, attempts: readonly Attempt[], markers: ReadonlyMap<string, string>, before: DefinitionView, after: DefinitionView | undefined, what: string): void {
  if (attempts.length === 0) return;
  // The definition read back after the calls is compared with the one before (gone is a finding too).
  ctx.judged(NO_TRACE);
  const context = attempts.slice(0, 6).map((a) => a.ex);
  if (!after) {
    ctx.softFail({
      clause: NO_TRACE,
      message: `${what}: the definition disappeared from the listing after calls lacking the scope (${answered(attempts)})`,
      expected: brief(writable(before)),
      received: 'not listed',
      context,
    });
    return;
  }
  const shown = JSON.stringify(writable(after));
  const leaked = attempts.filter((a) => {
    const m = markers.get(a.key.name);
    // Quoted: a marker is a whole field value, and one marker may be a prefix of another.
    return m !== undefined && shown.includes(JSON.stringify(m));
  });
  if (leaked.length > 0) {
    ctx.softFail({
      clause: NO_TRACE,
      message: `${what}: calls lacking the scope took effect (their markers are in the definition): ${answered(leaked)}`,
      expected: 'the definition as it was before those calls',
      received: brief(writable(after), 1000),
      exchange: leaked[0]!.ex,
      context,
    });
    return;
  }
  if (JSON.stringify(writable(before)) !== shown) {
    ctx.softFail({
      clause: NO_TRACE,
      message: `${what}: the definition changed after calls lacking the scope (${answered(attempts)})`,
      expected: brief(writable(before), 1000),
      received: brief(writable(after), 1000),
      exchange: attempts[0]!.ex,
      context,
    });
  }
}

/**
 * Records a SCOPE-012 finding when GET /operations lists a receipt after calls that should all
 * have been refused that it did not list before. When the list cannot be read, nothing is
 * compared (other checks of SCOPE-012 still judge it).
 */
export function expectNoReceipt(
  ctx: CheckContext,
  attempts: readonly Attempt[],
  before: { ids: Set<string>; exchanges: Exchange[] } | undefined,
  after: { ids: Set<string>; exchanges: Exchange[] } | undefined,
  what: string,
): void {
  if (!before || !after || attempts.length === 0) return;
  ctx.judged(NO_TRACE);
  const fresh = [...after.ids].filter((id) => !before.ids.has(id));
  if (fresh.length === 0) return;
  ctx.softFail({
    clause: NO_TRACE,
    message: `${what}: GET /operations lists ${fresh.length} new receipt(s) after submissions lacking the scope (${answered(attempts)})`,
    expected: 'no receipt for a submission that must be refused',
    received: `new receipt ids: ${fresh.slice(0, 5).join(', ')}`,
    exchange: after.exchanges[after.exchanges.length - 1]!,
    context: [...before.exchanges.slice(-1), ...attempts.slice(0, 5).map((a) => a.ex)],
  });
}
