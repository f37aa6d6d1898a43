/**
 * The live catalog (seed part 1, 4.8 and 9 rule 2): every operation named in 4.8 that the
 * server accepts from a fully permitted caller appears by name in GET /capabilities. Which
 * operations a server accepts is found by submitting each; the catalog's shape is not shown,
 * so the names are searched as strings anywhere in its body.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, containsString } from '../_shared/json.ts';
import { AGENT_CALL_CREDITS, AGENT_CALL_MAX_CREDITS, makeAccount, submitOperation } from '../_shared/ops-fixtures.ts';
import { operationArgumentShapes, statusesOf } from '../_shared/ops-shapes.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

export const acceptedOperationsListed: CheckDef = {
  id: 'operations/accepted-operations-listed',
  title: 'Every 4.8 operation the server accepts from a fully permitted key is listed by name in GET /capabilities',
  clauses: ['OPS-003'],
  needs: { control: true, mutation: true },
  // One accepted submission per operation named in 4.8 (the reference accepts all five): three
  // edits and refreshes, an agent preview and an agent run.
  credits: 3 + 2 * AGENT_CALL_CREDITS,
  // Agent fees charged on top.
  maxCredits: 3 + 2 * AGENT_CALL_MAX_CREDITS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-003');
    const owner = ctx.key('owner');
    const spec = await loadSpec();
    const named = Object.entries(spec.catalogOperations)
      .filter(([, rule]) => rule.via === 'POST /operations')
      .map(([name]) => name);
    const shapes = operationArgumentShapes(await makeAccount(ctx, 'ops-catalog'));
    const accepted = new Map<string, Exchange>();
    const refused: string[] = [];
    for (const name of named) {
      const attempts: Exchange[] = [];
      for (const args of shapes[name] ?? [{}]) {
        // agent_run carries the user's approving words in both user_said and reason (4.8).
        const reason = typeof args.user_said === 'string' ? args.user_said : 'conformance check: catalog coverage';
        const ex = await submitOperation(ctx, owner, { operation: name, arguments: args, reason });
        attempts.push(ex);
        if (is2xx(ex)) {
          accepted.set(name, ex);
          break;
        }
      }
      if (!accepted.has(name)) refused.push(`${name} (${statusesOf(attempts)})`);
    }
    if (accepted.size === 0) throw new NotObservable(`the server accepted none of the operations named in 4.8 with the arguments tried: ${refused.join('; ')}`);

    const catalog = await ctx.api.send({ method: 'GET', path: '/capabilities', key: owner });
    if (!is2xx(catalog) || !catalog.response?.isJson) {
      throw new Finding({
        clause: 'OPS-003',
        message: 'GET /capabilities did not serve a JSON catalog to a fully permitted key',
        expected: '2xx with the catalog',
        received: catalog.response ? describeResponse(catalog.response) : `no response (${catalog.error?.kind})`,
        exchange: catalog,
      });
    }
    for (const [name, ex] of accepted) {
      ctx.judged('OPS-003');
      if (containsString(catalog.response.json, name)) continue;
      ctx.softFail({
        clause: 'OPS-003',
        message: `POST /operations accepted ${name}, but GET /capabilities does not name it`,
        expected: `the string "${name}" somewhere in the catalog`,
        received: brief(catalog.response.json, 500),
        exchange: catalog,
        context: [ex],
      });
    }
  },
};
