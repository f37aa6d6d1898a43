/**
 * Fixtures for catalog operations (seed 4.8) shared by the operations and billing suites:
 * control-made accounts and account people, the graph.apply_update body the seed shows, a
 * submitter that always sends an Idempotency-Key, receipt polling, and the agent-preview quote
 * searched anywhere in the answer and the polled receipt (receipt shapes are not shown).
 */
import { randomUUID } from 'node:crypto';
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from './definitions.ts';
import { findObjects, isObject } from './json.ts';
import { findResourceId, pollUntil, receiptProgress } from './receipts.ts';

/**
 * Registers the archive of a definition that a POST /definitions created (a write that should
 * have been refused, or a setup write), so the workspace stays clean whatever the target did.
 */
export function archiveIfCreated(ctx: CheckContext, key: KeyHandle, ex: Exchange): void {
  const body = ex.response?.json;
  const isCreate = ex.request.method === 'POST' && /\/definitions(\?|$)/.test(ex.request.url);
  if (!isCreate || !is2xx(ex) || !isObject(body) || typeof body.id !== 'string') return;
  const id = body.id;
  ctx.cleanup(async () => void (await ctx.api.send({ method: 'POST', path: `/definitions/${encodeURIComponent(id)}/archive`, key, body: { reason: 'conformance run clean-up' } })));
}

/** A stored account with one person, made through the control protocol. */
export interface AccountFixture {
  accountId: string;
  personId: string;
  /** The account-membership record id (the id graph.apply_update addresses). */
  accountPersonId: string;
}

/** Creates an account with one person in the suite's workspace (control; never billed). */
export async function makeAccount(ctx: CheckContext, hint = 'acct'): Promise<AccountFixture> {
  const ws = ctx.workspaceId;
  const { accountId } = await ctx.control.createAccount(ws, { name: `${ctx.run.prefix}${hint}`, domain: `${hint}.example.com` });
  const { personId, accountPersonId } = await ctx.control.createPerson(ws, accountId, { name: `${ctx.run.prefix}person`, title: 'before' });
  return { accountId, personId, accountPersonId };
}

/** Creates `n` bare accounts (control), for agent scopes of a given size. */
export async function makeAccounts(ctx: CheckContext, n: number): Promise<string[]> {
  const ids: string[] = [];
  // Sequential: a control surface owes no concurrency, and n is small.
  for (let i = 0; i < n; i++) ids.push((await ctx.control.createAccount(ctx.workspaceId, { name: `${ctx.run.prefix}scope-${i}` })).accountId);
  return ids;
}

/**
 * Credits of one accepted graph.agent_preview or graph.agent_run on the reference target: the
 * call's one credit, which is also the fee the reference quotes (apiPreviewCredits,
 * apiSubmissionCredits). Seed part 8 billing rule 4 leaves how the quoted fee is charged to the
 * target; another conformant target may charge it on top of the call, as an entry of its own.
 */
export const AGENT_CALL_CREDITS = 1;
/**
 * The most one accepted agent preview or run is planned to cost (the ceiling checks declare):
 * the call and a quoted fee of up to two credits charged on top. The seed does not bound the
 * fee; a target quoting more exceeds the ceilings of the checks that preview or run.
 */
export const AGENT_CALL_MAX_CREDITS = 3;

/** A fresh Idempotency-Key: visible ASCII, well under 128 characters, unique per call. */
export const idempotencyKey = (ctx: CheckContext): string => `${ctx.run.prefix}${randomUUID()}`;

/** The person_field change of seed 4.8: the title of an account-membership record. */
export function titleChange(accountPersonId: string, after: string): Record<string, unknown> {
  return { kind: 'person_field', target_label: 'Title', person_id: accountPersonId, field: 'title', after };
}

