/**
 * updated_at moves forward with a write (DEF-031, a SHOULD): a PATCH of one definition and an
 * archive of another, each sent a little over a second after its definition's create answered,
 * so that a server storing whole seconds still shows the move. Two definitions share the one wait.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, isObject } from '../_shared/json.ts';
import { ADMIN, archive, setupDefinition, shown, timeOf } from './support.ts';

/** How long after the creates answered the writes go out. */
const GAP_MS = 1_100;

/** A PATCH and an archive each move updated_at past the create's. */
export const updatedAtMoves: CheckDef = {
  id: 'definitions/updated-at-moves',
  title: 'a PATCH or an archive a second after the last write moves updated_at forward',
  clauses: ['DEF-031'],
  needs: { mutation: true },
  // Two creates, a PATCH, an archive, the PATCHed one's clean-up archive.
  maxCredits: 5,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const patched = await setupDefinition(ctx, key);
    const archived = await setupDefinition(ctx, key);
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    const writes: [string, typeof patched, () => Promise<Exchange>][] = [
      [
        'a PATCH',
        patched,
        () =>
          ctx.api.send({ method: 'PATCH', path: `/definitions/${encodeURIComponent(patched.definition.id)}`, key, body: { reason: 'conformance check: a later write', description: 'written later' } }),
      ],
      ['an archive', archived, () => archive(ctx, key, archived.definition.id, 'conformance check: a later write')],
    ];
    let judged = 0;
    for (const [what, created, write] of writes) {
      const ex = await write();
      if (!is2xx(ex)) throw new NotObservable(`${what} of a definition was not accepted (${shown(ex)}); DEF-013 and DEF-017 judge that`);
      if (what === 'an archive') created.archived();
      const updatedAt = isObject(ex.response?.json) ? ex.response.json.updated_at : undefined;
      const [was, now] = [timeOf(created.definition.updated_at), timeOf(updatedAt)];
      // A timestamp that does not parse is the shape clauses' finding (DEF-001, DEF-002).
      if (was === undefined || now === undefined) continue;
      judged++;
      ctx.judged('DEF-031');
      if (now > was) continue;
      ctx.softFail({
        clause: 'DEF-031',
        message: `${what} sent ${GAP_MS} ms after the create answered left updated_at at ${brief(updatedAt)} (the create's was ${brief(created.definition.updated_at)})`,
        expected: `updated_at later than ${brief(created.definition.updated_at)}`,
        received: shown(ex),
        exchange: ex,
        context: [created.exchange],
      });
    }
    if (judged === 0) throw new NotObservable('no write answered an updated_at that parses as a timestamp');
  },
};
