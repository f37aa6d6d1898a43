/**
 * The Idempotency-Key itself (seed 4.1 and part 8): 1 to 128 visible ASCII characters, no
 * spaces. Keys come from the generators derived from the header parameter of openapi.yaml
 * (valid values biased to the bounds, and the single-bound violations), plus the named cases
 * of the clauses: 129 characters, an empty value, a space, latin-1 "é", a tab.
 */
import { randomInt, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { expectResponse, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkProperty } from '../../src/engine/property.ts';
import { parameterArbitraries } from '../../src/generators/index.ts';
import { loadSpec } from '../../src/spec/load.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx, minimalCreateBody, uniqueName } from '../_shared/definitions.ts';
import { walkOrNotObservable, WALK_MAX_PAGES } from '../_shared/paging-walk.ts';
import { ADMIN, answerOf, archiveLater, createdId, liveIdsNamed, setupDefinition, SHORT_KEYS } from './support.ts';

const HEADER = 'Idempotency-Key';
/** Keys at least this long get a random uuid head (36 characters) that makes them unique. */
const UNIQUE_HEAD = 36;

/** The generator's arbitraries of the Idempotency-Key header of one operation. */
async function keyArbitraries(operationId: string): Promise<ReturnType<typeof parameterArbitraries>> {
  return parameterArbitraries(await loadSpec(), operationId, 'header');
}

/** The generated violations of one keyword, as arbitraries of the bad key. */
async function badKeys(keyword: string): Promise<fc.Arbitrary<string>> {
  const found = (await keyArbitraries('createDefinition')).violations.filter((v) => v.path === `/${HEADER}` && v.keyword === keyword);
  if (found.length === 0) throw new Error(`openapi.yaml: createDefinition's ${HEADER} header has no ${keyword} bound to violate`);
  return fc.oneof(...found.map((v) => v.value.map((x) => String((x as Record<string, unknown>)[HEADER]))));
}

/** True when the HTTP client itself could not put the value in a header (nothing reached the target). */
const unsendable = (ex: Exchange): boolean => !ex.response && ex.error?.kind === 'other';

/** How an invalid key's refusal reads in findings (part 7 rule 4: 400, or 422 outside the table). */
const REFUSED = INVALID_STATUSES.join(' or ');

/**
 * A create under an invalid key must be refused as invalid (400, or 422). Returns false when the
 * client could not send the value. Every name tried is recorded so that the check can show
 * nothing was created.
 */
async function expectRefused(ctx: CheckContext, key: KeyHandle, clause: string, idem: string, names: string[]): Promise<boolean> {
  const body = minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem-badkey') });
  const ex = await ctx.api.send({ method: 'POST', path: '/definitions', key, body, idempotencyKey: idem });
  if (unsendable(ex)) return false;
  names.push(String(body.name));
  const id = createdId(ex);
  if (id !== undefined) archiveLater(ctx, key, [id]);
  const res = expectResponse(clause, ex);
  ctx.judged(clause);
  if (!INVALID_STATUSES.includes(res.status)) {
    throw new Finding({
      clause,
      message: `a create under the invalid Idempotency-Key ${JSON.stringify(idem)} answered ${res.status}`,
      expected: `status ${REFUSED}`,
      received: answerOf(ex),
      exchange: ex,
    });
  }
  return true;
}

/** None of the refused creates appears in the listing. */
async function expectNoneCreated(ctx: CheckContext, key: KeyHandle, clause: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const wanted = new Set(names);
  const walk = await walkOrNotObservable(ctx, key);
  const made = walk.items.filter((i) => typeof i.name === 'string' && wanted.has(i.name));
  ctx.judged(clause);
  if (made.length > 0) {
    archiveLater(
      ctx,
      key,
      made.map((i) => String(i.id)),
    );
    throw new Finding({
      clause,
      message: 'a create refused for its Idempotency-Key was performed anyway',
      expected: 'no definition from a refused create',
      received: made.map((i) => `${String(i.id)} ${String(i.name)}`).join(', '),
    });
  }
}

export const keyTooLong: CheckDef = {
  id: 'idempotency/key-too-long',
  title: 'An Idempotency-Key longer than 128 characters is refused with 400 or 422 (an empty one: refused so, or treated as absent)',
  clauses: ['IDEM-005'],
  endpoints: ['createDefinition'],
  needs: { mutation: true },
  // Refusals are free (the empty key too, on the reference); one walk (one page).
  credits: 1,
  // The empty key treated as absent (two creates and their clean-up); the walk over a workspace holding more.
  maxCredits: 4 + WALK_MAX_PAGES,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const names: string[] = [];
    await expectRefused(ctx, key, 'IDEM-005', `${ctx.run.prefix}${randomUUID()}`.padEnd(129, '~'), names);
    await checkProperty(ctx, { clause: 'IDEM-005', arbitrary: await badKeys('maxLength'), predicate: async (idem) => void (await expectRefused(ctx, key, 'IDEM-005', idem, names)) });

    // An empty value is either a key of length 0 (refused as invalid) or no key at all (the create proceeds).
    const body = minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem-emptykey') });
    const empty = await ctx.api.send({ method: 'POST', path: '/definitions', key, body, idempotencyKey: '' });
    const id = createdId(empty);
    if (id !== undefined) archiveLater(ctx, key, [id]);
    const res = expectResponse('IDEM-005', empty);
    ctx.judged('IDEM-005');
    if (!INVALID_STATUSES.includes(res.status) && !is2xx(empty)) {
      throw new Finding({
        clause: 'IDEM-005',
        message: `a create with an empty Idempotency-Key answered ${res.status}`,
        expected: `${REFUSED}, or the create as without a key`,
        received: answerOf(empty),
        exchange: empty,
      });
    }
    // Whichever reading, the empty value is never a key: a second create under it with another
    // body is refused the same way, or is a create of its own (never a replay, never a conflict).
    const again = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx, { name: uniqueName(ctx, 'idem-emptykey') }), idempotencyKey: '' });
    const againId = createdId(again);
    if (againId !== undefined && againId !== id) archiveLater(ctx, key, [againId]);
    const sameReading = is2xx(empty) ? is2xx(again) && againId !== undefined && againId !== id : INVALID_STATUSES.includes(again.response?.status ?? 0);
    ctx.judged('IDEM-005');
    if (!sameReading) {
      throw new Finding({
        clause: 'IDEM-005',
        message: `a second create under an empty Idempotency-Key, with another body, answered ${answerOf(again)} after the first answered ${answerOf(empty)}: the empty value was used as a key`,
        expected: is2xx(empty) ? 'a create of its own (the empty value treated as absent)' : REFUSED,
        received: answerOf(again),
        exchange: again,
        context: [empty],
      });
    }
    await expectNoneCreated(ctx, key, 'IDEM-005', names);
  },
};

