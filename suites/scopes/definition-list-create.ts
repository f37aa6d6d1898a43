/**
 * Permission rows "definition list" (graph:read) and "definition create" (admin), seed part 5
 * table and 4.3-4.4: every cast key is sent; keys holding the row's scopes are let through,
 * all others are refused with 403 and the error envelope, and a refused create stores nothing.
 */
import type { CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { judgeSweep, sweep } from '../_shared/access-judge.ts';
import { listedNames } from './readback.ts';
import { isObject } from '../_shared/json.ts';
import { byScopes, castHolding, endpointScopes, fullKey, split } from './matrix.ts';
import { NO_TRACE } from './untouched.ts';

/**
 * GET /definitions. SCOPE-001 is judged by the key holding no scope at all; keys holding only
 * other scopes (admin alone, graph:write alone...) judge SCOPE-010: if the scope-less key is
 * refused but one of those is let through, another scope was taken to imply graph:read.
 */
export const definitionList: CheckDef = {
  id: 'scopes/definition-list',
  title: 'GET /definitions is let through with graph:read and refused with 403 without it, whatever other scopes the key holds',
  clauses: ['SCOPE-001', 'SCOPE-010', 'ERR-007'],
  endpoints: ['listDefinitions'],
  credits: castHolding(['graph:read']),
  async run(ctx) {
    const required = await endpointScopes('listDefinitions');
    const { refused, permitted } = split(ctx, required, 'GET /definitions');
    const attempts = await sweep([...refused, ...permitted], byScopes(required), (key) => ctx.api.send({ method: 'GET', path: '/definitions', key }), { together: true });
    judgeSweep(ctx, attempts, { row: 'SCOPE-001', letThrough: (k) => (k.scopes.length === 0 ? 'SCOPE-001' : 'SCOPE-010'), forbidden: 'ERR-007' }, 'GET /definitions');
  },
};

/** POST /definitions; afterwards the listing (archived included) must hold no definition a create lacking admin named. */
export const definitionCreate: CheckDef = {
  id: 'scopes/definition-create',
  title: 'POST /definitions is let through with admin and refused with 403 without it, storing nothing',
  clauses: ['SCOPE-002', 'SCOPE-012', 'ERR-007'],
  endpoints: ['createDefinition'],
  needs: { mutation: true },
  // The permitted creates, their archiving at clean-up, and a listing (one page: the suite's
  // workspace holds few definitions).
  credits: castHolding(['admin']) * 2 + 1,
  // A listing of two pages (a workspace holding more, or ending on an empty page).
  maxCredits: castHolding(['admin']) * 2 + 2,
  async run(ctx) {
    const required = await endpointScopes('createDefinition');
    const { refused, permitted } = split(ctx, required, 'POST /definitions');
    const reader = fullKey(ctx);
    const names = new Map<string, string>();
    const send = (key: KeyHandle) => {
      const body = minimalCreateBody(ctx);
      names.set(key.name, String(body.name));
      return ctx.api.send({ method: 'POST', path: '/definitions', key, body });
    };
    // Each key's create names a definition of its own: they go together.
    const attempts = await sweep([...refused, ...permitted], byScopes(required), send, { together: true });
    // Whatever a 2xx stored is archived again, whoever was let through.
    for (const a of attempts) {
      const id = is2xx(a.ex) && isObject(a.ex.response?.json) ? a.ex.response.json.id : undefined;
      if (typeof id === 'string') ctx.cleanup(async () => void (await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key: reader, body: { reason: 'conformance run clean-up' } })));
    }
    judgeSweep(ctx, attempts, { row: 'SCOPE-002', forbidden: 'ERR-007' }, 'POST /definitions');

    // Every create from a key lacking admin must have been refused, so none may be stored,
    // whatever it was answered (a 2xx is also SCOPE-002's finding).
    const lacking = attempts.filter((a) => a.expect === 'refuse');
    const listed = await listedNames(ctx, reader);
    const stored = lacking.filter((a) => listed.has(names.get(a.key.name)!));
    for (const a of stored.filter((x) => !is2xx(x.ex))) {
      const id = listed.get(names.get(a.key.name)!)!;
      ctx.cleanup(async () => void (await ctx.api.send({ method: 'POST', path: `/definitions/${id}/archive`, key: reader, body: { reason: 'conformance run clean-up' } })));
    }
    if (lacking.length > 0) ctx.judged(NO_TRACE);
    if (stored.length > 0) {
      ctx.softFail({
        clause: NO_TRACE,
        message: `POST /definitions: creates from keys lacking admin were stored: ${stored.map((a) => `${a.key.name} (${a.ex.response?.status}) → "${names.get(a.key.name)}"`).join(', ')}`,
        expected: 'no definition named as a create from a key lacking admin',
        received: `listed: ${stored.map((a) => names.get(a.key.name)).join(', ')}`,
        exchange: stored[0]!.ex,
        context: stored.slice(1, 6).map((a) => a.ex),
      });
    }
  },
};
