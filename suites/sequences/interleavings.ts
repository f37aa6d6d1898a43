/**
 * Interleavings (issue 29 item 3): copies of one keyed request, on every endpoint of 4.1 at once
 * (a create, a PATCH, an archive, a merge-value and a catalog submission), sent in an order
 * fast-check's scheduler draws (fc.scheduler: the seed decides which copy of which endpoint goes
 * first, and all are in flight together). Whatever the order, each endpoint's copies perform
 * their mutation at most once and every answer is the original response or a refusal of a copy
 * sent while the first was in flight (IDEM-008, its readings in specs/clauses.yaml): one create,
 * one added enum value, and the successes of each endpoint carrying one body. A failure names
 * the order the copies were sent in, and replays with the run's seed (wgc run --seed N --check).
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkProperty } from '../../src/engine/property.ts';
import type { ApiRequest } from '../../src/http/api.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { createDefinition, is2xx, minimalCreateBody, uniqueName } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { applyUpdateBody, makeAccount } from '../_shared/ops-fixtures.ts';
import { walkOrNotObservable } from '../_shared/paging-walk.ts';
import { answerOf, concurrencyRefusal, freshKey, NOT_A_CONCURRENCY_REFUSAL, sameJson } from '../idempotency/support.ts';

const KEY = 'interleaver';
/**
 * Interleavings per run, whatever --runs says: each is a scene of its own (three definitions,
 * fifteen copies), and three orders drawn from the seed are enough to vary which copy leads.
 */
const RUNS = 3;
/** The label the PATCH copies add: it must be on the definition once, however many copies ran. */
const ADDED = 'Interleaved';

/** One endpoint's keyed request, sent `copies` times. */
interface Group {
  endpoint: string;
  request: ApiRequest;
  answers: Exchange[];
}

const arbitrary = fc.record({ copies: fc.array(fc.integer({ min: 2, max: 3 }), { minLength: 5, maxLength: 5 }), s: fc.scheduler() });
type Drawn = { copies: number[]; s: fc.Scheduler };

/**
 * Credits of one interleaving on the reference: the three definitions the PATCH, archive and
 * merge-value copies name; one execution per endpoint (the other copies are replays or
 * refusals, free); one listing page read back; the clean-up archives of the created definition
 * and of the two still live (archiving the archived one again is refused on the reference: free).
 */
const PER_RUN = 3 + 5 + 1 + 3;

/** The answers of one group judged: successes carry one body, the rest are concurrency refusals. */
function judgeAnswers(ctx: CheckContext, g: Group, order: string): void {
  const successes = g.answers.filter(is2xx);
  for (const ex of g.answers) {
    ctx.judged('IDEM-008');
    const res = ex.response;
    const ok = res !== undefined && (is2xx(ex) ? sameJson(res.json, successes[0]!.response?.json, res.text, successes[0]!.response?.text) : concurrencyRefusal(res.status));
    if (ok) continue;
    throw new Finding({
      clause: 'IDEM-008',
      message: is2xx(ex)
        ? `two copies of one keyed ${g.endpoint} sent together succeeded with different bodies`
        : `a copy of one keyed ${g.endpoint} sent together answered ${res?.status ?? 'nothing'}`,
      expected: is2xx(ex) ? answerOf(successes[0]!) : `the original answer, or a 4xx refusal other than ${NOT_A_CONCURRENCY_REFUSAL.join(', ')}`,
      received: answerOf(ex),
      exchange: ex,
      context: g.answers.filter((a) => a !== ex),
      scenario: order,
    });
  }
}

