/**
 * Replays on the four definition endpoints of seed 4.1: a keyed call succeeds as it would
 * without the key (IDEM-001), a repeat with the same key and input returns the original status
 * and body (IDEM-002), and the repeat performs nothing again (IDEM-003): no second definition,
 * and no change to the definition a PATCH, archive or merge-value replay addresses.
 */
import type { ApiRequest, CheckContext, CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { minimalCreateBody, uniqueName } from '../_shared/definitions.ts';
import { compareIds, isObject } from '../_shared/json.ts';
import { WALK_MAX_PAGES } from '../_shared/paging-walk.ts';
import { ADMIN, archiveLater, CHANGE_AROUND_CREDITS, CHANGE_AROUND_MAX_CREDITS, changeAround, createdId, freshKey, judgeReplay, liveIdsNamed, sendAccepted, setupDefinition } from './support.ts';

const CLAUSES = ['IDEM-001', 'IDEM-002', 'IDEM-003'] as const;

export const createReplay: CheckDef = {
  id: 'idempotency/create-replay',
  title: "POST /definitions under a key succeeds; its replay (also with the body's members in another order) returns the original answer and creates no second definition",
  clauses: CLAUSES,
  endpoints: ['createDefinition'],
  needs: { mutation: true },
  // The create, a walk to count by name (one page: the suite's earlier checks leave no live
  // definition), the clean-up archive (replays are not billed).
  credits: 1 + 1 + 1,
  // The walk over a workspace holding more, or ending on an empty page.
  maxCredits: 1 + WALK_MAX_PAGES + 1,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    // With a null among its values (a factor's `required`, boolean or null in 2.6): a keyed body may hold any JSON value.
    const trace = { reason: 'idempotency replay check', factors: [{ criterion: 'a null among the values', status: 'unknown', required: null }] };
    const body = minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem-create'), decision_trace: trace });
    const idem = freshKey(ctx, 'create');
    const req: ApiRequest & { idempotencyKey: string } = { method: 'POST', path: '/definitions', key, body, idempotencyKey: idem };
    const original = await sendAccepted(
      ctx,
      req,
      () => ({ method: 'POST', path: '/definitions', key, body: { ...body, name: uniqueName(ctx, 'idem-create-plain') } }),
      (ex) =>
        archiveLater(
          ctx,
          key,
          [createdId(ex)].filter((id): id is string => id !== undefined),
        ),
    );
    const replay = await ctx.api.send(req);
    judgeReplay(ctx, original, replay);
    // The same input with its members in another order (a JSON object is unordered, RFC 8259):
    // still a replay, not another input.
    const reordered = await ctx.api.send({ ...req, body: Object.fromEntries(Object.entries(body).reverse()) });
    judgeReplay(ctx, original, reordered);

    const originalId = createdId(original);
    if (originalId === undefined) throw new NotObservable('the create answered no Definition id, so the definitions it made cannot be counted');
    const ids = await liveIdsNamed(ctx, key, String(body.name));
    // Anything else under this name was created by the replay: archive it as well.
    archiveLater(
      ctx,
      key,
      ids.filter((id) => compareIds(id, originalId) !== 0),
    );
    if (!ids.some((id) => compareIds(id, originalId) === 0)) {
      throw new NotObservable(`the created definition ${originalId} is not in the listing, so the definitions it named cannot be counted`);
    }
    // The last verdict of the check: recorded softly so that IDEM-001 and IDEM-002 keep theirs.
    ctx.judged('IDEM-003');
    if (ids.length > 1) {
      ctx.softFail({
        clause: 'IDEM-003',
        message: `after the replay ${ids.length} live definitions carry the name of the one created`,
        expected: `one definition (${originalId})`,
        received: ids.join(', '),
        exchange: replay,
        context: [original],
      });
    }
  },
};

