/**
 * What every command of a sequence runs with (commands.ts, live-reads.ts): the runner of one
 * sequence, and how a step sends a request and reports a finding.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { makeAccount, type AccountFixture } from '../_shared/ops-fixtures.ts';
import type { Shape } from '../_shared/ops-shapes.ts';

/** Everything a command needs to run against the target. */
export interface Runner {
  ctx: CheckContext;
  key: KeyHandle;
  /** Names of this sequence's definitions start with it: how its own items are told apart in a listing. */
  prefix: string;
  /** A fresh Idempotency-Key. */
  newKey(): string;
  /** Billed calls answered 2xx that are not replays: what the ledger must have charged. */
  billed: Exchange[];
  /** Replays answered: none may be charged. */
  replays: number;
  /** Every exchange of the sequence, in order (evidence). */
  log: Exchange[];
  step: number;
  /** Clauses judged only when a sequence happens to set them up (shared by the check's sequences). */
  looked: Set<string>;
  /** The key that submits catalog operations (graph:write); none without the test-control protocol. */
  operator?: KeyHandle;
  /** The account and account person the sequence's submissions edit (made at its first submission). */
  account?: AccountFixture;
  /** The account being made already (runSequence starts it with the sequence when a step will need it). */
  accountSoon?: Promise<AccountFixture>;
  /** Accepted calls whose charge is at least one credit and may be more (live-reads.ts). */
  metered: Exchange[];
  /** The request shape each row not shown by the document was first accepted in (null: none was). */
  shapes: Map<string, Shape | null>;
}

export function fail(clause: string, message: string, expected: string, received: string, ex: Exchange): never {
  throw new Finding({ clause, message, expected, received, exchange: ex });
}

export const answer = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`);

export async function send(r: Runner, req: Parameters<CheckContext['api']['send']>[0]): Promise<Exchange> {
  const ex = await r.ctx.api.send(req);
  r.log.push(ex);
  return ex;
}

/** The sequence's account: the one made already, or being made, or made now. */
export async function accountOf(r: Runner): Promise<AccountFixture> {
  r.account ??= await (r.accountSoon ?? makeAccount(r.ctx, `sq-${r.prefix}`));
  return r.account;
}
