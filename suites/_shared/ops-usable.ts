/**
 * A check context whose API calls either get a usable response or end the check:
 *
 * - a transport failure (timeout, reset, oversized body...) becomes a finding on the check's
 *   main clause through expectResponse, instead of the check going on to send dozens more
 *   requests into a target that has stopped answering;
 * - a 429 that is still there after the run's retries (for a request that did not ask to see
 *   429s with `retry429: false`) makes the check not observable: a throttled call says nothing
 *   about the behaviour the check looks at.
 *
 * Used by the billing, errors and operations checks, which send many requests in loops;
 * generic enough for any suite.
 */
import type { ApiClient, CheckContext } from '../../src/engine/check.ts';
import { expectResponse } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';

/** `ctx` whose `api.send` throws when no usable response came (see the module comment). */
export function usableResponses(ctx: CheckContext, clause: string): CheckContext {
  const api: ApiClient = {
    async send(req) {
      const ex = await ctx.api.send(req);
      const res = expectResponse(clause, ex);
      if (res.status === 429 && req.retry429 !== false) {
        throw new NotObservable(`${req.method} ${req.path} was still answered 429 after ${ex.retries} retries: the target throttled the check`);
      }
      return ex;
    },
  };
  // Everything else (keys, control, ledger, clean-up, soft findings) is the original's.
  return Object.create(ctx, { api: { value: api, enumerable: true } }) as CheckContext;
}