/** The POST /operations body of seed 4.8 for a person_field change on an account-membership record. */
export function applyUpdateBody(fx: AccountFixture, after = 'x'): Record<string, unknown> {
  return {
    operation: 'graph.apply_update',
    reason: 'conformance check: explicit title edit',
    arguments: {
      customer_id: fx.accountId,
      summary: 'Set the title of one contact',
      changes: [titleChange(fx.accountPersonId, after)],
    },
  };
}

/** The graph.agent_preview body of seed 4.8 with explicit account ids. */
export function agentPreviewBody(customerIds: readonly string[]): Record<string, unknown> {
  return { operation: 'graph.agent_preview', reason: 'conformance check: quote a batch', arguments: { customerIds: [...customerIds] } };
}

/** Submits a catalog operation with a fresh Idempotency-Key (seed 4.8 asks for one). */
export function submitOperation(ctx: CheckContext, key: KeyHandle, body: Record<string, unknown>): Promise<Exchange> {
  return ctx.api.send({ method: 'POST', path: '/operations', key, body, idempotencyKey: idempotencyKey(ctx) });
}

/** The path of a receipt, or undefined when the answer names no id. */
export function receiptPath(ex: Exchange): string | undefined {
  const id = findResourceId(ex);
  return id === undefined ? undefined : `/operations/${encodeURIComponent(id)}`;
}

/**
 * Polls a receipt until it answers 2xx (or `done` holds, when given) within `budgetMs` (the
 * suite's assumed bound, 2 s unless given; the run's --patience multiplies it), the wait
 * between polls doubling up to `maxWaitMs`. Undefined when the submission named no receipt id.
 */
export async function pollReceipt(
  ctx: CheckContext,
  key: KeyHandle,
  submitted: Exchange,
  opts: { budgetMs?: number; maxWaitMs?: number; done?: (ex: Exchange) => boolean } = {},
): Promise<{ last: Exchange; polls: Exchange[]; satisfied: boolean } | undefined> {
  const path = receiptPath(submitted);
  if (path === undefined) return undefined;
  const done = opts.done ?? is2xx;
  return pollUntil(ctx, key, path, (ex) => done(ex), opts.budgetMs ?? 2_000, opts.maxWaitMs);
}

/** The quote fields of a graph.agent_preview (seed 4.8): three credit figures and two labels. */
export const QUOTE_NUMBERS = ['modelCreditCeiling', 'apiPreviewCredits', 'apiSubmissionCredits'] as const;
export const QUOTE_STRINGS = ['analysisLabel', 'model'] as const;
export const QUOTE_FIELDS = [...QUOTE_NUMBERS, ...QUOTE_STRINGS] as const;
export type QuoteField = (typeof QUOTE_FIELDS)[number];
export type Quote = Partial<Record<QuoteField, unknown>>;

/**
 * A quote field counts only with a value: a receipt of fixed layout may carry the fields as
 * null (or leave them undefined) until the preview has run, and that is no quote yet.
 */
const valued = (o: Record<string, unknown>, f: QuoteField): boolean => o[f] !== undefined && o[f] !== null;

/**
 * The quote fields found in JSON bodies, searched anywhere; only fields with a non-null value
 * count. The object holding the most valued quote fields wins (a quote is usually one
 * object), so an unrelated "model" elsewhere in a receipt does not shadow the quote's own.
 */
export function findQuote(...bodies: unknown[]): Quote {
  const count = (o: Record<string, unknown>) => QUOTE_FIELDS.filter((f) => valued(o, f)).length;
  const holders = bodies.flatMap((b) => findObjects(b, (o) => count(o) > 0));
  holders.sort((a, b) => count(b) - count(a));
  const out: Quote = {};
  for (const h of holders) for (const f of QUOTE_FIELDS) if (!(f in out) && valued(h, f)) out[f] = h[f];
  return out;
}

/** True when any of the credit figures of a quote has a value (a preview was priced). */
export function isQuoted(quote: Quote): boolean {
  return QUOTE_NUMBERS.some((f) => valued(quote, f));
}

