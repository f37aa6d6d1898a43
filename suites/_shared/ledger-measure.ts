/**
 * Ledger measurements for the billing suite. A target may record a charge a little after it
 * answers (asynchronous work is billed when it runs), so a measurement reads the ledger again
 * until two reads agree (bounded backoff) before it concludes. The ledger entries name the
 * method of each charge, which lets a measurement leave out charges of polls it made on
 * purpose (their cost is another clause's business).
 */
import type { CheckContext, LedgerEntry } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { describeResponse } from '../../src/engine/expect.ts';

/** What one measurement saw. */
export interface Measured<T> {
  result: T;
  /** Credits charged between before and the settled after. */
  delta: number;
  before: number;
  after: number;
  /** Ledger entries recorded during the measurement (only with `entries: true`). */
  entries: LedgerEntry[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * How long after its answer a charge may still be recorded: the suite's bound on a lagging
 * ledger (a target may bill asynchronous work when it runs, or record usage through a queue).
 * Measurements wait up to this long for the charges they expect.
 */
export const LATE_CHARGE_MS = 1_000;

/**
 * The least time the ledger must stand still before a check starts measuring, once it has been
 * seen to lag: charges of the previous check (its clean-up archives, say) recorded late must
 * not land in this check's first measurement. A ledger never seen lagging costs no wait.
 */
export const QUIET_MS = 300;

/**
 * The longest delay seen per workspace between a billed answer and its charge showing in the
 * ledger (absent: every expected charge was there at once). Module state on purpose: the
 * checks of a suite share their workspace and run one after another.
 */
const lagSeen = new Map<string, number>();

function noteLag(ctx: CheckContext, ms: number): void {
  lagSeen.set(ctx.workspaceId, Math.max(lagSeen.get(ctx.workspaceId) ?? 0, ms));
}

/**
 * The charged total once it has stopped moving: two reads `wait` apart agree (wait doubles from
 * 10 ms to 80 ms) and, with `quietMs`, it has not moved for that long; or the budget is spent
 * (then the last read).
 */
export async function settledCharged(ctx: CheckContext, budgetMs = 600, quietMs = 0): Promise<number> {
  const deadline = Date.now() + Math.max(budgetMs, quietMs * 2);
  let last = await ctx.ledger.charged();
  let since = Date.now();
  let wait = 10;
  for (;;) {
    await sleep(wait);
    const now = await ctx.ledger.charged();
    if ((now === last && Date.now() - since >= quietMs) || Date.now() + wait > deadline) return now;
    if (now !== last) since = Date.now();
    last = now;
    wait = Math.min(wait * 2, 80);
  }
}

/**
 * The ledger before a check's first measurement. Once the ledger has been seen to lag, it must
 * stand still for twice the longest lag seen (at least {@link QUIET_MS}, at most
 * {@link LATE_CHARGE_MS}), so that late charges of earlier work are in; otherwise it is only
 * settled. Call at the start of a check that measures.
 */
export function quietLedger(ctx: CheckContext): Promise<number> {
  const lag = lagSeen.get(ctx.workspaceId);
  if (lag === undefined) return settledCharged(ctx);
  const quiet = Math.min(LATE_CHARGE_MS, Math.max(QUIET_MS, 2 * lag));
  return settledCharged(ctx, 2 * quiet, quiet);
}

/**
 * Waits until the ledger shows at least `expected` credits more than `base` (for up to
 * `lateMs`: the charges of set-up calls that may be recorded late), then until it settles.
 * Returns the settled total. Call between billed set-up calls and a measurement.
 */
export async function chargesLanded(ctx: CheckContext, base: number, expected: number, lateMs = LATE_CHARGE_MS): Promise<number> {
  const started = Date.now();
  const deadline = started + lateMs;
  let now = await ctx.ledger.charged();
  const late = now - base < expected;
  for (let wait = 25; now - base < expected && Date.now() + wait <= deadline; wait = Math.min(wait * 2, 200)) {
    await sleep(wait);
    now = await ctx.ledger.charged();
  }
  // A charge that came, but not at once: the ledger lags (at least this long).
  if (late && now - base >= expected) noteLag(ctx, Date.now() - started);
  return settledCharged(ctx);
}

/** Options of a measurement. */
export interface MeasureOptions<T> {
  /** Also return the ledger entries recorded during the measurement. */
  entries?: boolean;
  settleMs?: number;
  /**
   * The least the action should cost given its result (e.g. 1 for a 2xx of a billed endpoint).
   * While the ledger shows less, it is read again for up to `lateMs` (default
   * {@link LATE_CHARGE_MS}): a target may record a charge well after answering, and a slow
   * ledger must not read as a free call.
   */
  atLeast?: (result: T) => number;
  lateMs?: number;
}

/** Runs `action` between two ledger reads (the second settled) and returns the difference. */
export async function measureCharges<T>(ctx: CheckContext, action: () => Promise<T>, opts: MeasureOptions<T> = {}): Promise<Measured<T>> {
  const lastSeq = opts.entries ? maxSeq(await ctx.ledger.entries()) : 0;
  const before = await ctx.ledger.charged();
  const result = await action();
  let after = await settledCharged(ctx, opts.settleMs);
  const floor = opts.atLeast?.(result) ?? 0;
  // Whatever came late may still be followed by more: chargesLanded settles once more.
  if (after - before < floor) after = await chargesLanded(ctx, before, floor, opts.lateMs);
  const entries = opts.entries ? (await ctx.ledger.entries()).filter((e) => e.seq > lastSeq) : [];
  return { result, delta: after - before, before, after, entries };
}

const maxSeq = (entries: readonly LedgerEntry[]): number => entries.reduce((m, e) => Math.max(m, e.seq), 0);

/**
 * Credits of the entries charged for GET calls to `paths` (polls the measurement sent on
 * purpose, e.g. "/operations/<id>"): their price is another clause's business.
 */
export function pollCredits(entries: readonly LedgerEntry[], paths: readonly string[]): number {
  const polled = (p: string) => paths.some((x) => p.split('?')[0]!.endsWith(x));
  return entries.filter((e) => e.method.toUpperCase() === 'GET' && polled(e.path)).reduce((s, e) => s + e.credits, 0);
}

/** "POST /definitions → 201": the request and its answer, for messages. */
export function callOf(ex: Exchange): string {
  const path = (() => {
    try {
      return new URL(ex.request.url).pathname.replace(/^.*?\/api\/v1/, '');
    } catch {
      return ex.request.url;
    }
  })();
  return `${ex.request.method} ${path} → ${ex.response ? ex.response.status : `no response (${ex.error?.kind ?? 'unknown'})`}`;
}

/**
 * The evidence of a wrong charge: `clause`, the call and what the ledger did. Returned (not
 * thrown) so the caller chooses between ctx.softFail and throw.
 */
export function chargeEvidence(clause: string, ex: Exchange, m: Pick<Measured<unknown>, 'delta' | 'before' | 'after'>, expected: readonly number[], context?: Exchange[]) {
  const want = expected.map((n) => `${n} credit${n === 1 ? '' : 's'}`).join(' or ');
  return {
    clause,
    message: `${callOf(ex)} changed the usage ledger by ${m.delta}, expected ${want}`,
    expected: `${want} charged`,
    received: `${m.delta} (charged ${m.before} → ${m.after}); answer ${ex.response ? describeResponse(ex.response) : 'none'}`,
    exchange: ex,
    ...(context && context.length > 0 ? { context } : {}),
  };
}