export const keyCharset: CheckDef = {
  id: 'idempotency/key-charset',
  title: 'An Idempotency-Key with a space or a character outside visible ASCII is refused with 400 or 422',
  clauses: ['IDEM-006'],
  endpoints: ['createDefinition'],
  needs: { mutation: true },
  // Refusals are free; one walk (one page) shows nothing was created.
  credits: 1,
  maxCredits: WALK_MAX_PAGES,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const names: string[] = [];
    let sent = 0;
    // Inner characters only: leading and trailing whitespace is stripped by HTTP itself.
    for (const idem of [`${ctx.run.prefix}a b`, `${ctx.run.prefix}a\u00e9b`, `${ctx.run.prefix}a\tb`]) {
      if (await expectRefused(ctx, key, 'IDEM-006', idem, names)) sent++;
    }
    await checkProperty(ctx, {
      clause: 'IDEM-006',
      arbitrary: await badKeys('pattern'),
      predicate: async (idem) => {
        if (await expectRefused(ctx, key, 'IDEM-006', idem, names)) sent++;
      },
    });
    if (sent === 0) throw new NotObservable('the HTTP client could not send any of the invalid keys');
    await expectNoneCreated(ctx, key, 'IDEM-006', names);
  },
};

/**
 * `key` when the check has not sent it yet, else the first key of the same length, one visible
 * ASCII character different, that it has not sent either. Generated short keys come back (and
 * may equal the random one-character key): sent again, one would be a replay, which shows
 * nothing new about the key's bounds and is not billed, so the check's credits would depend on
 * the draw.
 */
