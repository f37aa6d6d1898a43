/**
 * The Idempotency-Key rules on every endpoint of seed 4.1, not only on POST /definitions (which
 * keys.ts and conflict.ts check in depth): PATCH /definitions/{id}, POST .../archive,
 * POST .../merge-value and POST /operations each
 *
 * - refuse a key of 129 characters and a key with a space as invalid (400 or 422), changing
 *   nothing, and accept a key of 128 characters (IDEM-005, IDEM-006, IDEM-007);
 * - answer 409 to a key reused with another body, and to a key reused on another target path
 *   (another definition), changing nothing there (IDEM-004).
 *
 * POST /operations needs an account person to edit (the test-control protocol, or fixtures):
 * without one its cell is left out (no finding either way) and the other endpoints still judge.
 */
import type { ApiRequest, CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { findDefinition } from '../_shared/paging-walk.ts';
import { personSubject } from './operations.ts';
import { ADMIN, answerOf, freshKey, judgeReplay, setupDefinition, SHORT_KEYS } from './support.ts';

/** One endpoint of 4.1 other than POST /definitions, as the checks drive it. */
interface Cell {
  name: string;
  operationId: string;
  /** A fresh target (a definition, or an account person); undefined when none can be had. */
  target(ctx: CheckContext, key: KeyHandle): Promise<Target | undefined>;
}

interface Target {
  /** The request under `idem`, its body varied by `variant` (same variant, same body). */
  request(idem: string, variant: string): ApiRequest;
  /** What the target looks like now, to show a refused request changed nothing; undefined where it cannot be read. */
  state(): Promise<string | undefined>;
}

const TWO_VALUES = { valueType: 'enum', enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] };

/** The definition as listed (with archived ones): what a refused write must leave as it was. */
async function definitionState(ctx: CheckContext, key: KeyHandle, id: string): Promise<string | undefined> {
  const { item } = await findDefinition(ctx, key, id, true);
  if (!item) return undefined;
  const values = Array.isArray(item.enum_values) ? item.enum_values.filter(isObject).map((v) => `${String(v.slug)}:${String(v.archived)}`) : [];
  return JSON.stringify({ description: item.description, archived: item.state === 'archived', values });
}

/** The slugs of a created definition's first two enum values. */
function slugs(ex: Exchange): [string, string] | undefined {
  const values = isObject(ex.response?.json) && Array.isArray(ex.response.json.enum_values) ? ex.response.json.enum_values.filter(isObject) : [];
  const [a, b] = values.map((v) => v.slug);
  return typeof a === 'string' && typeof b === 'string' ? [a, b] : undefined;
}

const CELLS: readonly Cell[] = [
  {
    name: 'PATCH /definitions/{id}',
    operationId: 'updateDefinition',
    async target(ctx, key) {
      const { id } = await setupDefinition(ctx, key, { description: 'before' });
      const path = `/definitions/${id}`;
      return {
        request: (idem, v) => ({ method: 'PATCH', path, key, body: { reason: 'idempotency check', description: `patched ${v}` }, idempotencyKey: idem }),
        state: () => definitionState(ctx, key, id),
      };
    },
  },
  {
    name: 'POST /definitions/{id}/archive',
    operationId: 'archiveDefinition',
    async target(ctx, key) {
      const { id } = await setupDefinition(ctx, key);
      const path = `/definitions/${id}/archive`;
      return { request: (idem, v) => ({ method: 'POST', path, key, body: { reason: `idempotency check ${v}` }, idempotencyKey: idem }), state: () => definitionState(ctx, key, id) };
    },
  },
  {
    name: 'POST /definitions/{id}/merge-value',
    operationId: 'mergeDefinitionValue',
    async target(ctx, key) {
      const { id, exchange } = await setupDefinition(ctx, key, TWO_VALUES);
      const pair = slugs(exchange);
      if (!pair) throw new NotObservable(`the created definition shows no two enum value slugs to merge: ${answerOf(exchange)}`);
      const path = `/definitions/${id}/merge-value`;
      return {
        request: (idem, v) => ({ method: 'POST', path, key, body: { fromSlug: pair[0], intoSlug: pair[1], reason: `idempotency check ${v}` }, idempotencyKey: idem }),
        state: () => definitionState(ctx, key, id),
      };
    },
  },
  {
    name: 'POST /operations',
    operationId: 'submitOperation',
    async target(ctx, key) {
      let subject;
      try {
        subject = await personSubject(ctx);
      } catch (e) {
        if (e instanceof NotObservable) return undefined;
        throw e;
      }
      const body = (v: string) => ({
        operation: 'graph.apply_update',
        arguments: {
          customer_id: subject.accountId,
          summary: `Idempotency check ${v}`,
          changes: [{ kind: 'person_field', target_label: 'Job title', person_id: subject.accountPersonId, field: 'title', after: `Title ${v}` }],
        },
        reason: 'idempotency check',
      });
      return { request: (idem, v) => ({ method: 'POST', path: '/operations', key, body: body(v), idempotencyKey: idem }), state: async () => undefined };
    },
  },
];

/** Records a finding on `clause` unless `ex` is a refusal with one of `statuses`. */
function expectRefusedWith(ctx: CheckContext, clause: string, ex: Exchange, statuses: readonly number[], what: string): boolean {
  ctx.judged(clause);
  if (ex.response && statuses.includes(ex.response.status)) return true;
  ctx.softFail({
    clause,
    message: `${ex.request.method} ${new URL(ex.request.url).pathname}: ${what} answered ${ex.response?.status ?? ex.error?.kind ?? 'nothing'}`,
    expected: statuses.join(' or '),
    received: answerOf(ex),
    exchange: ex,
  });
  return false;
}

