/**
 * Requests for permission rows whose shape the seed does not show (compute bodies, POST
 * /query) or only partly shows (catalog operations). A fully permitted key tries candidates
 * first; only once one is accepted do refusals of other keys mean anything. When every
 * candidate is refused as invalid, the row is not observable with that reason, never passed.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from './definitions.ts';
import { findObjects, isObject } from './json.ts';
import { computePreviewShapes, computeRunShapes, operationArgumentShapes, queryShapes, statusesOf, type Shape } from './ops-shapes.ts';
import { agentPreviewBody, applyUpdateBody, submitOperation, type AccountFixture } from './ops-fixtures.ts';

/** A request of a row, sent with any key. */
export type Send = (key: KeyHandle) => Promise<Exchange>;

/** What a fully permitted key established: how to send the row's request, and the accepted exchange. */
export interface Established {
  send: Send;
  accepted: Exchange;
}

/**
 * Tries each candidate with `key` (which holds everything the row requires) until one gets 2xx.
 * A 403 means the permitted key was refused: a finding on `clause`, or, without a clause (the
 * check judges something else and another check judges this key), not observable. Every
 * candidate refused otherwise: not observable (the suite could not form an accepted request).
 */
export async function establish(key: KeyHandle, candidates: readonly Send[], clause: string | undefined, what: string): Promise<Established> {
  const attempts: Exchange[] = [];
  for (const send of candidates) {
    const ex = await send(key);
    attempts.push(ex);
    if (is2xx(ex)) return { send, accepted: ex };
    if (ex.response?.status === 403) {
      if (clause === undefined) throw new NotObservable(`${what}: the key that should establish the request (${key.scopes.join(', ')}, ${key.role}) was refused with 403`);
      throw new Finding({
        clause,
        message: `${what}: a key holding every required grant (${key.scopes.join(', ')}, ${key.role}) was refused`,
        expected: 'a 2xx answer',
        received: describeResponse(ex.response),
        exchange: ex,
        context: attempts.slice(0, -1),
      });
    }
  }
  throw new NotObservable(
    `${what}: the request shape is not shown by the seed and the target accepted none of the ${candidates.length} shapes tried with a fully permitted key (statuses ${statusesOf(attempts)})`,
  );
}

const fromShape =
  (ctx: CheckContext, shape: Shape): Send =>
  (key) =>
    ctx.api.send({ ...shape, key });

/** Candidate compute requests (POST /compute/preview or /compute/runs). */
export function computeCandidates(ctx: CheckContext, which: 'preview' | 'runs'): Send[] {
  return (which === 'preview' ? computePreviewShapes() : computeRunShapes()).map((s) => fromShape(ctx, s));
}

/** The crm.read_partner_* operations carried by POST /query (seed 4.9). */
export const QUERY_OPERATIONS = ['crm.read_partner_company_properties', 'crm.read_partner_contact_properties', 'crm.read_partner_deal_properties'] as const;

/**
 * Field keys GET /capabilities lists next to this operation name (the seed: "exact field keys
 * come from the field catalog"): a string array under a key naming fields or properties, in an
 * object that mentions the operation, or in the object filed under the operation's name (a
 * catalog keyed by name). Searched, since the catalog's shape is not shown.
 */
export async function catalogFields(ctx: CheckContext, key: KeyHandle, operation: string): Promise<string[]> {
  const ex = await ctx.api.send({ method: 'GET', path: '/capabilities', key });
  return is2xx(ex) ? fieldsIn(ex.response?.json, operation) : [];
}

/** What {@link catalogFields} finds in a GET /capabilities body already read. */
export function fieldsIn(catalog: unknown, operation: string): string[] {
  const holders = [...findObjects(catalog, (o) => Object.values(o).includes(operation)), ...findObjects(catalog, (o) => isObject(o[operation])).map((o) => o[operation] as Record<string, unknown>)];
  for (const h of holders) {
    for (const [k, v] of Object.entries(h)) {
      if (/field|propert/i.test(k) && Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return (v as string[]).slice(0, 2);
    }
  }
  return [];
}

/** Candidate POST /query requests for one read operation: catalog fields first, then the generic shapes. */
export function queryShapesFor(operation: string, fields: readonly string[]): Shape[] {
  const generic = queryShapes().map((s): Shape => ({ ...s, body: { ...(s.body as Record<string, unknown>), operation } }));
  const fromCatalog: Shape[] = fields.length > 0 ? [{ method: 'POST', path: '/query', body: { operation, arguments: { properties: [...fields] } } }] : [];
  return [...fromCatalog, ...generic];
}

/** {@link queryShapesFor} as requests to send. */
export function queryCandidates(ctx: CheckContext, operation: string, fields: readonly string[]): Send[] {
  return queryShapesFor(operation, fields).map((s) => fromShape(ctx, s));
}

/** graph.agent_preview of one account (the arguments the seed names). */
export const previewOf =
  (ctx: CheckContext, accountId: string): Send =>
  (key) =>
    submitOperation(ctx, key, agentPreviewBody([accountId]));

/** graph.agent_run of one account: mode apply, a credit cap, the user's approving words in user_said and reason. */
export function runOf(ctx: CheckContext, fx: AccountFixture): Send {
  const args = operationArgumentShapes(fx)['graph.agent_run']![0]!;
  return (key) => submitOperation(ctx, key, { operation: 'graph.agent_run', reason: String(args.user_said), arguments: args });
}

/** graph.apply_update of one person_field change (title) to `after`. */
export const applyUpdateOf =
  (ctx: CheckContext, fx: AccountFixture, after: (key: KeyHandle) => string): Send =>
  (key) =>
    submitOperation(ctx, key, applyUpdateBody(fx, after(key)));
