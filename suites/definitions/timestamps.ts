/**
 * updated_at moves forward with a write (DEF-031, a SHOULD): a PATCH and then an archive, each
 * sent a little over a second after the write before it answered, so that a server storing
 * whole seconds still shows the move.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, isObject } from '../_shared/json.ts';
import { ADMIN, archive, setupDefinition, shown, timeOf } from './support.ts';

/** How long after a write's answer the next write goes out. */
const GAP_MS = 1_100;

/** A PATCH and an archive each move updated_at past the write before. */
export const updatedAtMoves: CheckDef = {
  id: 'definitions/updated-at-moves',
  title: 'a PATCH or an archive a second after the last write moves updated_at forward',
  clauses: ['DEF-031'],
  needs: { mutation: true },
  // A create, a PATCH, the archive (no clean-up archive after it).
  maxCredits: 4,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const created = await setupDefinition(ctx, key);
    const id = created.definition.id;
    let last = { at: Date.now(), ex: created.exchange, updatedAt: created.definition.updated_at };
    const writes: [string, () => Promise<Exchange>][] = [
      ['a PATCH', () => ctx.api.send({ method: 'PATCH', path: `/definitions/${encodeURIComponent(id)}`, key, body: { reason: 'conformance check: a later write', description: 'written later' } })],
      ['an archive', () => archive(ctx, key, id, 'conformance check: a later write')],
    ];
    let judged = 0;
    for (const [what, write] of writes) {
      await pauseUntil(last.at + GAP_MS);
      const ex = await write();
      if (!is2xx(ex)) throw new NotObservable(`${what} of the definition was not accepted (${shown(ex)}); DEF-012, DEF-013 and DEF-017 judge that`);
      if (what === 'an archive') created.archived();
      const updatedAt = isObject(ex.response?.json) ? ex.response.json.updated_at : undefined;
      const [was, now] = [timeOf(last.updatedAt), timeOf(updatedAt)];
      // A timestamp that does not parse is the shape clauses' finding (DEF-001).
      if (was !== undefined && now !== undefined) {
        judged++;
        if (!(now > was)) {
          ctx.softFail({
            clause: 'DEF-031',
            message: `${what} sent ${GAP_MS} ms after the previous write answered left updated_at at ${brief(updatedAt)} (it was ${brief(last.updatedAt)})`,
            expected: `updated_at later than ${brief(last.updatedAt)}`,
            received: shown(ex),
            exchange: ex,
            context: [last.ex],
          });
        }
      }
      last = { at: Date.now(), ex, updatedAt: typeof updatedAt === 'string' ? updatedAt : '' };
    }
    if (judged === 0) throw new NotObservable('no write answered an updated_at that parses as a timestamp');
  },
};

function pauseUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}