function unusedLike(key: string, used: ReadonlySet<string>): string {
  if (!used.has(key)) return key;
  for (let i = key.length - 1; i >= 0; i--) {
    for (let c = 0x21; c <= 0x7e; c++) {
      const other = key.slice(0, i) + String.fromCharCode(c) + key.slice(i + 1);
      if (!used.has(other)) return other;
    }
  }
  return key;
}

export const keyBoundsAccepted: CheckDef = {
  id: 'idempotency/key-bounds-accepted',
  title: 'Idempotency-Keys of 1 to 128 visible ASCII characters (both bounds included) are accepted',
  clauses: ['IDEM-007'],
  endpoints: ['createDefinition', 'updateDefinition'],
  needs: { mutation: true },
  // Setup create and clean-up, then one PATCH per key, each key used once: a 1-character key,
  // a 128-character key, the generated ones; then a create under a 1-character and under a
  // 128-character key, and their clean-up archives.
  credits: (numRuns) => 2 + 2 + numRuns + 4,
  async run(ctx) {
    const key = ctx.key(ADMIN);
    const { id } = await setupDefinition(ctx, key);
    // One body for every key, and every key used once (unusedLike): each PATCH is a first use.
    const body = { reason: 'idempotency key bounds check', description: 'key bounds' };
    // The short keys of key-bounds-every-endpoint are left to it.
    const used = new Set<string>(SHORT_KEYS);
    const accept = async (drawn: string): Promise<void> => {
      const idem = unusedLike(drawn, used);
      used.add(idem);
      const ex = await ctx.api.send({ method: 'PATCH', path: `/definitions/${id}`, key, body, idempotencyKey: idem });
      ctx.judged('IDEM-007');
      if (is2xx(ex)) return;
      const res = expectResponse('IDEM-007', ex);
      // A short key cannot be made unique: another run (or another workspace, where keys are
      // scoped wider) may have used it. A 409 then shows it was read as a key; a refused key is 400 or 422.
      if (res.status === 409 && idem.length < UNIQUE_HEAD) return;
      throw new Finding({
        clause: 'IDEM-007',
        message: `a PATCH under the valid ${idem.length}-character Idempotency-Key ${JSON.stringify(idem)} answered ${res.status}`,
        expected: '2xx',
        received: answerOf(ex),
        exchange: ex,
      });
    };
    await accept(String.fromCharCode(0x21 + randomInt(94)));
    await accept(`${ctx.run.prefix}${randomUUID()}`.padEnd(128, '~'));
    const valid = (await keyArbitraries('updateDefinition')).valid
      .map((v) => v[HEADER])
      .filter((k): k is string => typeof k === 'string')
      // Long keys get a fresh random head (same length, still visible ASCII; the exchange shows
      // the key sent) so that runs with the same seed never collide on a persistent target.
      .map((k) => (k.length >= UNIQUE_HEAD ? randomUUID() + k.slice(UNIQUE_HEAD) : k));
    await checkProperty(ctx, { clause: 'IDEM-007', arbitrary: valid, predicate: accept });
    // Both ends on POST /definitions too (the other endpoints of 4.1: key-bounds-every-endpoint).
    for (const drawn of [String.fromCharCode(0x21 + randomInt(94)), `${ctx.run.prefix}${randomUUID()}`.padEnd(128, '~')]) {
      const idem = unusedLike(drawn, used);
      used.add(idem);
      const ex = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx), idempotencyKey: idem });
      const made = createdId(ex);
      if (made) archiveLater(ctx, key, [made]);
      ctx.judged('IDEM-007');
      if (is2xx(ex) || (ex.response?.status === 409 && idem.length < UNIQUE_HEAD)) continue;
      ctx.softFail({
        clause: 'IDEM-007',
        message: `a create under the valid ${idem.length}-character Idempotency-Key ${JSON.stringify(idem)} was not accepted`,
        expected: '2xx',
        received: answerOf(ex),
        exchange: ex,
      });
    }
  },
};
