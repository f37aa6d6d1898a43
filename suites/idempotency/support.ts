/**
 * Request building and readers shared by the idempotency checks: fresh keys, "is the key the
 * reason it failed?", replay comparison, and the bookkeeping that shows whether a mutation
 * happened (definitions counted by name, one definition read before and after).
 */
import { randomUUID } from 'node:crypto';
import type { ApiRequest, CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { expectResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable, type Evidence } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { documentedBody } from '../_shared/documented.ts';
import { comparableRenderings, is2xx, minimalCreateBody, uniqueName } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { findDefinition, idsWhere, walkOrNotObservable, WALK_MAX_PAGES } from '../_shared/paging-walk.ts';

/**
 * Statuses that would judge the request itself (invalid, unauthenticated, forbidden, unknown):
 * wrong for a copy of a valid request that another copy got through with. Any other 4xx may
 * refuse a copy sent while the first is in flight: 4.1 says nothing of concurrent requests, so
 * besides the table's 409 and 429 a locking server may answer 423 or 425 (outside the table,
 * with defined false, which the errors suite judges on every error body it sees).
 */
export const NOT_A_CONCURRENCY_REFUSAL: readonly number[] = [401, 403, 404, ...INVALID_STATUSES];
/** Whether `status` may refuse a copy sent while the first is in flight (IDEM-008's readings). */
export const concurrencyRefusal = (status: number): boolean => status >= 400 && status < 500 && !NOT_A_CONCURRENCY_REFUSAL.includes(status);

/** The one cast member of the suite. */
export const ADMIN = 'admin';

/**
 * One-character Idempotency-Keys kept for key-bounds-every-endpoint, one per endpoint it drives
 * (keys.ts never uses them): a one-character key cannot be made unique, and reused on another
 * endpoint it would be a conflict (409), not the first use the check needs.
 */
export const SHORT_KEYS: readonly string[] = ['W', 'X', 'Y', 'Z'];

/** A fresh Idempotency-Key (visible ASCII, < 128): run prefix, tag and a random part, so runs never collide. */
export function freshKey(ctx: CheckContext, tag: string): string {
  return `${ctx.run.prefix}${tag}-${randomUUID()}`;
}

/** Nesting beyond which a body is compared as text (a hostile body must not overflow the stack). */
const MAX_DEPTH = 200;

/**
 * JSON with object keys sorted at every depth: two bodies are deep-equal when these match.
 * Undefined for values nested deeper than MAX_DEPTH.
 */
export function canonical(v: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (Array.isArray(v)) {
    const parts = v.map((x) => canonical(x, depth + 1));
    return parts.includes(undefined) ? undefined : `[${parts.join(',')}]`;
  }
  if (isObject(v)) {
    const parts = Object.keys(v)
      .sort()
      .map((k) => {
        const c = canonical(v[k], depth + 1);
        return c === undefined ? undefined : `${JSON.stringify(k)}:${c}`;
      });
    return parts.includes(undefined) ? undefined : `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

/**
 * Deep equality of two answer bodies in what the document defines of them (documentedBody: a
 * field of the server's own, a request id say, may differ between an answer and its replay), as
 * text when too deep to compare structurally.
 */
export function sameJson(a: unknown, b: unknown, textA = '', textB = ''): boolean {
  const x = canonical(documentedBody(a));
  const y = canonical(documentedBody(b));
  return x !== undefined && y !== undefined ? x === y : textA === textB;
}

/** The answer as evidence text: status and canonical JSON (or text). */
export function answerOf(ex: Exchange): string {
  const r = ex.response;
  if (!r) return `no response (${ex.error?.kind ?? 'unknown'})`;
  const text = (r.isJson ? canonical(r.json) : undefined) ?? r.text;
  return `${r.status} ${text.length > 400 ? `${text.slice(0, 400)}… (${text.length} chars)` : text}`;
}

const clip = (s: string, max = 1000): string => (s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s);

/** Same status and deep-equal JSON body. */
export function sameAnswer(a: Exchange, b: Exchange): boolean {
  const x = a.response;
  const y = b.response;
  if (!x || !y || x.status !== y.status || x.isJson !== y.isJson) return false;
  return x.isJson ? sameJson(x.json, y.json, x.text, y.text) : x.text === y.text;
}

/**
 * Sends a mutation under an Idempotency-Key and returns its 2xx exchange. When it is not
 * accepted, the same request without the key tells why: accepted then, the key was refused
 * (an IDEM-001 finding); refused too, the request itself is what the target refuses, so the
 * clause cannot be observed with it. `onAccepted` registers clean-up for what got created.
 */
export async function sendAccepted(
  ctx: CheckContext,
  req: ApiRequest & { idempotencyKey: string },
  withoutKey: () => ApiRequest,
  onAccepted: (ex: Exchange) => void = () => undefined,
): Promise<Exchange> {
  const ex = await ctx.api.send(req);
  expectResponse('IDEM-001', ex);
  // Accepted, or (refused) the plain request below says whether the key was the reason.
  ctx.judged('IDEM-001');
  if (is2xx(ex)) {
    onAccepted(ex);
    return ex;
  }
  const plain = await ctx.api.send(withoutKey());
  if (is2xx(plain)) {
    onAccepted(plain);
    throw new Finding({
      clause: 'IDEM-001',
      message: `${req.method} ${req.path} with a valid Idempotency-Key was refused, and succeeded without it`,
      expected: 'the call succeeds as it would without the key',
      received: answerOf(ex),
      exchange: ex,
      context: [plain],
    });
  }
  throw new NotObservable(`${req.method} ${req.path} is refused with and without an Idempotency-Key (${answerOf(ex)} / ${answerOf(plain)}), so the suite could not form an accepted request`);
}

/** Records an IDEM-002 finding (without stopping) when the replay is not the original answer. */
export function judgeReplay(ctx: CheckContext, original: Exchange, replay: Exchange, clause = 'IDEM-002'): boolean {
  ctx.judged(clause);
  if (sameAnswer(original, replay)) return true;
  ctx.softFail({
    clause,
    message: 'a repeat with the same Idempotency-Key and input did not return the original status and body',
    expected: answerOf(original),
    received: answerOf(replay),
    exchange: replay,
    context: [original],
  });
  return false;
}

/** Ids (lower-case) of the live (listed by default) definitions with one of these exact names, from a full bounded walk. */
export async function liveIdsNamed(ctx: CheckContext, key: KeyHandle, names: string | readonly string[]): Promise<string[]> {
  const walk = await walkOrNotObservable(ctx, key);
  return [...new Set((typeof names === 'string' ? [names] : names).flatMap((n) => idsWhere(walk.items, 'name', n)))];
}

/** Registers the archive of each definition as clean-up (one billed call each, 2xx or not). */
export function archiveLater(ctx: CheckContext, key: KeyHandle, ids: readonly string[]): void {
  for (const id of ids) {
    ctx.cleanup(async () => {
      await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'conformance run clean-up' } });
    });
  }
}

/** The id of the Definition in a 2xx answer, if any. */
export function createdId(ex: Exchange): string | undefined {
  const body = ex.response?.json;
  return is2xx(ex) && isObject(body) && typeof body.id === 'string' ? body.id : undefined;
}

/**
 * Fields a server may own and change in the background (credit estimates are "not shown" by the
 * seed): left out when comparing a definition across a replay. The state and what moves with
 * it are compared as comparableRenderings.
 */
const BACKGROUND_FIELDS = new Set(['est_credits_low', 'est_credits_high', 'last_run_credits']);

interface Read {
  item: Record<string, unknown>;
  exchange?: Exchange;
}

/** One rendering of a definition against another, as canonical JSON texts. */
function texts(a: Read, b: Read): [string, string] {
  const kept = (d: Record<string, unknown>) => Object.fromEntries(Object.entries(d).filter(([k]) => !BACKGROUND_FIELDS.has(k)));
  const [x, y] = comparableRenderings(a.item, b.item);
  return [canonical(kept(x)) ?? '', canonical(kept(y)) ?? ''];
}

const differ = (a: Read, b: Read): boolean => {
  const [x, y] = texts(a, b);
  return x !== y;
};

/**
 * Reads one definition as listed around `action` and reports (as evidence for `clause`) a
 * difference. Two reads before the action must agree (else something else is changing it and
 * the clause is not observable), and a difference after it is only blamed on the action when a
 * further read with nothing sent in between agrees: a listing that changes what it lists makes
 * the comparison meaningless.
 */
export async function changeAround(
  ctx: CheckContext,
  key: KeyHandle,
  id: string,
  includeArchived: boolean,
  clause: string,
  action: () => Promise<Exchange>,
): Promise<{ result: Exchange; change?: Evidence }> {
  const read = async (): Promise<Read> => {
    const found = await findDefinition(ctx, key, id, includeArchived);
    if (!found.item) throw new NotObservable(`definition ${id} is not listed${includeArchived ? ' with includeArchived=true' : ''}, so its state cannot be compared`);
    return { item: found.item, ...(found.exchange ? { exchange: found.exchange } : {}) };
  };
  const unstable = 'two reads of the definition with nothing sent in between differ (the listing or the server changes it), so a change cannot be attributed';
  const first = await read();
  const before = await read();
  if (differ(first, before)) throw new NotObservable(unstable);
  const result = await action();
  const after = await read();
  ctx.judged(clause);
  if (!differ(before, after)) return { result };
  const again = await read();
  if (differ(after, again)) throw new NotObservable(unstable);
  const context = [before.exchange, after.exchange].filter((e): e is Exchange => e !== undefined);
  const [was, is] = texts(before, after);
  return {
    result,
    change: { clause, message: 'the definition changed across the replay', expected: clip(was), received: clip(is), exchange: result, context },
  };
}

/** Billed reads changeAround makes on a conformant target (three probes of one page each). */
export const CHANGE_AROUND_CREDITS = 3;
/** The most changeAround may cost: each probe followed by a bounded walk where a target refuses the probe's cursor (findDefinition). */
export const CHANGE_AROUND_MAX_CREDITS = 3 * (1 + WALK_MAX_PAGES);

/**
 * Creates, without an Idempotency-Key, a definition a check needs as its subject; archived at
 * clean-up unless `archiveAtEnd` is false. A target that refuses the create leaves the clause not observable
 * (creating definitions is the definitions suite's concern).
 */
export async function setupDefinition(
  ctx: CheckContext,
  key: KeyHandle,
  overrides: Record<string, unknown> = {},
  opts: { archiveAtEnd?: boolean } = {},
): Promise<{ id: string; body: Record<string, unknown>; exchange: Exchange }> {
  const body = minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem'), ...overrides });
  const exchange = await ctx.api.send({ method: 'POST', path: '/definitions', key, body });
  const id = createdId(exchange);
  if (id === undefined) throw new NotObservable(`could not create the definition the check needs (${answerOf(exchange)})`);
  if (opts.archiveAtEnd !== false) archiveLater(ctx, key, [id]);
  return { id, body, exchange };
}
