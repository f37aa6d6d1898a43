/**
 * Requests the API has no route for (seed part 7 and part 4, "every error body follows part
 * 7"): unknown paths at several depths and unsupported methods on known paths. Any 4xx is
 * accepted (404 and 405 are both natural); its body must be the error envelope.
 */
import { randomUUID } from 'node:crypto';
import type { ApiRequest, CheckDef } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { ENVELOPE_CLAUSES, judgeEnvelope } from './envelope.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/**
 * Paths and methods no route of the seed serves. Under --read-only only GETs are sent: a
 * deployment that (wrongly) serves DELETE /operations must not be able to act on it.
 */
function unknownRequests(readOnly: boolean): Pick<ApiRequest, 'method' | 'path'>[] {
  const reads: Pick<ApiRequest, 'method' | 'path'>[] = [
    { method: 'GET', path: '/nope' },
    { method: 'GET', path: '/nope/deeper/still' },
    { method: 'GET', path: `/definitions/${randomUUID()}/nope` },
    { method: 'GET', path: `/data/accounts/${randomUUID()}/nope/deeper` },
  ];
  if (readOnly) return reads;
  return [
    ...reads,
    { method: 'POST', path: '/me/nope' },
    // Unsupported methods on known paths.
    { method: 'DELETE', path: '/capabilities' },
    { method: 'PUT', path: '/me' },
    { method: 'DELETE', path: '/operations' },
  ];
}

export const unknownRoutes: CheckDef = {
  id: 'errors/unknown-routes',
  title: 'Unknown paths and unsupported methods answer 4xx with the error envelope',
  clauses: ['ERR-003', ...ENVELOPE_CLAUSES],
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-003');
    const owner = ctx.key('owner');
    for (const req of unknownRequests(ctx.run.readOnly)) {
      const ex = await ctx.api.send({ ...req, key: owner });
      const res = ex.response;
      if (!res || res.status < 400 || res.status >= 500) {
        ctx.softFail({
          clause: 'ERR-003',
          message: `${req.method} ${req.path}, which the API does not have, was not answered with a 4xx`,
          expected: 'a 4xx status with the error envelope',
          received: res ? describeResponse(res) : `no response (${ex.error?.kind}: ${ex.error?.message})`,
          exchange: ex,
        });
        continue;
      }
      ctx.judged('ERR-003');
      await judgeEnvelope(ctx, ex, 'ERR-003');
    }
  },
};