/** True when every quote field has a value. */
export const isFullyQuoted = (quote: Quote): boolean => QUOTE_FIELDS.every((f) => valued(quote, f));

/** The JSON body of an exchange when it is an object or array, else undefined. */
export function jsonOf(ex: Exchange | undefined): unknown {
  const j = ex?.response?.isJson ? ex.response.json : undefined;
  return isObject(j) || Array.isArray(j) ? j : undefined;
}

/** How long a preview's receipt is polled for its quote at first (the suite's bound; --patience multiplies it). */
export const QUOTE_WAIT_MS = 3_000;
/** How long OPS-004, OPS-005 and BILL-011 then wait for a pollable receipt to show its quote before concluding. */
export const QUOTE_PATIENCE_MS = 15_000;
/** The whole wait for a quote, for findings (describeBound). */
export const QUOTE_BOUND_MS = QUOTE_WAIT_MS + QUOTE_PATIENCE_MS;

/** What {@link previewAndQuote} saw. */
export interface PreviewSeen {
  submitted: Exchange;
  polls: Exchange[];
  quote: Quote;
  receiptFound: boolean;
  /** The answer or a poll showed the preview finished (receiptProgress: terminal). */
  finished: boolean;
  waitedMs: number;
}

/**
 * Submits an agent preview and searches its quote in the answer and then in the polled
 * receipt, until `until` holds of the quote (default: every field valued), or, with
 * `stopWhenFinished`, the receipt shows it finished; or the time runs out. Returns what was seen.
 *
 * Execution may complete asynchronously (seed 4.8) and receipt states are not shown, so a
 * receipt that answers 2xx without the quote yet may simply not be done. The receipt is polled
 * for `budgetMs` (default {@link QUOTE_WAIT_MS}) and, with `patienceMs`, while it answers 2xx,
 * that much longer (backing off to one poll a second) before the caller concludes: a slow
 * conformant server is not failed, and a fast one costs nothing. Both are the suite's bounds:
 * the run's --patience multiplies them.
 */
export async function previewAndQuote(
  ctx: CheckContext,
  key: KeyHandle,
  customerIds: readonly string[],
  opts: { budgetMs?: number; patienceMs?: number; until?: (q: Quote) => boolean; stopWhenFinished?: boolean } = {},
): Promise<PreviewSeen> {
  const started = Date.now();
  const until = opts.until ?? isFullyQuoted;
  const submitted = await submitOperation(ctx, key, agentPreviewBody(customerIds));
  let quote = findQuote(jsonOf(submitted));
  const finishedIn = (ex: Exchange) => is2xx(ex) && receiptProgress(jsonOf(ex)) === 'terminal';
  let finished = finishedIn(submitted);
  const seen = (polls: Exchange[]): PreviewSeen => ({ submitted, polls, quote, receiptFound: receiptPath(submitted) !== undefined, finished, waitedMs: Date.now() - started });
  if (!is2xx(submitted) || until(quote) || (opts.stopWhenFinished && finished)) return seen([]);
  const done = (ex: Exchange) => is2xx(ex) && (until(findQuote(jsonOf(submitted), jsonOf(ex))) || (opts.stopWhenFinished === true && finishedIn(ex)));
  const polled = await pollReceipt(ctx, key, submitted, { budgetMs: opts.budgetMs ?? QUOTE_WAIT_MS, done });
  const polls = polled?.polls ?? [];
  // A pollable receipt without the quote yet: wait longer when asked to.
  if (polled && !polled.satisfied && is2xx(polled.last) && (opts.patienceMs ?? 0) > 0) {
    polls.push(...(await pollReceipt(ctx, key, submitted, { budgetMs: opts.patienceMs, maxWaitMs: 1_000, done }))!.polls);
  }
  quote = findQuote(jsonOf(submitted), ...polls.map(jsonOf));
  finished ||= polls.some(finishedIn);
  return seen(polls);
}
