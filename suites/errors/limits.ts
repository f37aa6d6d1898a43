/**
 * The two refusals a workspace setting causes (test-control protocol): a call over the rate
 * limit is answered 429 (seed part 7), and a call that needs a switched-off capability 503.
 * Both settings are restored before the check ends, whatever happened.
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

export const capabilityOff: CheckDef = {
  id: 'errors/capability-off',
  title: 'A call that needs a switched-off capability is answered 503 SERVICE_UNAVAILABLE with the error envelope',
  clauses: ['ERR-009', ...ENVELOPE_CLAUSES],
  needs: { control: true },
  // The listing is answered 503: free.
  credits: 0,
  // A target that ignores the capability switch lets it through.
  maxCredits: 1,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-009');
    const owner = ctx.key('owner');
    const me = await ctx.api.send({ method: 'GET', path: '/me', key: owner });
    const caps = isObject(me.response?.json) ? me.response.json.capabilities : undefined;
    const was = isObject(caps) && typeof caps.definitions === 'boolean' ? caps.definitions : true;
    const restore = () => ctx.control.setCapabilities(ctx.workspaceId, { definitions: was });
    ctx.cleanup(restore);
    await ctx.control.setCapabilities(ctx.workspaceId, { definitions: false });
    let ex: Exchange;
    try {
      ex = await ctx.api.send({ method: 'GET', path: '/definitions', key: owner, query: { limit: 1 } });
    } finally {
      await restore();
    }
    if (ex.response?.status !== 503) {
      throw new Finding({
        clause: 'ERR-009',
        message: 'GET /definitions with the definitions capability switched off was not answered 503',
        expected: '503 SERVICE_UNAVAILABLE',
        received: ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`,
        exchange: ex,
      });
    }
    await judgeEnvelope(ctx, ex, 'ERR-009');
  },
};