/** Records a finding on `clause` when the target's state moved under refused requests. */
async function expectUnchanged(ctx: CheckContext, clause: string, t: Target, before: string | undefined, refused: Exchange): Promise<void> {
  if (before === undefined) return;
  const after = await t.state();
  if (after !== undefined) ctx.judged(clause);
  if (after !== undefined && after !== before) ctx.softFail({ clause, message: `a refused ${refused.request.method} changed its target`, expected: before, received: after, exchange: refused });
}

/** The endpoints the cells drive. */
const CELL_ENDPOINTS = CELLS.map((c) => c.operationId);

export const keyBoundsEveryEndpoint: CheckDef = {
  id: 'idempotency/key-bounds-every-endpoint',
  title:
    'On PATCH, archive, merge-value and POST /operations, an Idempotency-Key of 129 characters or with a space is refused as invalid (400 or 422) with nothing changed, and ones of 128 and of 1 are accepted',
  clauses: ['IDEM-005', 'IDEM-006', 'IDEM-007'],
  endpoints: CELL_ENDPOINTS,
  needs: { mutation: true },
  // Per definition endpoint: the target, the write accepted under the 128-character key, and the
  // clean-up archive (the accepted archive is its own); one-item reads of the target (2 each);
  // POST /operations: the accepted submit. The same again for the 1-character key's fresh target.
  credits: 2 * (3 + 2 + 3 + 1) + 3 * 2,
  // Reads followed by walks where a target refuses their cursors.
  maxCredits: 2 * (3 + 2 + 3 + 1) + 3 * 2 * 6,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    let judged = 0;
    for (const cell of CELLS) {
      const t = await cell.target(ctx, key);
      if (!t) continue;
      judged++;
      const before = await t.state();
      const long = `${freshKey(ctx, 'long')}`.padEnd(129, 'x');
      const tooLong = await ctx.api.send(t.request(long, 'long'));
      const spaced = await ctx.api.send(t.request(`${freshKey(ctx, 'space')} x`, 'space'));
      const refused = [
        expectRefusedWith(ctx, 'IDEM-005', tooLong, INVALID_STATUSES, 'a 129-character Idempotency-Key'),
        expectRefusedWith(ctx, 'IDEM-006', spaced, INVALID_STATUSES, 'an Idempotency-Key with a space'),
      ];
      if (refused.every(Boolean)) await expectUnchanged(ctx, 'IDEM-005', t, before, tooLong);
      const ok = await ctx.api.send(t.request(`${freshKey(ctx, 'max')}`.padEnd(128, 'y'), 'max'));
      ctx.judged('IDEM-007');
      if (!is2xx(ok)) ctx.softFail({ clause: 'IDEM-007', message: `${cell.name} under a 128-character Idempotency-Key was not accepted`, expected: '2xx', received: answerOf(ok), exchange: ok });
      // A 1-character key, on a fresh target (the write above may have used this one up: an archive).
      const fresh = await cell.target(ctx, key);
      if (!fresh) continue;
      // One of the keys kept for this check (SHORT_KEYS), a different one per endpoint; in a
      // shared workspace another run may have used it: a 409 then shows it was read as a key.
      const short = await ctx.api.send(fresh.request(SHORT_KEYS[CELLS.indexOf(cell)]!, 'min'));
      ctx.judged('IDEM-007');
      if (!is2xx(short) && !(short.response?.status === 409 && ctx.run.sharedWorkspace))
        ctx.softFail({
          clause: 'IDEM-007',
          message: `${cell.name} under a 1-character Idempotency-Key was not accepted`,
          expected: `2xx${ctx.run.sharedWorkspace ? ' (or 409: the key was already used)' : ''}`,
          received: answerOf(short),
          exchange: short,
        });
    }
    if (judged === 0) throw new NotObservable('no endpoint of 4.1 other than POST /definitions could be given a target');
  },
};

export const conflictEveryEndpoint: CheckDef = {
  id: 'idempotency/conflict-every-endpoint',
  title: 'On PATCH, archive, merge-value and POST /operations, a key reused with another body, or on another definition, answers 409 and changes nothing, and the first input still replays its answer',
  clauses: ['IDEM-004', 'IDEM-002'],
  endpoints: CELL_ENDPOINTS,
  needs: { mutation: true },
  // Per definition endpoint: two targets, the first keyed write, the clean-up archives (the
  // archived target needs none), one-item reads of the second target (2 each); POST
  // /operations: the first submit.
  credits: 5 + 4 + 5 + 3 * 2 + 1,
  maxCredits: 5 + 4 + 5 + 3 * 2 * 6 + 1,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    for (const cell of CELLS) {
      const first = await cell.target(ctx, key);
      if (!first) continue;
      const idem = freshKey(ctx, 'reuse');
      const original = await ctx.api.send(first.request(idem, 'one'));
      if (!is2xx(original)) throw new NotObservable(`${cell.name} under an Idempotency-Key was not accepted (${answerOf(original)}), so the key was never used`);
      // A refused reuse leaves the key's answer as it was: the first input still replays it.
      const stillReplays = async () => void judgeReplay(ctx, original, await ctx.api.send(first.request(idem, 'one')));
      const otherBody = await ctx.api.send(first.request(idem, 'two'));
      expectRefusedWith(ctx, 'IDEM-004', otherBody, [409], 'the key reused with another body');
      await stillReplays();
      if (cell.name === 'POST /operations') continue;
      const second = (await cell.target(ctx, key))!;
      const before = await second.state();
      const otherPath = await ctx.api.send(second.request(idem, 'one'));
      if (expectRefusedWith(ctx, 'IDEM-004', otherPath, [409], 'the key reused on another definition')) await expectUnchanged(ctx, 'IDEM-004', second, before, otherPath);
      await stillReplays();
    }
  },
};
