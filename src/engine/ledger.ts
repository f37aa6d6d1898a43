/**
 * The usage ledger as a service of the engine (`ctx.ledger`): what a call was charged, read
 * from the usage ledger of the suite's workspace (test-control protocol). One book per suite
 * session, fed by the session's own HTTP client (every API call a check or its clean-up sends
 * is logged), and one policy for waiting on a ledger that records late.
 *
 * The seed sets no time for a charge to show in the ledger, and a target may record usage
 * through a queue. So a measurement does not take the growth of the ledger's total around a
 * call as the call's price: a charge of an earlier call recorded late would then be blamed on
 * the next call (a free call read as billed), and would hide that call's own missing charge.
 * Instead each ledger entry (method, path, status, seq: control protocol) is attributed to the
 * call it names (a call of that method and path, and status where one matches): the earliest
 * such call still owed a charge; else, ledgers recording a charge per call, the earliest still
 * being measured and not yet charged; else the latest. A call's price is the credits of the
 * entries attributed to it. Entries no logged call explains are counted in the measurement
 * during which they appear (as a total would be). Where the ledger's entries do not add up to
 * its total, measurements fall back to totals.
 *
 * Waits (the one settle policy of the tree: {@link pollUntil} and {@link settleReads}): for a
 * charge a call is expected to incur, up to LATE_CHARGE_MS after its answer; for a free call,
 * once the ledger has been seen to lag, one and a half times the lag seen (at least QUIET_MS)
 * so a wrong charge has time to show; both at most the bound, which the run's --patience
 * multiplies. A free call seen uncharged on a ledger that has recorded a charge later than the
 * bound is not vouched for (Measured.doubt). Measurements of several calls may be deferred and
 * concluded together, so that their waits overlap.
 *
 * Checks use `ctx.ledger.expectCharged(clause, n, call)`, `ctx.ledger.expectFree(clause, call)`
 * (deferred, concluded with `ctx.ledger.concludeAll`), or `ctx.ledger.measure` for anything
 * finer. Comparing two reads of the total around a call is the mistake this module exists to
 * avoid; no helper does it.
 */
import { judged } from './judged.ts';
import { Finding, NotObservable, type Evidence } from './finding.ts';
import { describeResponse } from './expect.ts';
import { describeBound, LEDGER_LAG_MS, waitBound } from './waits.ts';
import { isExchange, type Exchange } from '../http/exchange.ts';
import type { UsageLedger } from '../control/types.ts';
import { inParallel } from './parallel.ts';

/** The raw reads of a workspace's usage ledger (control protocol). */
export interface Ledger {
  /** Total credits charged so far in the workspace. */
  charged(): Promise<number>;
  entries(): Promise<LedgerEntry[]>;
  /**
   * Both in one read, where the ledger answers them together (the control protocol's GET usage
   * does): one round trip instead of three for the first check of consistency.
   */
  usage?(): Promise<{ charged: number; entries: LedgerEntry[] }>;
}
/** One entry of the ledger, as the test-control protocol lists it. */
export type LedgerEntry = UsageLedger['entries'][number];

/**
 * How long after its answer a charge may still be recorded (LEDGER_LAG_MS, src/engine/waits.ts).
 * The run's --patience multiplies it. It costs time only where an expected charge is missing, or
 * once the ledger is seen to lag (then free calls are watched for 1.5 times the lag seen, never
 * longer than this).
 */
export const LATE_CHARGE_MS = LEDGER_LAG_MS;

/** The least time a free call is watched for a wrong charge once the ledger has been seen to lag. */
export const QUIET_MS = 300;

/** How long reads of the ledger may take to agree before a measurement concludes (--patience multiplies it). */
export const SETTLE_MS = 600;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ the one settle policy

/**
 * Reads until `enough(value)` holds or `until` (epoch ms) passes, backing off from 25 ms to
 * 200 ms. Returns the last value read and whether it held.
 */
export async function pollUntil<T>(read: () => Promise<T>, enough: (value: T) => boolean, until: number): Promise<{ value: T; held: boolean }> {
  let value = await read();
  for (let wait = 25; !enough(value); wait = Math.min(wait * 2, 200)) {
    if (Date.now() + wait > until) return { value, held: false };
    await sleep(wait);
    value = await read();
  }
  return { value, held: true };
}

