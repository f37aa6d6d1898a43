/**
 * Ledger measurements for the billing suite: what a call was charged, read from the usage
 * ledger of the suite's workspace (test-control protocol).
 *
 * The seed sets no time for a charge to show in the ledger, and a target may record usage
 * through a queue. So a measurement does not take the growth of the ledger's total around a
 * call as the call's price: a charge of an earlier call recorded late would then be blamed on
 * the next call (a free call read as billed), and would hide that call's own missing charge.
 * Instead every call a billing check sends is logged ({@link billingContext}), and each ledger
 * entry (method, path, status, seq: control protocol) is attributed to the call it names (a
 * call of that method and path, and status where one matches): the earliest such call still
 * owed a charge; else, ledgers recording a charge per call, the earliest still being measured
 * and not yet charged; else the latest. A call's price is the credits of the entries attributed
 * to it. Entries no logged call explains are counted in the measurement during which they
 * appear (as a total would be).
 * Where the ledger's entries do not add up to its total, measurements fall back to totals.
 *
 * Waits: for a charge a call is expected to incur, up to LATE_CHARGE_MS after its answer; for a
 * free call, once the ledger has been seen to lag, one and a half times the lag seen (at least
 * QUIET_MS) so a wrong charge has time to show; both at most the bound, which the run's
 * --patience multiplies. A free call seen uncharged on a ledger that has recorded a charge later
 * than the bound is not vouched for (Measured.doubt). Measurements of several calls may be
 * deferred and concluded together, so that their waits overlap.
 */
import type { CheckContext, LedgerEntry } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { describeBound, LEDGER_LAG_MS, waitBound } from '../../src/engine/waits.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { usableResponses } from './ops-usable.ts';

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

// ------------------------------------------------------------------ the book of calls and entries