/** A keyed mutation of an existing definition, replayed, with the definition read around the replay. */
async function replayOnDefinition(
  ctx: CheckContext,
  subject: { id: string; includeArchived: boolean },
  build: (idempotencyKey: string) => ApiRequest & { idempotencyKey: string },
  onAccepted?: (ex: Exchange) => void,
): Promise<void> {
  const key = ctx.key(ADMIN);
  const req = build(freshKey(ctx, 'edit'));
  const { idempotencyKey: _unused, ...plain } = req;
  const original = await sendAccepted(ctx, req, () => plain, onAccepted);
  const { result: replay, change } = await changeAround(ctx, key, subject.id, subject.includeArchived, 'IDEM-003', () => ctx.api.send(req));
  judgeReplay(ctx, original, replay);
  if (change) ctx.softFail({ ...change, context: [original, ...(change.context ?? [])] });
}

export const updateReplay: CheckDef = {
  id: 'idempotency/update-replay',
  title: 'PATCH /definitions/{id} under a key succeeds; its replay returns the original answer and changes nothing',
  clauses: CLAUSES,
  endpoints: ['updateDefinition'],
  needs: { mutation: true },
  // Setup create, the PATCH, the reads around the replay, the clean-up archive.
  credits: 1 + 1 + CHANGE_AROUND_CREDITS + 1,
  maxCredits: 1 + 1 + CHANGE_AROUND_MAX_CREDITS + 1,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const { id } = await setupDefinition(ctx, key);
    // addEnumValues makes a second execution visible even to a server with coarse updated_at.
    const body = { reason: 'idempotency replay check', description: 'patched once', addEnumValues: [{ label: 'Replay probe' }] };
    await replayOnDefinition(ctx, { id, includeArchived: false }, (idem) => ({ method: 'PATCH', path: `/definitions/${id}`, key, body, idempotencyKey: idem }));
  },
};

export const archiveReplay: CheckDef = {
  id: 'idempotency/archive-replay',
  title: 'POST /definitions/{id}/archive under a key succeeds; its replay returns the original answer and changes nothing',
  clauses: CLAUSES,
  endpoints: ['archiveDefinition'],
  needs: { mutation: true },
  // Setup create, the archive, the reads around the replay (the archive is the clean-up).
  credits: 1 + 1 + CHANGE_AROUND_CREDITS,
  maxCredits: 1 + 1 + CHANGE_AROUND_MAX_CREDITS,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const { id } = await setupDefinition(ctx, key, {}, { archiveAtEnd: false });
    // The check's own archive is the clean-up; archive at the end only if it never succeeded.
    let archived = false;
    ctx.cleanup(async () => {
      if (!archived) await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'conformance run clean-up' } });
    });
    const body = { reason: 'idempotency replay check' };
    await replayOnDefinition(
      ctx,
      { id, includeArchived: true },
      (idem) => ({ method: 'POST', path: `/definitions/${id}/archive`, key, body, idempotencyKey: idem }),
      () => {
        archived = true;
      },
    );
  },
};

export const mergeReplay: CheckDef = {
  id: 'idempotency/merge-replay',
  title: 'POST /definitions/{id}/merge-value under a key succeeds; its replay returns the original answer and changes nothing',
  clauses: CLAUSES,
  endpoints: ['mergeDefinitionValue'],
  needs: { mutation: true },
  // Setup create, the merge, the reads around the replay, the clean-up archive.
  credits: 1 + 1 + CHANGE_AROUND_CREDITS + 1,
  maxCredits: 1 + 1 + CHANGE_AROUND_MAX_CREDITS + 1,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const { id, exchange } = await setupDefinition(ctx, key, { enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] });
    const [from, into] = slugsOf(exchange, ['Alpha', 'Beta']);
    if (from === undefined || into === undefined) throw new NotObservable('the created definition does not show the slugs of its two enum values, so no merge can be addressed');
    const body = { fromSlug: from, intoSlug: into, reason: 'idempotency replay check' };
    await replayOnDefinition(ctx, { id, includeArchived: false }, (idem) => ({ method: 'POST', path: `/definitions/${id}/merge-value`, key, body, idempotencyKey: idem }));
  },
};

/** The slugs of the enum values with these labels, from a Definition answer. */
function slugsOf(ex: Exchange, labels: readonly string[]): (string | undefined)[] {
  const body = ex.response?.json;
  const values = isObject(body) && Array.isArray(body.enum_values) ? body.enum_values.filter(isObject) : [];
  return labels.map((l) => {
    const v = values.find((x) => x.label === l);
    return typeof v?.slug === 'string' ? v.slug : undefined;
  });
}
