/**
 * The default page size (seed 4.3 limit, part 8): without limit, a page holds 50 items when
 * more than 50 are visible. The check makes sure 51 are (creating only what is missing).
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse, expectResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { isObject } from '../_shared/json.ts';
import { seed, visibleUpTo, WRITER } from './support.ts';

const DEFAULT_LIMIT = 50;

export const defaultPageSize: CheckDef = {
  id: 'pagination/default-page-size',
  title: 'Without limit, a page holds 50 items when more than 50 are visible',
  clauses: ['PAGE-001'],
  needs: { mutation: true },
  // The count probe, up to 51 creates and their clean-up archives, the default page.
  credits: 1 + 2 * (DEFAULT_LIMIT + 1) + 1,
  async run(ctx) {
    const key = ctx.key(WRITER);
    const visible = await visibleUpTo(ctx, key, DEFAULT_LIMIT + 1);
    if (visible <= DEFAULT_LIMIT) await seed(ctx, key, DEFAULT_LIMIT + 1 - visible, ['customers'], 'pagesize');
    const ex = await ctx.api.send({ method: 'GET', path: '/definitions', key });
    const res = expectResponse('PAGE-001', ex);
    const body = res.json;
    if (res.status < 200 || res.status >= 300 || !isObject(body) || !Array.isArray(body.items)) {
      throw new NotObservable(`GET /definitions without parameters gave no usable page (${describeResponse(res)})`);
    }
    if (body.items.length !== DEFAULT_LIMIT) {
      throw new Finding({
        clause: 'PAGE-001',
        message: `the default page holds ${body.items.length} items while more than ${DEFAULT_LIMIT} are visible`,
        expected: `${DEFAULT_LIMIT} items`,
        received: `${body.items.length} items`,
        exchange: ex,
      });
    }
  },
};