/** One API call a billing check sent in the workspace. */
interface Call {
  ex?: Exchange;
  method: string;
  /** The API path without query, e.g. "/definitions/<id>". */
  path: string;
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

/** What the suite knows of its workspace's ledger. Module state on purpose: a suite's checks share the workspace and run one after another. */
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

const books = new Map<string, Book>();

function bookOf(ctx: CheckContext): Book {
  let book = books.get(ctx.workspaceId);
  if (!book) {
    book = { calls: [], seen: new Map(), lastReadStart: 0, total: 0, unexplained: 0, lateAtLeastMs: 0 };
    books.set(ctx.workspaceId, book);
  }
  return book;
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

/** The entry's path names the call's: it ends with the call's segments (a prefix such as /api/v1 aside; a {param} or :param segment matches any). */
function pathMatches(entryPath: string, callPath: string): boolean {
  const e = segments(entryPath);
  const c = segments(callPath);
  if (c.length === 0 || e.length < c.length) return false;
  const tail = e.slice(e.length - c.length);
  return tail.every((s, i) => s === c[i] || /^(\{[^}]*\}|:.+|\*)$/.test(s));
}

/** The call an entry first seen at `seenAt` belongs to (see the module comment), if any. */
function attribute(book: Book, entry: LedgerEntry, seenAt: number): Call | undefined {
  const horizon = 10 * Math.max(LATE_CHARGE_MS, book.lagMs ?? 0);
  const named = book.calls.filter((c) => c.sentAt <= seenAt && c.method === String(entry.method).toUpperCase() && pathMatches(String(entry.path), c.path));
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

/** Reads the ledger's entries once and attributes the new ones. */
async function read(ctx: CheckContext, book: Book): Promise<void> {
  const start = Date.now();
  const raw = await ctx.ledger.entries();
  const end = Date.now();
  const entries = (Array.isArray(raw) ? raw : []).filter(isEntry).sort((a, b) => a.seq - b.seq);
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

/** Whether the entries add up to the ledger's total (checked once per workspace; retried while charges land). */
async function checkConsistent(ctx: CheckContext, book: Book): Promise<boolean> {
  if (book.consistent !== undefined) return book.consistent;
  for (let i = 0; i < 3 && book.consistent === undefined; i++) {
    const before = await ctx.ledger.charged();
    await read(ctx, book);
    const after = await ctx.ledger.charged();
    if (before === after) book.consistent = [...book.seen.values()].reduce((t, e) => t + e.entry.credits, 0) === after;
    else await sleep(50);
  }
  book.consistent ??= false;
  return book.consistent;
}

/**
 * `ctx` for a billing check: every API call it sends (clean-up included) is logged, so that
 * ledger entries can be attributed to calls, and its calls get usable responses
 * ({@link usableResponses}) with `clause` as the check's main clause.
 */
export function billingContext(ctx: CheckContext, clause: string): CheckContext {
  const inner = ctx.api;
  const logged = Object.create(ctx, {
    api: {
      enumerable: true,
      value: {
        async send(req: Parameters<typeof inner.send>[0]) {
          const call: Call = { method: req.method.toUpperCase(), path: req.path, sentAt: Date.now(), owed: 0, claimed: 0, open: false };
          // The workspace id may need the control protocol; without it there is no ledger to attribute.
          let book: Book | undefined;
          try {
            book = bookOf(ctx);
          } catch {
            book = undefined;
          }
          book?.calls.push(call);
          const ex = await inner.send(req);
          call.ex = ex;
          call.answeredAt = Date.now();
          if (ex.response) call.status = ex.response.status;
          return ex;
        },
      },
    },
  }) as CheckContext;
  return usableResponses(logged, clause);
}

const callsOf = (book: Book, exs: readonly Exchange[]): Call[] => book.calls.filter((c) => c.ex !== undefined && exs.includes(c.ex));
const is2xx = (ex: Exchange): boolean => !!ex.response && ex.response.status >= 200 && ex.response.status < 300;

// ------------------------------------------------------------------ waiting

/** The total once two reads `wait` apart agree (wait doubling from 10 ms to 80 ms) and, with `quietMs`, it has not moved for that long; or the time is spent. */
async function settle(ctx: CheckContext, book: Book, quietMs = 0): Promise<void> {
  const deadline = Date.now() + Math.max(waitBound(ctx.run, SETTLE_MS), 2 * quietMs);
  await read(ctx, book);
  let last = book.seen.size;
  let since = Date.now();
  for (let wait = 10; ; wait = Math.min(wait * 2, 80)) {
    await sleep(wait);
    await read(ctx, book);
    if ((book.seen.size === last && Date.now() - since >= quietMs) || Date.now() + wait > deadline) return;
    if (book.seen.size !== last) since = Date.now();
    last = book.seen.size;
  }
}

/** Reads until `enough()` holds or `until` (epoch ms) passes, backing off from 25 ms to 200 ms. Returns whether it held. */
async function watch(ctx: CheckContext, book: Book, until: number, enough: () => boolean): Promise<boolean> {
  await read(ctx, book);
  for (let wait = 25; !enough(); wait = Math.min(wait * 2, 200)) {
    if (Date.now() + wait > until) return false;
    await sleep(wait);
    await read(ctx, book);
  }
  return true;
}

/**
 * How long after its answer a call answered as free is watched for a wrong charge: one and a
 * half times the longest lag seen, plus 200 ms (at least QUIET_MS), within the bound; 0 while
 * the ledger has never been seen to lag.
 */
function freeWindow(ctx: CheckContext, book: Book): number {
  return book.lagMs === undefined ? 0 : Math.min(waitBound(ctx.run, LATE_CHARGE_MS), Math.max(QUIET_MS, 1.5 * book.lagMs + 200));
}

/**
 * Why a measurement that saw no charge cannot vouch for it: the ledger has recorded a charge
 * later than the bound after its call (so this call's could still come). Undefined otherwise.
 */
function doubt(ctx: CheckContext, book: Book): string | undefined {
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
export async function quietLedger(ctx: CheckContext): Promise<number> {
  const book = bookOf(ctx);
  const attributed = (await checkConsistent(ctx, book)) && book.unexplained === 0;
  await settle(ctx, book, attributed ? 0 : freeWindow(ctx, book));
  return book.total;
}

/**
 * Waits until each 2xx call of `made` (billed set-up calls) has been charged (for up to the
 * bound after its answer), so that its charge cannot be taken for a later call's, then lets the
 * ledger settle. With a ledger whose entries cannot be attributed, waits instead until the
 * total has grown by one credit per 2xx call over `base`. Returns the settled total.
 */
export async function chargesLanded(ctx: CheckContext, base: number, made: readonly Exchange[]): Promise<number> {
  const book = bookOf(ctx);
  const billed = made.filter(is2xx);
  const calls = callsOf(book, billed);
  for (const c of calls) c.owed = Math.max(c.owed, 1);
  const last = Math.max(0, ...calls.map((c) => c.answeredAt ?? 0));
  const until = (last || Date.now()) + waitBound(ctx.run, LATE_CHARGE_MS);
  const attributed = (await checkConsistent(ctx, book)) && calls.length === billed.length;
  const started = Date.now();
  const landed = await watch(ctx, book, until, attributed ? () => calls.every((c) => c.claimed >= c.owed) : () => book.total - base >= billed.length);
  if (landed && !attributed && Date.now() - started > 50) book.lagMs = Math.max(book.lagMs ?? 0, Date.now() - started);
  await settle(ctx, book);
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
}

/** Runs `action` and measures what its priced call(s) were charged (see the module comment). */
export async function measureCharges<T>(ctx: CheckContext, action: () => Promise<T>, opts: MeasureOptions<T> = {}): Promise<Measured<T>> {
  const book = bookOf(ctx);
  const attributable = await checkConsistent(ctx, book);
  await read(ctx, book);
  const before = book.total;
  const mark = book.calls.length;
  const seqsBefore = new Set(book.seen.keys());
  const result = await action();
  const during = book.calls.slice(mark);
  const pricedEx = opts.priced ? opts.priced(result) : isExchange(result) ? [result] : [];
  const priced = during.filter((c) => c.ex !== undefined && pricedEx.includes(c.ex));
  const floor = opts.atLeast?.(result) ?? 0;
  if (priced[0]) priced[0].owed = Math.max(priced[0].owed, floor);
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
  const others = () => windowSeqs().map((s) => book.seen.get(s)!).filter((s) => s.call && during.includes(s.call) && !priced.includes(s.call)).reduce((t, s) => t + s.entry.credits, 0);
  const charged = () => (attributable ? counted().reduce((t, e) => t + e.credits, 0) : book.total - before - others());

  let waited: string | undefined;
  let waitedOnce = false;
  let frozen: number | undefined;
  /** The waits: for the expected charge up to the bound after the answer, or for a wrong one during the free window. */
  const wait = async (): Promise<void> => {
    waitedOnce = true;
    if (floor > 0) {
      const started = Date.now();
      const landed = await watch(ctx, book, answered + waitBound(ctx.run, LATE_CHARGE_MS), () => charged() >= floor);
      if (!landed) waited = `waited ${((Date.now() - answered) / 1000).toFixed(1)} s after the answer for the charge (${describeBound(ctx.run, LATE_CHARGE_MS)})`;
      else if (!attributable && Date.now() - started > 50) book.lagMs = Math.max(book.lagMs ?? 0, Date.now() - answered);
    } else {
      const window = freeWindow(ctx, book);
      if (window > 0) await watch(ctx, book, answered + window, () => charged() > 0);
    }
    await settle(ctx, book);
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

function isExchange(v: unknown): v is Exchange {
  const o = v as Exchange;
  return typeof o === 'object' && o !== null && typeof o.id === 'string' && typeof o.request === 'object' && o.request !== null;
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
