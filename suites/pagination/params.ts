/**
 * The query parameters of GET /definitions (seed 4.3, part 8): limit 1..200, a uuid cursor, a
 * boolean includeArchived. Valid limits and the single-bound violations come from the
 * generators derived from openapi.yaml; the clauses' named cases are sent as well.
 */
import fc from 'fast-check';
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, expectResponse, expectStatus, INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { checkPropertyTrial } from '../../src/engine/property.ts';
import { CHECK_PARALLEL, inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';
import { parameterArbitraries, validValue } from '../../src/generators/index.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { isObject } from '../_shared/json.ts';
import { listQuery } from '../_shared/paging-walk.ts';
import { archivedIncluded, READER } from './support.ts';

/** The generated query parameters of GET /definitions. */
async function listParams(): Promise<ReturnType<typeof parameterArbitraries>> {
  return parameterArbitraries(await loadSpec(), 'listDefinitions', 'query');
}

/** The generated violations of one parameter, as whole query objects. */
async function violationsOf(param: string, keep: (value: Record<string, unknown>) => boolean = () => true): Promise<fc.Arbitrary<Record<string, unknown>>> {
  const found = (await listParams()).violations.filter((v) => v.path === `/${param}`);
  if (found.length === 0) throw new Error(`openapi.yaml: listDefinitions has no bound on ${param} to violate`);
  return fc.oneof(...found.map((v) => v.value as fc.Arbitrary<Record<string, unknown>>)).filter(keep);
}

/**
 * The raw query of a generated parameter object. moduleKeys is left out: its wire form is
 * ambiguous (DEF-023), and leaving an optional parameter out keeps a violation single.
 */
function rawQuery(value: Record<string, unknown>): string {
  return Object.entries(value)
    .filter(([k, v]) => k !== 'moduleKeys' && v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

const list = (ctx: CheckContext, key: KeyHandle, query: string): Promise<Exchange> => ctx.api.send({ method: 'GET', path: '/definitions', key, query });

/** A refusal as invalid (400, or 422) of one query; returns nothing, throws the Finding on `clause`. */
async function expectRefused(ctx: CheckContext, key: KeyHandle, clause: string, query: string): Promise<void> {
  expectStatus(clause, await list(ctx, key, query), INVALID_STATUSES);
}

/**
 * Every generated query refused as invalid (expectRefused): the cases side by side, one at a
 * time as the property where any is not refused (checkPropertyTrial).
 */
async function refusedProperty(ctx: CheckContext, key: KeyHandle, clause: string, arbitrary: fc.Arbitrary<Record<string, unknown>>): Promise<void> {
  const predicate = (v: Record<string, unknown>) => expectRefused(ctx, key, clause, rawQuery(v));
  await checkPropertyTrial(ctx, { clause, arbitrary, predicate }, { n: WIDE_PARALLEL, run: predicate });
}

/** A 2xx answer; the Finding (on `clause`) names the query that was not accepted. */
function expectAccepted(clause: string, ex: Exchange, what: string): Record<string, unknown> {
  const res = expectResponse(clause, ex);
  if (res.status < 200 || res.status >= 300) {
    throw new Finding({ clause, message: `${what} was not accepted`, expected: '2xx with the collection envelope', received: describeResponse(res), exchange: ex });
  }
  const body = res.json;
  if (!isObject(body) || !Array.isArray(body.items)) throw new NotObservable(`the answer to ${what} has no items array (see ENV-001)`);
  return body;
}

export const limitsAccepted: CheckDef = {
  id: 'pagination/limits-accepted',
  title: 'Every limit from 1 to 200 is accepted and a page never holds more items than the limit',
  clauses: ['PAGE-002'],
  endpoints: ['listDefinitions'],
  // The includeArchived probe, limits 1 and 200, one page per generated limit.
  credits: (numRuns) => 3 + numRuns,
  async run(ctx) {
    const key = ctx.key(READER);
    // Archived definitions make pages fuller, so "never more than the limit" bites more often.
    const { includeArchived } = await archivedIncluded(ctx, key);
    const check = async (limit: number): Promise<void> => {
      const ex = await list(ctx, key, listQuery({ limit, includeArchived }));
      const body = expectAccepted('PAGE-002', ex, `limit=${limit}`);
      const items = body.items as unknown[];
      ctx.judged('PAGE-002');
      if (items.length > limit) {
        throw new Finding({
          clause: 'PAGE-002',
          message: `a page asked with limit=${limit} holds ${items.length} items`,
          expected: `at most ${limit} items`,
          received: `${items.length} items`,
          exchange: ex,
        });
      }
    };
    await inParallel([1, 200], CHECK_PARALLEL, check);
    const limit = validValue((await listParams()).schema.properties!.limit!) as fc.Arbitrary<number>;
    await checkPropertyTrial(ctx, { clause: 'PAGE-002', arbitrary: limit, predicate: check }, { n: WIDE_PARALLEL, run: check });
  },
};

export const limitsRefused: CheckDef = {
  id: 'pagination/limits-refused',
  title: 'A limit below 1, above 200 or not an integer is refused as invalid (400 or 422)',
  clauses: ['PAGE-003'],
  endpoints: ['listDefinitions'],
  credits: 0,
  async run(ctx) {
    const key = ctx.key(READER);
    await inParallel(['0', '201', '-1', '1.5', 'abc'], CHECK_PARALLEL, (limit) => expectRefused(ctx, key, 'PAGE-003', `limit=${limit}`));
    await refusedProperty(ctx, key, 'PAGE-003', await violationsOf('limit'));
  },
};

export const cursorRefused: CheckDef = {
  id: 'pagination/cursor-refused',
  title: 'A cursor that is not a uuid is refused as invalid (400 or 422)',
  clauses: ['PAGE-004'],
  endpoints: ['listDefinitions'],
  credits: 0,
  async run(ctx) {
    const key = ctx.key(READER);
    await inParallel(['not-a-uuid', '12345', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', '3fa85f64-5717-4562-b3fc-2c963f66afa6-0'], CHECK_PARALLEL, (cursor) =>
      expectRefused(ctx, key, 'PAGE-004', `cursor=${encodeURIComponent(cursor)}`),
    );
    // An empty value is left out: like an empty header, it may be read as no cursor at all.
    const bad = await violationsOf('cursor', (v) => v.cursor !== '');
    await refusedProperty(ctx, key, 'PAGE-004', bad);
  },
};

export const includeArchivedParam: CheckDef = {
  id: 'pagination/include-archived-param',
  title: 'includeArchived accepts true and false; a value that is not a boolean is refused as invalid (400 or 422)',
  clauses: ['PAGE-009'],
  endpoints: ['listDefinitions'],
  credits: 2,
  async run(ctx) {
    const key = ctx.key(READER);
    await inParallel(['true', 'false'], CHECK_PARALLEL, async (flag) => void expectAccepted('PAGE-009', await list(ctx, key, `includeArchived=${flag}`), `includeArchived=${flag}`));
    await expectRefused(ctx, key, 'PAGE-009', 'includeArchived=maybe');
    await refusedProperty(ctx, key, 'PAGE-009', await violationsOf('includeArchived'));
  },
};
