/**
 * One key, several inputs or several senders: a key reused with different input answers 409
 * and performs nothing (IDEM-004); concurrent identical requests perform the mutation at most
 * once (IDEM-008); a key first used by a refused request (IDEM-009).
 */
import type { ApiRequest, CheckDef } from '../../src/engine/check.ts';
import { expectResponse, expectStatus, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx, minimalCreateBody, uniqueName } from '../_shared/definitions.ts';
import { findDefinition, WALK_MAX_PAGES } from '../_shared/paging-walk.ts';
import { ADMIN, answerOf, archiveLater, concurrencyRefusal, createdId, freshKey, judgeReplay, liveIdsNamed, NOT_A_CONCURRENCY_REFUSAL, sameJson, setupDefinition } from './support.ts';

/** Concurrent senders of one request (IDEM-008). */
const CONCURRENCY = 10;

export const keyReuseConflict: CheckDef = {
  id: 'idempotency/key-reuse-conflict',
  title: 'A key reused with a different create or PATCH body answers 409 and performs nothing, and the first body still replays its answer',
  clauses: ['IDEM-004', 'IDEM-002'],
  endpoints: ['createDefinition'],
  needs: { mutation: true },
  // Create + clean-up, the count walk (one page: only the check's definition is live), setup
  // create + clean-up, the first PATCH, one read (a one-item page); both reuses answer 409 (free).
  credits: 2 + 1 + 2 + 1 + 1,
  // The walk over a workspace holding more; the read followed by a walk where a target refuses its cursor.
  maxCredits: 2 + WALK_MAX_PAGES + 2 + 1 + 1 + WALK_MAX_PAGES,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    // The status is this clause's; the envelope of the 409 body is ERR-001/ERR-002's (the
    // errors suite), so that a broken envelope fails those clauses and not this one as well.

    // POST /definitions: the second body names another definition, which must not appear.
    // With a number and a boolean set, so that bodies differing only in one of those can be sent.
    const first = minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem-conflict-a'), autoApplyThreshold: 0.5, captureEnabled: false });
    const second = { ...first, name: uniqueName(ctx, 'idem-conflict-b') };
    const idem = freshKey(ctx, 'conflict');
    const used = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: first, idempotencyKey: idem });
    const firstId = createdId(used);
    if (firstId === undefined) throw new NotObservable(`the first keyed create was not accepted (${answerOf(used)}), so the key was never used`);
    archiveLater(ctx, key, [firstId]);
    // Bodies that differ from the first only in an array (item count, or an item's field), a
    // number or a boolean are different input too: a fingerprint must not skip arrays nor lose
    // scalar values. Refused with 409, they are free.
    const arrays: [string, Record<string, unknown>][] = [
      ['entityKinds', { ...first, entityKinds: [...(first.entityKinds as string[]), 'deal'] }],
      ['enumValues', { ...first, valueType: first.valueType, enumValues: [{ label: 'Only in the reuse' }] }],
      ['autoApplyThreshold (a number)', { ...first, autoApplyThreshold: 0.75 }],
      ['captureEnabled (a boolean)', { ...first, captureEnabled: true }],
    ];
    for (const [what, body] of arrays) {
      const clash = await ctx.api.send({ method: 'POST', path: '/definitions', key, body, idempotencyKey: idem });
      const id = createdId(clash);
      if (id !== undefined && id !== firstId) archiveLater(ctx, key, [id]);
      if (clash.response?.status !== 409) {
        throw new Finding({
          clause: 'IDEM-004',
          message: `the key reused with a create body that differs only in ${what} was not refused`,
          expected: '409',
          received: answerOf(clash),
          exchange: clash,
          context: [used],
        });
      }
    }
    const reuse = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: second, idempotencyKey: idem });
    const made = createdId(reuse);
    if (made !== undefined && made !== firstId) archiveLater(ctx, key, [made]);
    expectStatus('IDEM-004', reuse, 409);
    // The refused reuses left the key's answer as it was: the first body still replays it.
    judgeReplay(ctx, used, await ctx.api.send({ method: 'POST', path: '/definitions', key, body: first, idempotencyKey: idem }));
    const performed = await liveIdsNamed(ctx, key, String(second.name));
    archiveLater(ctx, key, performed);
    if (performed.length > 0) {
      throw new Finding({
        clause: 'IDEM-004',
        message: 'the refused create was performed: a definition with its name is listed',
        expected: 'no definition of that name',
        received: performed.join(', '),
        exchange: reuse,
        context: [used],
      });
    }

    // PATCH: the second description must not be applied.
    const { id } = await setupDefinition(ctx, key);
    const patchKey = freshKey(ctx, 'conflict-patch');
    const patch = (description: string): ApiRequest => ({ method: 'PATCH', path: `/definitions/${id}`, key, body: { reason: 'idempotency conflict check', description }, idempotencyKey: patchKey });
    const patched = await ctx.api.send(patch('first description'));
    if (!is2xx(patched)) throw new NotObservable(`the first keyed PATCH was not accepted (${answerOf(patched)}), so the key was never used`);
    const clash = await ctx.api.send(patch('second description'));
    expectStatus('IDEM-004', clash, 409);
    const found = await findDefinition(ctx, key, id, false);
    if (!found.item) throw new NotObservable(`definition ${id} is not listed, so whether the refused PATCH was applied cannot be seen`);
    if (found.item.description !== 'first description') {
      throw new Finding({
        clause: 'IDEM-004',
        message: 'the refused PATCH was applied',
        expected: 'description "first description"',
        received: `description ${JSON.stringify(found.item.description)}`,
        exchange: clash,
        context: [patched],
      });
    }
  },
};