/** One interleaving: the groups sent in the scheduler's order, then judged. */
async function interleave(ctx: CheckContext, key: KeyHandle, drawn: Drawn): Promise<void> {
  const patched = (await createDefinition(ctx, key, 'IDEM-008', { enumValues: [{ label: 'Alpha' }] })).definition;
  const merged = (await createDefinition(ctx, key, 'IDEM-008', { enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] })).definition;
  const archived = (await createDefinition(ctx, key, 'IDEM-008')).definition;
  const [from, into] = merged.enum_values.map((v) => v.slug);
  if (from === undefined || into === undefined) throw new NotObservable('the definition made for the merge-value copies shows no two enum value slugs');
  const fx = await makeAccount(ctx, 'interleave');
  const name = uniqueName(ctx, 'interleaved');
  const reason = 'conformance check: interleaved copies';
  const requests: [string, Omit<ApiRequest, 'idempotencyKey'>][] = [
    ['POST /definitions', { method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx, { name }) }],
    ['PATCH /definitions/{id}', { method: 'PATCH', path: `/definitions/${patched.id}`, key, body: { reason, addEnumValues: [{ label: ADDED }] } }],
    ['POST /definitions/{id}/archive', { method: 'POST', path: `/definitions/${archived.id}/archive`, key, body: { reason } }],
    ['POST /definitions/{id}/merge-value', { method: 'POST', path: `/definitions/${merged.id}/merge-value`, key, body: { fromSlug: from, intoSlug: into, reason } }],
    ['POST /operations', { method: 'POST', path: '/operations', key, body: applyUpdateBody(fx, 'interleaved') }],
  ];
  const groups: Group[] = requests.map(([endpoint, r]) => ({ endpoint, request: { ...r, idempotencyKey: freshKey(ctx, 'interleave'), retry429: false }, answers: [] }));
  const sent: string[] = [];
  const inFlight: Promise<void>[] = [];
  for (const [i, g] of groups.entries()) {
    for (let copy = 1; copy <= drawn.copies[i]!; copy++) {
      const label = `${g.endpoint} #${copy}`;
      // Released by the scheduler in the order it draws; each copy goes out as it is released.
      inFlight.push(
        drawn.s.schedule(Promise.resolve(label)).then(async () => {
          sent.push(label);
          g.answers.push(await ctx.api.send(g.request));
        }),
      );
    }
  }
  await drawn.s.waitAll();
  await Promise.all(inFlight);
  const order = `copies sent in this order, all in flight together:\n${sent.map((l, i) => `${i + 1}. ${l}`).join('\n')}`;
  // What ran is cleaned up whatever is judged.
  for (const ex of groups[0]!.answers) {
    const body = ex.response?.json;
    if (is2xx(ex) && isObject(body) && typeof body.id === 'string') {
      const id = body.id;
      ctx.cleanup(async () => void (await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'conformance run clean-up' } })));
      break;
    }
  }
  for (const g of groups) judgeAnswers(ctx, g, order);

  // At most once: one definition of the name, one enum value added (both read from one walk).
  // One page on the reference; a second where a walk ends on an empty page (PAGE-006's readings).
  const walk = await walkOrNotObservable(ctx, key, { limit: 200, includeArchived: true }, 2);
  const named = walk.items.filter((d) => d.name === name);
  const target = walk.items.find((d) => typeof d.id === 'string' && d.id.toLowerCase() === patched.id.toLowerCase());
  const added = Array.isArray(target?.enum_values) ? target.enum_values.filter((v) => isObject(v) && v.label === ADDED).length : undefined;
  ctx.judged('IDEM-008');
  if (named.length > 1 || (added !== undefined && added > 1)) {
    throw new Finding({
      clause: 'IDEM-008',
      message:
        named.length > 1 ? `${named.length} definitions were created by copies of one keyed create sent together` : `copies of one keyed PATCH sent together added the enum value ${added} times`,
      expected: 'the mutation performed at most once',
      received: named.length > 1 ? named.map((d) => String(d.id)).join(', ') : `${added} enum values labelled ${ADDED}`,
      exchange: walk.pages.at(-1)!.exchange,
      context: [...groups[0]!.answers, ...groups[1]!.answers],
      scenario: order,
    });
  }
}

export const interleavings: CheckDef = {
  id: 'sequences/interleavings',
  title: 'Copies of one keyed request on every endpoint of 4.1, sent together in orders fast-check draws, perform each mutation at most once and answer the original or a refusal of a copy in flight',
  clauses: ['IDEM-008'],
  endpoints: ['createDefinition', 'updateDefinition', 'archiveDefinition', 'mergeDefinitionValue', 'submitOperation', 'listDefinitions'],
  needs: { control: true, mutation: true },
  credits: RUNS * PER_RUN,
  // Every copy executed (a target without idempotency), and a walk ending on an empty page, per interleaving.
  maxCredits: RUNS * (3 + 5 * 3 + 2 + 3 + 4),
  async run(ctx) {
    const key = ctx.key(KEY);
    await checkProperty(ctx, {
      clause: 'IDEM-008',
      arbitrary,
      numRuns: RUNS,
      // Each shrinking step is a whole interleaving: a few only.
      maxShrinkCalls: 3,
      predicate: (drawn) => interleave(ctx, key, drawn),
    });
  },
};
