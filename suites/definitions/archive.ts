/**
 * Archiving: the archived state and archived_at on the answer, visibility in the listing, and
 * writes to an archived definition (which may succeed or be refused, but never un-archive).
 */
import type { CheckContext, CheckDef } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, isObject } from '../_shared/json.ts';
import { SMALL_WALK_CREDITS, expectListedAsAnswered, listDefinitions, readBack, walkMaxCredits } from './listing.ts';
import { ADMIN, TWO_VALUES, apiSpec, archive, refusalEvidence, setupDefinition, shown, timeOf } from './support.ts';
import { shapeEvidence } from './shape.ts';

/** Archive answers state archived with archived_at set; the listing hides it unless includeArchived=true. */
export const archiveDefinition: CheckDef = {
  id: 'definitions/archive',
  title: 'archiving returns the whole definition archived with archived_at set, and the listing shows it only with includeArchived=true',
  clauses: ['DEF-001', 'DEF-002', 'DEF-005', 'DEF-013', 'DEF-014', 'DEF-015', 'DEF-029'],
  needs: { mutation: true },
  // Two creates, one archive, the live one's clean-up archive, three walks.
  credits: 4 + 3 * SMALL_WALK_CREDITS,
  maxCredits: 4 + 3 * walkMaxCredits(2),
  async run(ctx) {
    const key = ctx.key(ADMIN);
    // With enum values, so the archive answer and the listed copy show enum value objects to judge (DEF-005).
    const target = await setupDefinition(ctx, key, { ...TWO_VALUES });
    // A live definition the listing must show: otherwise an absent archived one proves nothing.
    const live = await setupDefinition(ctx, key);
    const id = target.definition.id;
    const ex = await archive(ctx, key, id);
    if (!is2xx(ex)) throw new Finding({ clause: 'DEF-013', message: 'archiving a live definition was not accepted', expected: '2xx with the archived Definition', received: shown(ex), exchange: ex });
    target.archived();
    for (const e of shapeEvidence(await apiSpec(), ex.response?.json, ex, 'the archive answer')) ctx.softFail(e);
    const out = ex.response?.json;
    const state = isObject(out) ? out.state : undefined;
    const archivedAt = isObject(out) ? out.archived_at : undefined;
    ctx.judged('DEF-013');
    ctx.judged('DEF-014');
    if (state !== 'archived') ctx.softFail({ clause: 'DEF-013', message: `the archive answer has state ${brief(state)}`, expected: 'state "archived"', received: shown(ex), exchange: ex });
    if (timeOf(archivedAt) === undefined)
      ctx.softFail({ clause: 'DEF-014', message: `the archive answer has archived_at ${brief(archivedAt)}`, expected: 'archived_at set to a timestamp', received: shown(ex), exchange: ex });

    for (const form of ['absent', 'false'] as const) {
      const listing = await listDefinitions(ctx, key, form, { ids: [live.definition.id, id] });
      const what = form === 'absent' ? 'without includeArchived' : 'with includeArchived=false';
      if (!listing.byId.has(live.definition.id)) throw new NotObservable(`the listing ${what} does not show a live definition, so hiding the archived one cannot be told apart`);
      ctx.judged('DEF-015');
      if (listing.byId.has(id)) {
        ctx.softFail({
          clause: 'DEF-015',
          message: `the archived definition ${id} is listed ${what}`,
          expected: 'archived definitions left out',
          received: brief(listing.byId.get(id)),
          exchange: listing.exchanges.at(-1)!,
          context: [ex],
        });
      }
    }
    const withArchived = await listDefinitions(ctx, key, 'true', { ids: [id] });
    if (isObject(out)) expectListedAsAnswered(ctx, 'DEF-029', new Map([[id, out]]), withArchived, 'archive');
    const listedArchived = withArchived.byId.get(id);
    if (listedArchived) for (const e of shapeEvidence(await apiSpec(), listedArchived, withArchived.pageOf.get(id)!, `the listed archived definition ${id}`)) ctx.softFail(e);
    ctx.judged('DEF-015');
    if (!withArchived.byId.has(id)) {
      ctx.softFail({
        clause: 'DEF-015',
        message: `the archived definition ${id} is not listed with includeArchived=true`,
        expected: 'the archived definition listed',
        received: `${withArchived.byId.size} other definitions`,
        exchange: withArchived.exchanges.at(-1)!,
        context: [ex],
      });
    }
  },
};

/** A write to an archived definition either succeeds with it still archived or is refused with an error envelope. */
function judgeWriteOnArchived(ctx: CheckContext, clause: string, ex: Exchange, what: string): void {
  if (is2xx(ex)) {
    const out = ex.response?.json;
    // Still archived is the state; archived_at itself is DEF-014's.
    ctx.judged(clause);
    if (!isObject(out) || out.state !== 'archived') {
      ctx.softFail({ clause, message: `${what} of an archived definition answered it no longer archived`, expected: 'state "archived", or a refusal', received: shown(ex), exchange: ex });
    }
    return;
  }
  const e = refusalEvidence(clause, ex, [400, 404, 409]);
  if (e) ctx.softFail({ ...e, message: `${what} of an archived definition: ${e.message}` });
}

/** Archive again and PATCH an archived definition: never brought back (answer and read-back). */
export const archivedStaysArchived: CheckDef = {
  id: 'definitions/archived-stays-archived',
  title: 'archiving again or PATCHing an archived definition never brings it back',
  clauses: ['DEF-016', 'DEF-021'],
  needs: { mutation: true },
  // Two creates, two archives, one walk; the reference refuses both writes under test (free).
  credits: 4 + SMALL_WALK_CREDITS,
  // A target may accept the two writes (DEF-016, DEF-021 allow it).
  maxCredits: 6 + walkMaxCredits(2),
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const a = await setupDefinition(ctx, key);
    const b = await setupDefinition(ctx, key);
    for (const d of [a, b]) {
      const ex = await archive(ctx, key, d.definition.id);
      if (!is2xx(ex)) throw new NotObservable(`a live definition could not be archived (needed as set-up; see DEF-013): ${shown(ex)}`);
      d.archived();
    }
    const again = await archive(ctx, key, a.definition.id, 'conformance check: archive again');
    judgeWriteOnArchived(ctx, 'DEF-016', again, 'archiving again');
    const patch = await ctx.api.send({
      method: 'PATCH',
      path: `/definitions/${encodeURIComponent(b.definition.id)}`,
      key,
      body: { reason: 'conformance check: patch archived', description: 'patched while archived' },
    });
    judgeWriteOnArchived(ctx, 'DEF-021', patch, 'a PATCH');

    const { found, listing } = await readBack(ctx, key, [a.definition.id, b.definition.id]);
    for (const [d, clause, ex] of [
      [a, 'DEF-016', again],
      [b, 'DEF-021', patch],
    ] as const) {
      const item = found.get(d.definition.id);
      if (!item) throw new NotObservable(`an archived definition is not listed with includeArchived=true (see DEF-015), so it cannot be read back`);
      ctx.judged(clause);
      if (item.state !== 'archived') {
        ctx.softFail({
          clause,
          message: `read back, the definition is no longer archived (state ${brief(item.state)})`,
          expected: 'state "archived"',
          received: brief(item),
          exchange: listing.exchanges.at(-1)!,
          context: [ex],
        });
      }
    }
  },
};
