/**
 * POST /query: live partner-CRM reads through the three read operations (seed 4.9), needing
 * crm:read. Property keys must come from the field catalog. The reference's "CRM" is the
 * in-memory record set written by the crm.* mutation operations.
 */
import { badRequest } from './errors.ts';
import { forgets } from './faults.ts';
import { CRM_FIELDS, QUERY_OPERATIONS } from './fields.ts';
import type { Ctx, Route } from './route.ts';
import { arr, num, obj, oneOf, opt, parseBody, req, str } from './validate.ts';

const queryBody = obj({
  operation: req(oneOf(Object.keys(QUERY_OPERATIONS))),
  arguments: req(
    obj({
      properties: req(arr(str({ min: 1, max: 100 }), { min: 1, max: 50, unique: true })),
      recordIds: opt(arr(str({ min: 1, max: 200 }), { max: 100 })),
      limit: opt(num({ int: true, min: 1, max: 100 }), () => 20),
    }),
  ),
});

// Stryker disable all: 4.9 shows neither the request nor the response shape of POST /query (only its three operations, crm:read and that field keys come from the catalog): which bodies the reference refuses and what its result holds are its own; the route's scope, capability and price (CRM_ROUTES) are the document's
function query(ctx: Ctx) {
  const b = parseBody(queryBody, ctx.body, 'body', ctx.relax, ctx.store.reading);
  const object = QUERY_OPERATIONS[b.operation]!;
  const known = CRM_FIELDS[object] as readonly string[];
  for (const p of b.arguments.properties) if (!known.includes(p)) throw badRequest(`body.arguments.properties: "${p}" is not a ${object} field of the field catalog`);
  const wanted = b.arguments.recordIds ? new Set(b.arguments.recordIds) : null;
  const items = [...ctx.ws.crm.entries()]
    .filter(([k, r]) => k.startsWith(`${object}:`) && (!wanted || wanted.has(String(r.id))))
    .map(([, r]) => r)
    .sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1))
    .slice(0, b.arguments.limit)
    .map((r) => ({ id: r.id, properties: Object.fromEntries(b.arguments.properties.map((p) => [p, r[p] ?? null])) }));
  // A rule-cells fault may forget the price of this one read operation.
  return { status: 200, body: ctx.store.choices.layout.queryResult(b.operation, object, items), ...(forgets(ctx.faults, 'price', `api:query.${b.operation}`) ? { credits: 0 } : {}) };
}

// Stryker restore all

export const CRM_ROUTES: readonly Route[] = [{ method: 'POST', pattern: '/query', surface: 'api:query', billable: true, scopes: ['crm:read'], capability: 'crm', body: true, handle: query }];
