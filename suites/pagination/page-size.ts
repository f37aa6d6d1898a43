/**
 * The default page size (seed 4.3 limit, part 8): without limit, a page holds 50 items when
 * more than 50 are visible. The check makes sure 51 are (creating only what is missing).
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse, expectResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { isObject } from '../_shared/json.ts';
import { listQuery } from '../_shared/paging-walk.ts';
import { archivedIncluded, seed, visibleUpTo, WRITER } from './support.ts';

const DEFAULT_LIMIT = 50;

export const defaultPageSize: CheckDef = {
  id: 'pagination/default-page-size',
  title: 'Without limit, a page holds 50 items when more than 50 are visible',
  clauses: ['PAGE-001'],
  endpoints: ['listDefinitions'],
  needs: { mutation: true },
  // The includeArchived probe, the count probe, 51 creates (the suite's read-only checks before
  // this one created nothing) and their clean-up archives, the default page. A workspace that
  // already holds definitions needs fewer creates.
  credits: 2 + 2 * (DEFAULT_LIMIT + 1) + 1,
  // A recount where includeArchived is refused and the page came back short.
  maxCredits: 2 + 2 * (DEFAULT_LIMIT + 1) + 2,
  async run(ctx) {
    const key = ctx.key(WRITER);
    // With includeArchived=true no filter stands between the page size and the page (a filter
    // applied after the limit is PAGE-007's concern), and archived leftovers count as items.
    const q = await archivedIncluded(ctx, key);
    const visible = await visibleUpTo(ctx, key, DEFAULT_LIMIT + 1, q);
    if (visible <= DEFAULT_LIMIT) await seed(ctx, key, DEFAULT_LIMIT + 1 - visible, ['customers'], 'pagesize');
    const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key, query: listQuery(q) });
    const res = expectResponse('PAGE-001', ex);
    const body = res.json;
    if (res.status < 200 || res.status >= 300 || !isObject(body) || !Array.isArray(body.items)) {
      throw new NotObservable(`GET /definitions without limit gave no usable page (${describeResponse(res)})`);
    }
    if (body.items.length < DEFAULT_LIMIT && !q.includeArchived && (await visibleUpTo(ctx, key, DEFAULT_LIMIT + 1, q)) <= DEFAULT_LIMIT) {
      // Without includeArchived somebody else's archives may have hidden items meanwhile.
      throw new NotObservable(`fewer than ${DEFAULT_LIMIT + 1} definitions stayed visible while the check listed them (the workspace changed under it)`);
    }
    ctx.judged('PAGE-001');
    if (body.items.length !== DEFAULT_LIMIT) {
      throw new Finding({
        clause: 'PAGE-001',
        message: `the default page${q.includeArchived ? ' (includeArchived=true)' : ''} holds ${body.items.length} items while more than ${DEFAULT_LIMIT} are listed`,
        expected: `${DEFAULT_LIMIT} items`,
        received: `${body.items.length} items`,
        exchange: ex,
      });
    }
  },
};
