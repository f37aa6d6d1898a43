/**
 * Judging a permission sweep: one request per key against one permission-table row, each key
 * expected to be let through (it holds what the row requires), refused, or either (where the
 * seed leaves room). Findings are recorded softly and grouped, one per clause and problem, so a
 * row with ten offending keys gives one readable finding and the row's other clauses still
 * get their verdict.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, expectResponse } from '../../src/engine/expect.ts';
import { Finding, type Evidence } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from './definitions.ts';
import { CHECK_PARALLEL, inParallel } from './parallel.ts';

/** What a key may get: "allow" 2xx, "refuse" a refusal, "either" one or the other. */
export type Expectation = 'allow' | 'refuse' | 'either';

/** One request of a sweep. */
export interface Attempt {
  key: KeyHandle;
  expect: Expectation;
  ex: Exchange;
}

/** Which clause each kind of deviation is attributed to. */
export interface JudgeClauses {
  /** The permission row: blamed when a permitted key is refused, and by default when a key is let through. */
  row: string;
  /** The clause blamed when this key, which should be refused, is let through (default: row). */
  letThrough?: (key: KeyHandle) => string;
  /**
   * The clause that a missing grant or role is answered 403 (ERR-007): blamed, with the row,
   * for a refusal with another status. The body of a 403 is the errors suite's to judge
   * (ERR-001, ERR-002 hold for every error body), so it is not judged again here.
   */
  forbidden?: string;
}

const isFinding = (e: unknown): e is Finding => e instanceof Finding || (e instanceof Error && e.name === 'Finding' && 'evidence' in e);
const MAX_CONTEXT = 5;

/**
 * Sends one request per key; the attempts come back in the keys' order. One after another by
 * default. `together`: the requests cannot see one another (a refusal changes nothing, and each
 * permitted request acts where no other one does), so they go CHECK_PARALLEL at a time and a
 * target far away costs a round trip or two for the row, not one per key. Either way every
 * answer is in before the caller reads back what changed.
 */
export async function sweep(keys: readonly KeyHandle[], expectOf: (key: KeyHandle) => Expectation, send: (key: KeyHandle) => Promise<Exchange>, opts: { together?: boolean } = {}): Promise<Attempt[]> {
  return inParallel(keys, opts.together ? CHECK_PARALLEL : 1, async (key) => ({ key, expect: expectOf(key), ex: await send(key) }));
}

/** "only-admin [admin] as owner (403); no-scope [no scope] as owner (200)": which keys got what. */
function listed(attempts: readonly Attempt[]): string {
  return attempts.map((a) => `${a.key.name} [${a.key.scopes.join(', ') || 'no scope'}] as ${a.key.role} (${a.ex.response?.status ?? a.ex.error?.kind ?? '?'})`).join('; ');
}

function grouped(clause: string, what: string, problem: string, expected: string, group: readonly Attempt[]): Evidence {
  const [first, ...rest] = group;
  const evidence: Evidence = {
    clause,
    message: `${what}: ${problem}: ${listed(group)}`,
    expected,
    received: first!.ex.response ? describeResponse(first!.ex.response) : `no response (${first!.ex.error?.kind})`,
    exchange: first!.ex,
  };
  if (rest.length > 0) evidence.context = rest.slice(0, MAX_CONTEXT).map((a) => a.ex);
  return evidence;
}

/**
 * Records a finding for every deviation of the sweep from its expectations. `what` names the
 * row in messages, e.g. "GET /definitions". Returns the attempts that were refused as expected.
 */
export function judgeSweep(ctx: CheckContext, attempts: readonly Attempt[], clauses: JudgeClauses, what: string): Attempt[] {
  const letThrough = new Map<string, Attempt[]>();
  const noResponse: Attempt[] = [];
  const wrongStatus: Attempt[] = [];
  const permittedRefused: Attempt[] = [];
  const refused: Attempt[] = [];

  for (const a of attempts) {
    try {
      expectResponse(clauses.row, a.ex);
    } catch (e) {
      if (!isFinding(e)) throw e;
      (a.expect === 'allow' ? permittedRefused : noResponse).push(a);
      continue;
    }
    const ok = is2xx(a.ex);
    if (a.expect === 'allow') {
      if (!ok) permittedRefused.push(a);
      else ctx.judged(clauses.row);
      continue;
    }
    if (ok) {
      if (a.expect === 'refuse') {
        const clause = clauses.letThrough?.(a.key) ?? clauses.row;
        letThrough.set(clause, [...(letThrough.get(clause) ?? []), a]);
      }
      continue;
    }
    if (a.ex.response!.status !== 403) {
      wrongStatus.push(a);
      continue;
    }
    refused.push(a);
    // A refusal as the row demands: the row judged, and the clause a let-through would have failed.
    ctx.judged(clauses.row);
    if (a.expect === 'refuse') {
      const clause = clauses.letThrough?.(a.key) ?? clauses.row;
      if (clause !== clauses.row) ctx.judged(clause);
    }
    if (clauses.forbidden) ctx.judged(clauses.forbidden);
  }

  for (const [clause, group] of letThrough) {
    ctx.softFail(grouped(clause, what, 'keys without the required grant or role were let through', 'a refusal (403)', group));
  }
  if (noResponse.length > 0) {
    ctx.softFail(grouped(clauses.row, what, 'calls that must be refused got no usable response', 'a refusal (403)', noResponse));
  }
  if (permittedRefused.length > 0) {
    ctx.softFail(grouped(clauses.row, what, 'keys holding everything the row requires were not let through', 'a 2xx answer', permittedRefused));
  }
  if (wrongStatus.length > 0) {
    const problem = 'a missing grant or role was answered with another status than a refusal';
    ctx.softFail(grouped(clauses.row, what, problem, 'status 403', wrongStatus));
    if (clauses.forbidden) ctx.softFail(grouped(clauses.forbidden, what, problem, 'status 403 FORBIDDEN', wrongStatus));
  }
  return refused;
}
