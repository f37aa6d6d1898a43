/**
 * Definition ids in the path: a well-formed id that names nothing, and ids that are not
 * uuids (values from the path parameter's format violations in specs/openapi.yaml).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { parameterArbitraries } from '../../src/generators/index.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { ADMIN, apiSpec, refusalEvidence, shown } from './support.ts';

/** The three writes addressed by id, each with a body valid in every other respect. */
function writesTo(ctx: CheckContext, id: string): (() => Promise<Exchange>)[] {
  const key = ctx.key(ADMIN);
  const at = `/definitions/${encodeURIComponent(id)}`;
  return [
    () => ctx.api.send({ method: 'PATCH', path: at, key, body: { reason: 'conformance check: unknown id', description: 'x' } }),
    () => ctx.api.send({ method: 'POST', path: `${at}/archive`, key, body: { reason: 'conformance check: unknown id' } }),
    () => ctx.api.send({ method: 'POST', path: `${at}/merge-value`, key, body: { fromSlug: 'a', intoSlug: 'b', reason: 'conformance check: unknown id' } }),
  ];
}

/** PATCH, archive and merge-value of a random well-formed uuid answer 404. */
export const unknownId: CheckDef = {
  id: 'definitions/unknown-id',
  title: 'update, archive and merge-value of a well-formed id that names no definition answer 404',
  clauses: ['DEF-026'],
  needs: { mutation: true },
  credits: 0,
  async run(ctx) {
    for (const write of writesTo(ctx, randomUUID())) {
      const ex = await write();
      ctx.judged('DEF-026');
      if (ex.response?.status !== 404)
        ctx.softFail({
          clause: 'DEF-026',
          message: `${ex.request.method} ${new URL(ex.request.url).pathname} of an unknown id answered ${ex.response?.status ?? 'nothing'}`,
          expected: 'status 404',
          received: shown(ex),
          exchange: ex,
        });
    }
  },
};

/** Up to `count` distinct malformed ids from the generator's format violations of definitionId (never empty: an empty segment is another route). */
async function malformedIds(ctx: CheckContext, count: number): Promise<string[]> {
  const spec = await apiSpec();
  const formats = parameterArbitraries(spec, 'updateDefinition', 'path').violations.filter((v) => v.path === '/definitionId');
  const ids = new Set<string>();
  for (const v of formats) {
    for (const sample of fc.sample(v.value, { seed: ctx.run.seed | 0, numRuns: 4 * count })) {
      const id = (sample as Record<string, unknown>).definitionId;
      if (typeof id === 'string' && id !== '' && ids.size < count) ids.add(id);
    }
  }
  if (ids.size === 0) throw new Error('specs/openapi.yaml gives definitionId no format violation to send');
  return [...ids];
}

/** Ids that are not uuids are refused as invalid (400 or 422) or with 404, and the error envelope, on each write. */
export const malformedId: CheckDef = {
  id: 'definitions/malformed-id',
  title: 'a definitionId that is not a uuid is refused with 400, 422 or 404 and the error envelope',
  clauses: ['DEF-027'],
  needs: { mutation: true },
  credits: 0,
  async run(ctx) {
    for (const id of await malformedIds(ctx, 3)) {
      for (const write of writesTo(ctx, id)) {
        const ex = await write();
        const e = refusalEvidence('DEF-027', ex, [...INVALID_STATUSES, 404]);
        if (e) ctx.softFail({ ...e, message: `definitionId ${JSON.stringify(id)}: ${e.message}` });
      }
    }
  },
};