/**
 * Reads until two reads (10 ms, then up to 80 ms apart) agree by `same` and, with `quietMs`,
 * nothing has changed for that long; or `boundMs` (at least twice `quietMs`) is spent.
 * `first`: a read the caller has just made, which counts as the first (one round trip fewer
 * against a distant target; the reads that must agree are still two, 10 ms apart).
 * Returns the last value read.
 */
export async function settleReads<T>(read: () => Promise<T>, same: (a: T, b: T) => boolean, boundMs: number, quietMs = 0, first?: { value: T }): Promise<T> {
  const deadline = Date.now() + Math.max(boundMs, 2 * quietMs);
  let last = first ? first.value : await read();
  let since = Date.now();
  for (let wait = 10; ; wait = Math.min(wait * 2, 80)) {
    await sleep(wait);
    const next = await read();
    const unchanged = same(last, next);
    if ((unchanged && Date.now() - since >= quietMs) || Date.now() + wait > deadline) return next;
    if (!unchanged) since = Date.now();
    last = next;
  }
}

// ------------------------------------------------------------------ the book of calls and entries

/** What the book reads: the raw ledger and the run's --patience. */
interface Source {
  ledger: Ledger;
  run: { patience: number };
}

/** One API call a billing check sent in the workspace. */
interface Call {
  ex?: Exchange;
  method: string;
  /** The API path without query, e.g. "/definitions/<id>". */
  path: string;
  /** The path's segments, once split (see attribute). */
  segments?: string[];
  sentAt: number;
  answeredAt?: number;
  status?: number;
  /** Credits a measurement expects the call to be charged (entries go to owed calls first). */
  owed: number;
  /** Credits of the entries attributed to the call. */
  claimed: number;
  /** Priced by a measurement that has not concluded yet. */
  open: boolean;
}

interface SeenEntry {
  entry: LedgerEntry;
  /** When the read that first showed it ended. */
  seenAt: number;
  call?: Call;
}

/** What the session knows of its workspace's ledger (a suite's checks share the workspace and run one after another). */
interface Book {
  calls: Call[];
  seen: Map<number, SeenEntry>;
  /** The start of the latest read (an entry first seen later was not recorded before it). */
  lastReadStart: number;
  total: number;
  /** undefined until checked: the entries add up to the ledger's charged total. */
  consistent?: boolean;
  /** Entries that no logged call explains. */
  unexplained: number;
  /** The longest delay seen between an answer and its charge, while the suite watched closely. */
  lagMs?: number;
  /** The longest delay a charge certainly took after its call's answer (the ledger was read in between without it). */
  lateAtLeastMs: number;
}