export const concurrentSameKey: CheckDef = {
  id: 'idempotency/concurrent-same-key',
  title: `${CONCURRENCY} concurrent identical creates under one key create at most one definition; each answer is the original or a refusal for the key in use (409, 429, 423...)`,
  clauses: ['IDEM-008'],
  endpoints: ['createDefinition'],
  needs: { mutation: true },
  // One create (the others are replays or refusals), the count walk (one page), the clean-up.
  credits: 1 + 1 + 1,
  maxCredits: 1 + WALK_MAX_PAGES + 1,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const body = minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem-concurrent') });
    const req: ApiRequest = { method: 'POST', path: '/definitions', key, body, idempotencyKey: freshKey(ctx, 'concurrent'), retry429: false };
    const answers = await Promise.all(Array.from({ length: CONCURRENCY }, () => ctx.api.send(req)));
    const ids = await liveIdsNamed(ctx, key, String(body.name));
    archiveLater(ctx, key, ids);
    for (const ex of answers) {
      const id = createdId(ex);
      if (id !== undefined && !ids.includes(id.toLowerCase())) archiveLater(ctx, key, [id]);
    }
    if (ids.length === 0 && answers.some(is2xx)) {
      throw new NotObservable('a concurrent create succeeded but its definition is not listed, so the definitions created cannot be counted');
    }
    ctx.judged('IDEM-008');
    if (ids.length > 1) {
      throw new Finding({
        clause: 'IDEM-008',
        message: `${ids.length} definitions were created by ${CONCURRENCY} concurrent requests under one key`,
        expected: 'at most one',
        received: ids.join(', '),
        exchange: answers.find(is2xx) ?? answers[0]!,
        context: answers,
      });
    }
    // Status equality across 2xx answers is IDEM-002's concern; here every success must carry one body.
    const successes = answers.filter(is2xx);
    for (const ex of answers) {
      const res = expectResponse('IDEM-008', ex);
      const first = successes[0]?.response;
      const ok = is2xx(ex) ? sameJson(res.json, first?.json, res.text, first?.text) : concurrencyRefusal(res.status);
      ctx.judged('IDEM-008');
      if (!ok) {
        throw new Finding({
          clause: 'IDEM-008',
          message: is2xx(ex) ? 'two concurrent successes under one key carry different bodies' : `a concurrent request under one key answered ${res.status}`,
          expected: is2xx(ex) ? answerOf(successes[0]!) : `the original answer, or a 4xx refusal other than ${NOT_A_CONCURRENCY_REFUSAL.join(', ')}`,
          received: answerOf(ex),
          exchange: ex,
          context: answers.filter((a) => a !== ex),
        });
      }
    }
  },
};

