/**
 * The refusal a workspace's rate limit causes (test-control protocol): a call over the limit is
 * answered 429 (seed part 7). The setting is restored before the check ends, whatever happened.
 * A switched-off capability's 503 is capability.ts's.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { isObject } from '../_shared/json.ts';
import { ENVELOPE_CLAUSES, judgeEnvelope } from './envelope.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/** Calls sent with a limit of one a minute: every call after the first is over it. */
const CALLS_OVER_LIMIT = 5;

export const rateLimited: CheckDef = {
  id: 'errors/rate-limited',
  title: 'A call over the workspace rate limit is answered 429 TOO_MANY_REQUESTS with the error envelope',
  clauses: ['ERR-008', ...ENVELOPE_CLAUSES],
  needs: { control: true },
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-008');
    const owner = ctx.key('owner');
    const restore = () => ctx.control.setRateLimit(ctx.workspaceId, null);
    ctx.cleanup(restore);
    await ctx.control.setRateLimit(ctx.workspaceId, 1);
    const sent: Exchange[] = [];
    try {
      // GET /me is free: the check spends nothing whatever the limit does.
      for (let i = 0; i <= CALLS_OVER_LIMIT; i++) {
        const ex = await ctx.api.send({ method: 'GET', path: '/me', key: owner, retry429: false });
        sent.push(ex);
        if (ex.response?.status === 429) {
          ctx.judged('ERR-008');
          await judgeEnvelope(ctx, ex, 'ERR-008');
          return;
        }
      }
    } finally {
      await restore();
    }
    const last = sent[sent.length - 1]!;
    throw new Finding({
      clause: 'ERR-008',
      message: `with a limit of 1 call a minute, ${sent.length} calls in a row got no 429`,
      expected: '429 TOO_MANY_REQUESTS from the second call on',
      received: sent.map((e) => e.response?.status ?? e.error?.kind).join(', '),
      exchange: last,
      context: sent.slice(0, -1),
    });
  },
};
