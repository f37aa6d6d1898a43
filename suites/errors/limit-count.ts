/**
 * What a rate limit of N a minute lets through (test-control protocol, PUT rate-limit): the
 * first N calls of a minute are answered as if there were no limit, and calls past them get
 * 429. Judged in a workspace of the check's own, so that no call of another check counts.
 *
 * A server may count its minute as a sliding window, a token bucket or a calendar minute. The
 * first two see the check's calls (well under a second apart) inside one minute whatever the
 * clock says; a calendar minute may turn between two calls and admit more. So an attempt is
 * judged only when the answers' Date headers (the local clock where a target sends none) put
 * every call in one calendar minute; otherwise the check tries once more in a new workspace. So
 * does a 429 within the limit, which a limit in front of the target may have given.
 */
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { otherWorkspace } from '../auth/support.ts';

/** The limit the check sets. */
export const LIMIT = 3;
/** Calls past the limit the check sends: each must get 429. */
const PAST = 2;
const ATTEMPTS = 2;

/** The calendar minute an answer was given in: its Date header, else when it arrived. */
function minuteOf(ex: Exchange): number {
  const date = ex.response?.headers['date'];
  const parsed = typeof date === 'string' ? Date.parse(date) : Number.NaN;
  const at = Number.isFinite(parsed) ? parsed : Date.parse(ex.startedAt) + ex.durationMs;
  return Math.floor(at / 60_000);
}

async function attempt(ctx: CheckContext): Promise<{ sent: Exchange[]; oneMinute: boolean }> {
  const { workspaceId, key } = await otherWorkspace(ctx, ['graph:read']);
  await ctx.control.setRateLimit(workspaceId, LIMIT);
  const sent: Exchange[] = [];
  for (let i = 0; i < LIMIT + PAST; i++) sent.push(await ctx.api.send({ method: 'GET', path: '/me', key, retry429: false }));
  return { sent, oneMinute: new Set(sent.map(minuteOf)).size === 1 };
}

export const rateLimitCounted: CheckDef = {
  id: 'errors/rate-limit-counts-calls',
  title: 'With a rate limit of N calls a minute, a new workspace gets N calls through and 429 past them',
  clauses: ['ERR-010'],
  needs: { control: true },
  endpoints: ['getMe'],
  credits: 0,
  async run(ctx) {
    let sent: Exchange[] = [];
    // A 429 within the limit may also come from a limit in front of the target (a staging
    // gateway's, which counts every workspace's calls): it is judged only when the next attempt,
    // in a new workspace, shows it again.
    const refusedWithin = (xs: readonly Exchange[]): boolean => xs.slice(0, LIMIT).some((ex) => ex.response?.status === 429);
    for (let i = 1; i <= ATTEMPTS; i++) {
      const a = await attempt(ctx);
      sent = a.sent;
      if (a.oneMinute && (!refusedWithin(a.sent) || i === ATTEMPTS)) break;
      if (i === ATTEMPTS) throw new NotObservable(`in each of ${ATTEMPTS} attempts the calls' answers fell in two calendar minutes, where a server counting calendar minutes may admit more`);
    }
    const status = (ex: Exchange) => ex.response?.status ?? ex.error?.kind ?? 'no answer';
    const within = sent.slice(0, LIMIT);
    const refusedEarly = within.findIndex((ex) => ex.response?.status === 429);
    if (refusedEarly >= 0)
      throw new Finding({
        clause: 'ERR-010',
        message: `with a limit of ${LIMIT} calls a minute, call ${refusedEarly + 1} of a new workspace got 429`,
        expected: `the first ${LIMIT} calls answered as without a limit`,
        received: sent.map(status).join(', '),
        exchange: within[refusedEarly]!,
        context: sent.slice(0, refusedEarly),
      });
    const other = within.find((ex) => ex.response === undefined || ex.response.status < 200 || ex.response.status > 299);
    if (other) throw new NotObservable(`GET /me with the new workspace's key answered ${status(other)} within the limit; nothing to count`);
    const past = sent.slice(LIMIT);
    const admitted = past.findIndex((ex) => ex.response?.status !== 429);
    if (admitted >= 0)
      throw new Finding({
        clause: 'ERR-010',
        message: `with a limit of ${LIMIT} calls a minute, call ${LIMIT + admitted + 1} in the same minute got no 429`,
        expected: `429 from call ${LIMIT + 1} on`,
        received: sent.map(status).join(', '),
        exchange: past[admitted]!,
        context: sent.slice(0, LIMIT + admitted),
      });
    ctx.judged('ERR-010', sent.length);
  },
};