/** The path of a request or ledger entry as segments, query left out. */
function segments(path: string): string[] {
  return path
    .split(/[?#]/)[0]!
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

/** The entry's path (as segments) names the call's: it ends with the call's segments (a prefix such as /api/v1 aside; a {param} or :param segment matches any). */
function pathMatches(e: readonly string[], c: readonly string[]): boolean {
  if (c.length === 0 || e.length < c.length) return false;
  const tail = e.slice(e.length - c.length);
  return tail.every((s, i) => s === c[i] || /^(\{[^}]*\}|:.+|\*)$/.test(s));
}

/** The call an entry first seen at `seenAt` belongs to (see the module comment), if any. */
function attribute(book: Book, entry: LedgerEntry, seenAt: number): Call | undefined {
  const horizon = 10 * Math.max(LATE_CHARGE_MS, book.lagMs ?? 0);
  const method = String(entry.method).toUpperCase();
  const entrySegments = segments(String(entry.path));
  // A call's segments are split once (a lane's book holds every call it sent, and each new entry is matched against them).
  const named = book.calls.filter((c) => c.sentAt <= seenAt && c.method === method && pathMatches(entrySegments, (c.segments ??= segments(c.path))));
  const sameStatus = named.filter((c) => c.status === entry.status);
  const pool = sameStatus.length > 0 ? sameStatus : named;
  const owed = pool.find((c) => c.claimed < c.owed && seenAt - (c.answeredAt ?? c.sentAt) <= horizon);
  // Ledgers record a charge per call: of calls still being measured, the earliest not yet charged.
  const waiting = pool.find((c) => c.open && c.claimed === 0);
  return owed ?? waiting ?? pool[pool.length - 1];
}

function isEntry(e: unknown): e is LedgerEntry {
  const o = e as Record<string, unknown>;
  return typeof o === 'object' && o !== null && typeof o.seq === 'number' && typeof o.credits === 'number' && Number.isFinite(o.credits) && typeof o.method === 'string' && typeof o.path === 'string';
}

/** Reads the ledger's entries once (or takes `given`, just read from `start`) and attributes the new ones. */
async function read(ctx: Source, book: Book, given?: { entries: unknown; start: number }): Promise<void> {
  const start = given?.start ?? Date.now();
  const raw: unknown = given ? given.entries : await ctx.ledger.entries();
  const end = Date.now();
  // An answer that is not the protocol's ledger leaves no charge to trust: the check breaks
  // (a harness error) rather than judge a price from what it could read.
  const what = 'the usage ledger of the test-control protocol (GET /workspaces/{ws}/usage)';
  if (!Array.isArray(raw)) throw new Error(`${what} has no entries array`);
  const bad = raw.findIndex((e) => !isEntry(e));
  if (bad >= 0) throw new Error(`${what} holds an entry without a numeric seq and credits and a method and path: ${String(JSON.stringify(raw[bad])).slice(0, 200)}`);
  const entries = raw.slice().sort((a, b) => a.seq - b.seq);
  for (const entry of entries) {
    if (book.seen.has(entry.seq)) continue;
    const call = attribute(book, entry, end);
    book.seen.set(entry.seq, { entry, seenAt: end, ...(call ? { call } : {}) });
    if (!call) {
      book.unexplained++;
      continue;
    }
    call.claimed += entry.credits;
    // The previous read started after the answer and did not show it: the charge came late.
    if (call.answeredAt !== undefined && book.lastReadStart > call.answeredAt) {
      book.lateAtLeastMs = Math.max(book.lateAtLeastMs, book.lastReadStart - call.answeredAt);
      // Watched closely (reads at most 300 ms apart): the delay is known to within a read.
      if (end - book.lastReadStart <= 300) book.lagMs = Math.max(book.lagMs ?? 0, end - call.answeredAt);
    }
  }
  // Where the entries do not add up to the total, the total is read as the ledger states it.
  book.total = book.consistent === false ? await ctx.ledger.charged() : entries.reduce((s, e) => s + e.credits, 0);
  book.lastReadStart = start;
}

const sumOf = (book: Book): number => [...book.seen.values()].reduce((t, e) => t + e.entry.credits, 0);

/**
 * Whether the entries add up to the ledger's total (checked once per workspace; retried while
 * charges land). A ledger that answers both in one read and adds up there is consistent at
 * once; otherwise (or where one read disagrees, as it may while a charge lands between the two
 * figures) the entries are read between two equal totals.
 */
async function checkConsistent(ctx: Source, book: Book): Promise<boolean> {
  if (book.consistent !== undefined) return book.consistent;
  if (ctx.ledger.usage) {
    const start = Date.now();
    const u = await ctx.ledger.usage();
    await read(ctx, book, { entries: u?.entries, start });
    if (typeof u?.charged === 'number' && sumOf(book) === u.charged) return (book.consistent = true);
  }
  for (let i = 0; i < 3 && book.consistent === undefined; i++) {
    const before = await ctx.ledger.charged();
    await read(ctx, book);
    const after = await ctx.ledger.charged();
    if (before === after) book.consistent = sumOf(book) === after;
    else await sleep(50);
  }
  book.consistent ??= false;
  return book.consistent;
}

const callsOf = (book: Book, exs: readonly Exchange[]): Call[] => book.calls.filter((c) => c.ex !== undefined && exs.includes(c.ex));
const is2xx = (ex: Exchange): boolean => !!ex.response && ex.response.status >= 200 && ex.response.status < 300;

// ------------------------------------------------------------------ waiting

/**
 * Reads until the entries stop changing (see settleReads) and, with `quietMs`, have not moved for
 * that long. `justRead`: the book was read a moment ago (the last read of a watch), and that read
 * is the first of the ones that must agree.
 */
async function settle(ctx: Source, book: Book, quietMs = 0, justRead = false): Promise<void> {
  await settleReads(
    async () => (await read(ctx, book), book.seen.size),
    (a, b) => a === b,
    waitBound(ctx.run, SETTLE_MS),
    quietMs,
    justRead ? { value: book.seen.size } : undefined,
  );
}

/** Reads until `enough()` holds or `until` (epoch ms) passes (see pollUntil). Returns whether it held. */
async function watch(ctx: Source, book: Book, until: number, enough: () => boolean): Promise<boolean> {
  return (
    await pollUntil(
      () => read(ctx, book),
      () => enough(),
      until,
    )
  ).held;
}

/**
 * How long after its answer a call answered as free is watched for a wrong charge: one and a
 * half times the longest lag seen, plus 200 ms (at least QUIET_MS), within the bound; 0 while
 * the ledger has never been seen to lag.
 */
function freeWindow(ctx: Source, book: Book): number {
  return book.lagMs === undefined ? 0 : Math.min(waitBound(ctx.run, LATE_CHARGE_MS), Math.max(QUIET_MS, 1.5 * book.lagMs + 200));
}

/**
 * Why a measurement that saw no charge cannot vouch for it: the ledger has recorded a charge
 * later than the bound after its call (so this call's could still come). Undefined otherwise.
 */
function doubt(ctx: Source, book: Book): string | undefined {
  const bound = waitBound(ctx.run, LATE_CHARGE_MS);
  if (book.lateAtLeastMs <= bound) return undefined;
  return `the usage ledger has recorded a charge more than ${(book.lateAtLeastMs / 1000).toFixed(1)} s after its call's answer, beyond the wait for a charge (${describeBound(ctx.run, LATE_CHARGE_MS)}), so a charge of this call could still come`;
}

// ------------------------------------------------------------------ measurements

/**
 * The ledger before a check's first measurement. With entries that every logged call explains,
 * a read (late charges of earlier work are attributed to their calls); otherwise the total must
 * stand still for twice the lag seen (at least QUIET_MS, within the bound) so that late charges
 * of earlier work are in. Returns the charged total. Call at the start of a check that measures.
 */
async function quietLedger(ctx: Source, book: Book): Promise<number> {
  const checked = book.consistent === undefined;
  const consistent = await checkConsistent(ctx, book);
  const attributed = consistent && book.unexplained === 0;
  // The check of consistency (first in a workspace) has just read the entries: that read counts.
  await settle(ctx, book, attributed ? 0 : freeWindow(ctx, book), checked && consistent);
  return book.total;
}

/**
 * Waits until each 2xx call of `made` (billed set-up calls) has been charged (for up to the
 * bound after its answer), so that its charge cannot be taken for a later call's, then lets the
 * ledger settle. With a ledger whose entries cannot be attributed, waits instead until the
 * total has grown by one credit per 2xx call over `base`. Returns the settled total.
 */
async function chargesLanded(ctx: Source, book: Book, base: number, made: readonly Exchange[]): Promise<number> {
  const billed = made.filter(is2xx);
  const calls = callsOf(book, billed);
  for (const c of calls) c.owed = Math.max(c.owed, 1);
  const last = Math.max(0, ...calls.map((c) => c.answeredAt ?? 0));
  const until = (last || Date.now()) + waitBound(ctx.run, LATE_CHARGE_MS);
  const attributed = (await checkConsistent(ctx, book)) && calls.length === billed.length;
  const started = Date.now();
  const landed = await watch(ctx, book, until, attributed ? () => calls.every((c) => c.claimed >= c.owed) : () => book.total - base >= billed.length);
  if (landed && !attributed && Date.now() - started > 50) book.lagMs = Math.max(book.lagMs ?? 0, Date.now() - started);
  await settle(ctx, book, 0, true);
  return book.total;
}

/** What one measurement saw. */
export interface Measured<T> {
  result: T;
  /** Credits charged for the priced call(s). */
  delta: number;
  /** The ledger's total before the action and after the measurement. */
  before: number;
  after: number;
  /** The entries counted in delta. */
  entries: LedgerEntry[];
  /** How delta was found: the entries attributed to the calls, or the growth of the total. */
  basis: 'entries' | 'totals';
  /** Set when fewer credits than expected showed within the wait: the wait, for findings. */
  waited?: string;
  /** Set when no charge was seen but the ledger has lagged beyond the bound: why a "free" cannot be vouched for. */
  doubt?: string;
  /**
   * The measurement concluded: after its waits (for a deferred measurement, done now; their
   * time counts from the call's answer, so waits of several deferred measurements overlap),
   * with the ledger read again, so that charges recorded since are counted. Judge on this.
   */
  final(): Promise<Measured<T>>;
}

/** Options of a measurement. */
export interface MeasureOptions<T> {
  /** The exchanges whose price is measured (default: the result, when it is an exchange). Other calls of the action (polls) are left out. */
  priced?: (result: T) => readonly Exchange[];
  /**
   * The least the priced call should cost given its result (e.g. 1 for a 2xx of a billed
   * endpoint). While less shows, the ledger is read again up to the bound after the answer: a
   * target may record a charge well after answering, and a slow ledger must not read as a free call.
   */
  atLeast?: (result: T) => number;
  /**
   * Return at once and wait in `final()`: for checks that measure several calls one after
   * another, whose charges the entries attribute whatever their order (with totals, where
   * they cannot, the measurement waits at once anyway).
   */
  defer?: boolean;
  /**
   * What each priced call is expected to cost (e.g. 1 for a 2xx of a billed endpoint), for a
   * measurement of many calls of one endpoint: each call's charge is then attributed to it, not
   * to an earlier call of the same endpoint.
   */
  owes?: (ex: Exchange) => number;
}

/** Runs `action` and measures what its priced call(s) were charged (see the module comment). */
async function measureCharges<T>(ctx: Source, book: Book, action: () => Promise<T>, opts: MeasureOptions<T> = {}): Promise<Measured<T>> {
  const checked = book.consistent === undefined;
  const attributable = await checkConsistent(ctx, book);
  // The check of consistency (first in a workspace) has just read the entries. A deferred
  // measurement on a ledger whose every entry so far was attributed reads none before its call
  // either: its price is the entries attributed to its calls whenever they show, and the read
  // before only kept entries no call explains, of which there are none, out of its window (its
  // window stays open until it concludes, as every deferred one's does, so such an entry would
  // be counted in the measurements still open anyway).
  const readBefore = !(checked && attributable) && !(opts.defer && attributable && book.unexplained === 0 && book.lastReadStart > 0);
  if (readBefore) await read(ctx, book);
  const before = book.total;
  const mark = book.calls.length;
  const seqsBefore = new Set(book.seen.keys());
  const result = await action();
  const during = book.calls.slice(mark);
  const pricedEx = opts.priced ? opts.priced(result) : isExchange(result) ? [result] : [];
  const priced = during.filter((c) => c.ex !== undefined && pricedEx.includes(c.ex));
  const floor = opts.atLeast?.(result) ?? 0;
  // What the priced calls owe: each its own (owes), or the floor on the first.
  if (opts.owes) for (const c of priced) c.owed = Math.max(c.owed, opts.owes(c.ex!));
  else if (priced[0]) priced[0].owed = Math.max(priced[0].owed, floor);
  for (const c of priced) c.open = true;
  const answered = priced.length > 0 ? Math.max(...priced.map((c) => c.answeredAt ?? Date.now())) : Date.now();
  const windowSeqs = () => [...book.seen.keys()].filter((s) => !seqsBefore.has(s));

  // Entries that count: those of the priced calls, and those no logged call explains that
  // appeared during the measurement. With totals: the growth of the total, less the entries of
  // the action's other calls (polls, whose price is another clause's business).
  const counted = (): LedgerEntry[] => {
    const inWindow = windowSeqs().map((s) => book.seen.get(s)!);
    if (!attributable) return inWindow.filter((s) => !s.call || !during.includes(s.call) || priced.includes(s.call)).map((s) => s.entry);
    const mine = [...book.seen.values()].filter((s) => s.call !== undefined && priced.includes(s.call));
    return [...mine, ...inWindow.filter((s) => !s.call)].sort((a, b) => a.entry.seq - b.entry.seq).map((s) => s.entry);
  };
  const others = () =>
    windowSeqs()
      .map((s) => book.seen.get(s)!)
      .filter((s) => s.call && during.includes(s.call) && !priced.includes(s.call))
      .reduce((t, s) => t + s.entry.credits, 0);
  const charged = () => (attributable ? counted().reduce((t, e) => t + e.credits, 0) : book.total - before - others());

  let waited: string | undefined;
  let waitedOnce = false;
  let frozen: number | undefined;
  /** The waits: for the expected charge up to the bound after the answer, or for a wrong one during the free window. */
  const wait = async (): Promise<void> => {
    waitedOnce = true;
    // Whether a watch (which reads at least once) has just read the ledger: its last read is the
    // settle's first.
    let watched = false;
    if (floor > 0) {
      const started = Date.now();
      const landed = await watch(ctx, book, answered + waitBound(ctx.run, LATE_CHARGE_MS), () => charged() >= floor);
      watched = true;
      if (!landed) waited = `waited ${((Date.now() - answered) / 1000).toFixed(1)} s after the answer for the charge (${describeBound(ctx.run, LATE_CHARGE_MS)})`;
      else if (!attributable && Date.now() - started > 50) book.lagMs = Math.max(book.lagMs ?? 0, Date.now() - answered);
    } else {
      const window = freeWindow(ctx, book);
      if (window > 0) {
        await watch(ctx, book, answered + window, () => charged() > 0);
        watched = true;
      }
    }
    await settle(ctx, book, 0, watched);
    for (const c of priced) c.open = false;
    // A total also grows by later calls' charges: with totals, the measurement ends here.
    if (!attributable) frozen = charged();
  };
  const snapshot = (): Measured<T> => {
    const delta = frozen ?? charged();
    const why = delta === 0 ? doubt(ctx, book) : undefined;
    return {
      result,
      delta,
      before,
      after: book.total,
      entries: counted(),
      basis: attributable ? 'entries' : 'totals',
      ...(waited && delta < floor ? { waited } : {}),
      ...(why ? { doubt: why } : {}),
      async final() {
        if (!waitedOnce) await wait();
        else if (attributable) await read(ctx, book);
        return snapshot();
      },
    };
  };
  if (!(opts.defer && attributable)) await wait();
  return snapshot();
}

// ------------------------------------------------------------------ evidence

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

const entryText = (e: LedgerEntry): string => `#${e.seq} ${e.method} ${e.path} ${e.status}: ${e.credits}`;

/**
 * The evidence of a wrong charge: `clause`, the call and what the ledger did. Returned (not
 * thrown) so the caller chooses between ctx.softFail and throw.
 */
export function chargeEvidence(
  clause: string,
  ex: Exchange,
  m: Pick<Measured<unknown>, 'delta' | 'before' | 'after'> & Partial<Pick<Measured<unknown>, 'entries' | 'basis' | 'waited'>>,
  expected: readonly number[],
  context?: Exchange[],
) {
  const want = expected.map((n) => `${n} credit${n === 1 ? '' : 's'}`).join(' or ');
  const how = m.basis === 'entries' ? `was charged ${m.delta} by the usage ledger's entries for it` : `changed the usage ledger by ${m.delta}`;
  const entries = m.entries && m.entries.length > 0 ? `entries ${m.entries.map(entryText).join('; ')}` : 'no entry for it';
  return {
    clause,
    message: `${callOf(ex)} ${how}, expected ${want}${m.waited ? ` (${m.waited})` : ''}`,
    expected: `${want} charged`,
    received: `${m.delta} (${entries}; ledger total ${m.before} → ${m.after}); answer ${ex.response ? describeResponse(ex.response) : 'none'}`,
    exchange: ex,
    ...(context && context.length > 0 ? { context } : {}),
  };
}

// ------------------------------------------------------------------ the service

/** A deferred "must cost nothing" measurement ({@link LedgerService.expectFree}). */
export interface PendingFree {
  /** The call's exchange. */
  ex: Exchange;
  /** Its answer is one the clause judges (else it is only measured, so its charge is not blamed on a later call). */
  judged: boolean;
  /** Waits for the measurement to conclude (its waits and reads, once): {@link LedgerService.concludeAll} runs these side by side. */
  settled: () => Promise<void>;
  /** Waits (if not settled yet), judges (a charge is a soft finding) and returns why a "free" is in doubt, if it is. */
  conclude: () => Promise<string | undefined>;
}

/** The usage ledger of the suite's workspace as a check sees it (`ctx.ledger`). */
export interface LedgerService extends Ledger {
  /** The ledger once late charges of earlier work are in; returns the charged total. Call at the start of a check that measures. */
  quiet(): Promise<number>;
  /** Waits until each 2xx call of `made` (billed set-up calls) has been charged, then lets the ledger settle; returns the total. */
  chargesLanded(base: number, made: readonly Exchange[]): Promise<number>;
  /** Runs `action` and measures what its priced call(s) were charged (see the module comment). */
  measure<T>(action: () => Promise<T>, opts?: MeasureOptions<T>): Promise<Measured<T>>;
  /** `call` costs exactly `credits` (one of them, given several), else a Finding on `clause` with the ledger's evidence. Returns the exchange. */
  expectCharged(clause: string, credits: number | readonly number[], call: () => Promise<Exchange>, context?: Exchange[]): Promise<Exchange>;
  /**
   * Measures `call` (deferred) that must cost nothing when its status passes `judged` (default:
   * any): a charge is a soft finding on `clause`. A 2xx of a billed endpoint (`billed`, default
   * true) is expected to cost its credit. Conclude the measurements of a check together, with
   * {@link concludeAll}: their waits then overlap.
   */
  expectFree(clause: string, call: () => Promise<Exchange>, opts?: { judged?: (status: number) => boolean; billed?: boolean; context?: Exchange[] }): Promise<PendingFree>;
  /**
   * {@link expectFree} for each of `calls` (a sweep), the calls sent `n` at a time and their
   * measurements concluded together, so a target far away costs a few round trips, not a few
   * per call. The requests are those of the calls measured one after another (the call, the
   * reads that conclude it, and where the ledger has shown an entry no call explains, a read
   * before the call). When the batch comes out
   * clean (the ledger's entries attribute every charge, no judged answer was charged, every other
   * call was charged exactly what it owes, nothing unexplained or in doubt) its results are
   * those of one call at a time. Otherwise they are set aside unjudged and the calls are sent
   * and measured again one at a time (so are they on a ledger whose entries do not add up), so
   * findings and blame are exactly what a one-at-a-time sweep reports. `answered` sees every
   * exchange sent, set aside or not (to clean up what a call created). Returns one pending
   * measurement per call, in order: conclude them with {@link concludeAll}.
   */
  expectFreeEach(clause: string, calls: readonly FreeCall[], opts: { n: number; answered?: (ex: Exchange, index: number) => void }): Promise<PendingFree[]>;
  /**
   * Concludes deferred measurements: their waits and reads side by side (each waits its own
   * bound after its own answer), then each judged in order; not observable when any "free" is
   * in doubt.
   */
  concludeAll(pending: readonly PendingFree[]): Promise<void>;
}

/** One call of a sweep of free calls ({@link LedgerService.expectFreeEach}): what {@link LedgerService.expectFree} takes. */
export interface FreeCall {
  send: () => Promise<Exchange>;
  /** The answers the clause judges (default: any). */
  judged?: (status: number) => boolean;
  /** The endpoint is billed: its 2xx costs a credit (default true). */
  billed?: boolean;
  context?: Exchange[];
}

const is2xxStatus = (ex: Exchange): boolean => !!ex.response && ex.response.status >= 200 && ex.response.status < 300;

/** One suite session's book of its workspace's ledger (see the module comment). */
export class LedgerBook {
  private readonly book: Book = { calls: [], seen: new Map(), lastReadStart: 0, total: 0, unexplained: 0, lateAtLeastMs: 0 };

  constructor(private readonly src: Source) {}

  /** Logs one API call as it is sent; the returned function records its answer. The session's client calls it for every request. */
  sent(req: { method: string; path: string }): (ex: Exchange) => void {
    const call: Call = { method: req.method.toUpperCase(), path: req.path, sentAt: Date.now(), owed: 0, claimed: 0, open: false };
    this.book.calls.push(call);
    return (ex) => {
      call.ex = ex;
      call.answeredAt = Date.now();
      if (ex.response) call.status = ex.response.status;
    };
  }

  /** The charged total once `expected` credits show, or the wait for a late charge is spent; null when the ledger cannot be read. */
  async landed(expected: number): Promise<number | null> {
    try {
      return (
        await pollUntil(
          () => this.src.ledger.charged(),
          (c) => c >= expected,
          Date.now() + waitBound(this.src.run, LATE_CHARGE_MS),
        )
      ).value;
    } catch {
      return null;
    }
  }

  /** The service a check sees; `softFail` records the check's soft findings. */
  service(softFail: (e: Evidence) => void, gate: () => void = () => {}): LedgerService {
    const { book } = this;
    // The check's reads pass its gate first (a run that stops refuses them, as it does its API calls).
    const src: Source = {
      ledger: {
        charged: async () => (gate(), this.src.ledger.charged()),
        entries: async () => (gate(), this.src.ledger.entries()),
        ...(this.src.ledger.usage ? { usage: async () => (gate(), this.src.ledger.usage!()) } : {}),
      },
      run: this.src.run,
    };
    const measure = <T>(action: () => Promise<T>, opts?: MeasureOptions<T>) => measureCharges(src, book, action, opts);
    /** The least a free call is expected to cost: a 2xx of a billed endpoint owes its credit. */
    const freeFloor =
      (c: Pick<FreeCall, 'billed'>) =>
      (ex: Exchange): number =>
        (c.billed ?? true) && is2xxStatus(ex) ? 1 : 0;
    const isJudged = (ex: Exchange, c: Pick<FreeCall, 'judged'>): boolean => ex.response !== undefined && (c.judged ?? (() => true))(ex.response.status);
    /** Judges a concluded "must cost nothing" measurement: a charge is a soft finding on `clause`; returns why a "free" is in doubt, if it is. */
    const judgeFree = async (clause: string, f: Measured<Exchange>, context?: Exchange[]): Promise<string | undefined> => {
      if (f.delta !== 0) softFail(chargeEvidence(clause, f.result, f, [0], context));
      else if (!f.doubt) judged(clause);
      return f.delta === 0 && f.doubt ? `${callOf(f.result)} showed no charge, but ${f.doubt}` : undefined;
    };
    const service: LedgerService = {
      charged: () => src.ledger.charged(),
      entries: () => src.ledger.entries(),
      quiet: () => quietLedger(src, book),
      chargesLanded: (base, made) => chargesLanded(src, book, base, made),
      measure,
      async expectCharged(clause, credits, call, context) {
        const want = typeof credits === 'number' ? [credits] : [...credits];
        const m = await (await measure(call, { atLeast: (ex) => (is2xxStatus(ex) ? Math.min(...want) : 0) })).final();
        if (!want.includes(m.delta)) throw new Finding(chargeEvidence(clause, m.result, m, want, context));
        if (m.delta === 0 && m.doubt) throw new NotObservable(`${callOf(m.result)} showed no charge, but ${m.doubt}`);
        judged(clause);
        return m.result;
      },
      async expectFree(clause, call, opts = {}) {
        const m = await measure(call, { atLeast: freeFloor(opts), defer: true });
        let final: Promise<Measured<Exchange>> | undefined;
        const settled = () => (final ??= m.final());
        if (!isJudged(m.result, opts)) return { ex: m.result, judged: false, settled: async () => void (await settled()), conclude: async () => void (await settled()) };
        return { ex: m.result, judged: true, settled: async () => void (await settled()), conclude: async () => judgeFree(clause, await settled(), opts.context) };
      },
      async expectFreeEach(clause, calls, opts) {
        const sendOf = (c: FreeCall, i: number) => async () => {
          const ex = await c.send();
          opts.answered?.(ex, i);
          return ex;
        };
        const oneAtATime = async (): Promise<PendingFree[]> => {
          const out: PendingFree[] = [];
          for (const [i, c] of calls.entries()) out.push(await service.expectFree(clause, sendOf(c, i), c));
          return out;
        };
        // With totals, a measurement ends before the next call is sent (measureCharges): one at a time.
        if (calls.length < 2 || !(await checkConsistent(src, book))) return oneAtATime();
        const seqsBefore = new Set(book.seen.keys());
        const unexplained = book.unexplained;
        const sent = await inParallel(calls, opts.n, (c, i) => measure(sendOf(c, i), { atLeast: freeFloor(c), defer: true }));
        const finals = await inParallel(sent, opts.n, (m) => m.final());
        // What the ledger recorded meanwhile, but charges of earlier calls attributed to them (as one at a time would).
        const batch = new Set(
          callsOf(
            book,
            finals.map((f) => f.result),
          ),
        );
        const grown = [...book.seen.values()].filter((s) => !seqsBefore.has(s.entry.seq) && (!s.call || batch.has(s.call))).reduce((t, s) => t + s.entry.credits, 0);
        const clean =
          book.unexplained === unexplained &&
          grown === finals.reduce((t, f) => t + f.delta, 0) &&
          finals.every((f, i) => !f.doubt && f.delta === freeFloor(calls[i]!)(f.result) && !(f.delta !== 0 && isJudged(f.result, calls[i]!)));
        if (!clean) {
          // Something moved: what a call at a time reports, after the batch's late charges are in.
          await quietLedger(src, book);
          return oneAtATime();
        }
        return finals.map((f, i) => {
          const judged = isJudged(f.result, calls[i]!);
          return { ex: f.result, judged, settled: async () => undefined, conclude: async () => (judged ? judgeFree(clause, f, calls[i]!.context) : undefined) };
        });
      },
      async concludeAll(pending) {
        await inParallel(pending, pending.length, (p) => p.settled());
        const doubts: string[] = [];
        for (const p of pending) {
          const d = await p.conclude();
          if (d) doubts.push(d);
        }
        if (doubts.length > 0) throw new NotObservable(doubts.join('; '));
      },
    };
    return service;
  }
}
