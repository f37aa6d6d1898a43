/**
 * The error envelope (seed part 7) on ordinary refusals: a missing or unknown key (401), a
 * missing scope (403), an unknown record (404), an invalid parameter or body (400) and an
 * Idempotency-Key conflict (409). Whatever status the target chooses, an error body is judged.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { randomUUID } from 'node:crypto';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { archiveIfCreated, idempotencyKey } from '../_shared/ops-fixtures.ts';
import { ENVELOPE_CLAUSES, isError, judgeEnvelope } from './envelope.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/** A key no target issued: well-formed enough to be read, unknown to every workspace. */
const UNKNOWN_KEY: KeyHandle = { name: 'unknown_key', secret: `wgc_${randomUUID().replace(/-/g, '')}`, role: 'analyst', scopes: [] };

/** The cast key, or undefined when the target could not supply it (that probe is skipped). */
function optionalKey(ctx: CheckContext, name: string): KeyHandle | undefined {
  try {
    return ctx.key(name);
  } catch (e) {
    if (e instanceof NotObservable || (e instanceof Error && e.name === 'NotObservable')) return undefined;
    throw e;
  }
}

/** Judges every error among `exchanges`; not observable when none was an error. */
async function judgeAll(ctx: CheckContext, exchanges: readonly Exchange[]): Promise<void> {
  const errors = exchanges.filter(isError);
  if (errors.length === 0) throw new NotObservable('the target refused none of the calls meant to be refused, so there was no error body to judge');
  for (const ex of errors) await judgeEnvelope(ctx, ex);
}

export const envelopeOnReadRefusals: CheckDef = {
  id: 'errors/envelope-on-read-refusals',
  title: 'Refused reads (no key, unknown key, missing scope, unknown receipt, bad limit) answer with the error envelope and the table constants',
  clauses: [...ENVELOPE_CLAUSES],
  credits: 0,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-001');
    const owner = ctx.key('owner');
    const noRead = optionalKey(ctx, 'noread');
    const sent: Exchange[] = [
      await ctx.api.send({ method: 'GET', path: '/definitions', key: null }),
      await ctx.api.send({ method: 'GET', path: '/definitions', key: UNKNOWN_KEY }),
      await ctx.api.send({ method: 'GET', path: `/operations/${randomUUID()}`, key: owner }),
      await ctx.api.send({ method: 'GET', path: '/definitions', key: owner, query: { limit: 0 } }),
    ];
    if (noRead) sent.push(await ctx.api.send({ method: 'GET', path: '/definitions', key: noRead }));
    await judgeAll(ctx, sent);
  },
};

export const envelopeOnWriteRefusals: CheckDef = {
  id: 'errors/envelope-on-write-refusals',
  title: 'Refused writes (invalid body, unknown definition, Idempotency-Key conflict) answer with the error envelope and the table constants',
  clauses: [...ENVELOPE_CLAUSES],
  needs: { mutation: true },
  // The definition whose Idempotency-Key is reused, and its clean-up archive.
  credits: 2,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-001');
    const owner = ctx.key('owner');
    const sent: Exchange[] = [
      await ctx.api.send({ method: 'POST', path: '/definitions', key: owner, body: { reason: 'conformance check: incomplete body' } }),
      await ctx.api.send({ method: 'PATCH', path: `/definitions/${randomUUID()}`, key: owner, body: { reason: 'conformance check' } }),
    ];
    const idem = idempotencyKey(ctx);
    const first = await ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body: minimalCreateBody(ctx) });
    if (is2xx(first)) sent.push(await ctx.api.send({ method: 'POST', path: '/definitions', key: owner, idempotencyKey: idem, body: minimalCreateBody(ctx) }));
    for (const ex of [first, ...sent]) archiveIfCreated(ctx, owner, ex);
    await judgeAll(ctx, sent);
  },
};