export const keyAfterRefusal: CheckDef = {
  id: 'idempotency/key-after-refusal',
  title: 'After a create refused as invalid (400 or 422) under a key, a valid body under that key replays the refusal, answers 409, or is processed once',
  clauses: ['IDEM-009'],
  endpoints: ['createDefinition'],
  needs: { mutation: true },
  // The valid create (the reference stores no refusal, so it is processed), the count walk (one
  // page), the clean-up; the refusal and the replay are not billed.
  credits: 1 + 1 + 1,
  // The walk over a workspace holding more (a target that replays the refusal or answers 409 creates nothing).
  maxCredits: 1 + WALK_MAX_PAGES + 1,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const valid = minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem-after-400') });
    // A name longer than the 80 characters of seed 4.4 makes the body invalid and nothing else.
    const invalid = { ...valid, name: `${String(valid.name)}-${'x'.repeat(81)}` };
    const idem = freshKey(ctx, 'after-400');
    const send = (body: Record<string, unknown>): Promise<Exchange> => ctx.api.send({ method: 'POST', path: '/definitions', key, body, idempotencyKey: idem });

    const refused = await send(invalid);
    const strayId = createdId(refused);
    if (strayId !== undefined) archiveLater(ctx, key, [strayId]);
    const refusedWith = expectResponse('IDEM-009', refused).status;
    if (!INVALID_STATUSES.includes(refusedWith)) {
      throw new NotObservable(`the invalid create was not refused as invalid (${answerOf(refused)}), so no key was first used by a refusal`);
    }
    const next = await send(valid);
    const status = expectResponse('IDEM-009', next).status;
    const processed = is2xx(next);
    // Processed once means: a repeat is then a replay of that success, not a second create.
    const repeat = processed ? await send(valid) : undefined;
    // Both names: the refused request must not have created anything either.
    const ids = await liveIdsNamed(ctx, key, [String(valid.name), String(invalid.name)]);
    archiveLater(ctx, key, ids);
    const context = [refused, next, ...(repeat ? [repeat] : [])];

    ctx.judged('IDEM-009');
    if (!processed && status !== refusedWith && status !== 409) {
      throw new Finding({
        clause: 'IDEM-009',
        message: `the valid body under the refused request's key answered ${status}`,
        expected: `${refusedWith} (the refusal replayed), 409, or success`,
        received: answerOf(next),
        exchange: next,
        context,
      });
    }
    const nextId = createdId(next)?.toLowerCase();
    if (processed && (nextId === undefined || !ids.includes(nextId)))
      throw new NotObservable('the valid create succeeded but its definition is not listed, so how often it was processed cannot be counted');
    const expectedCount = processed ? 1 : 0;
    ctx.judged('IDEM-009');
    if (ids.length !== expectedCount) {
      throw new Finding({
        clause: 'IDEM-009',
        message: processed
          ? `the requests under the key (the refused one, the valid one and its repeat) created ${ids.length} definitions, not one`
          : `the valid request answered ${status} yet the requests under its key created ${ids.length} definitions`,
        expected: `${expectedCount} definition${expectedCount === 1 ? '' : 's'} named ${String(valid.name)}, none from the refused request`,
        received: ids.length === 0 ? 'none listed' : ids.join(', '),
        exchange: repeat ?? next,
        context,
      });
    }
    // The body tells a replay from a second execution (a new id); the replayed status is IDEM-002's concern.
    if (repeat && !sameJson(repeat.response?.json, next.response?.json, repeat.response?.text, next.response?.text)) {
      throw new Finding({
        clause: 'IDEM-009',
        message: 'after processing the valid request, a repeat under the key did not return its answer',
        expected: answerOf(next),
        received: answerOf(repeat),
        exchange: repeat,
        context,
      });
    }
  },
};
