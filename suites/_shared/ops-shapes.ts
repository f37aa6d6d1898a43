/**
 * Request shapes for endpoints and operations whose shape the seed does not show (4.9: compute
 * bodies, POST /query, decision inputs, trace reads; 4.8: arguments of graph.propose_update
 * and graph.context_refresh). Each is a short list of candidates built only from names the
 * seed uses; a check tries them in order and stops at the first one the target accepts. When
 * the target refuses every candidate from a fully permitted key, what depends on it is not
 * observable: the suite could not form an accepted request, which says nothing about the target.
 */
import type { ApiRequest, CheckContext, KeyHandle } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from './definitions.ts';
import type { AccountFixture } from './ops-fixtures.ts';

/** A request without its key: the caller supplies the key. */
export type Shape = Omit<ApiRequest, 'key'>;

const REASON = 'conformance check';

/** POST /compute/runs: a bulk pmm_refresh (the job the seed names), with and without a reason. */
export function computeRunShapes(): Shape[] {
  return [
    { method: 'POST', path: '/compute/runs', body: { job: 'pmm_refresh', reason: REASON } },
    { method: 'POST', path: '/compute/runs', body: { job: 'pmm_refresh' } },
    { method: 'POST', path: '/compute/runs', body: { reason: REASON } },
    { method: 'POST', path: '/compute/runs', body: {} },
  ];
}

/** POST /compute/preview: the same candidates as a run. */
export function computePreviewShapes(): Shape[] {
  return computeRunShapes().map((s) => ({ ...s, path: '/compute/preview' }));
}

/** POST /query through crm.read_partner_company_properties (a read operation the seed names). */
export function queryShapes(): Shape[] {
  const operation = 'crm.read_partner_company_properties';
  return [
    { method: 'POST', path: '/query', body: { operation, arguments: { properties: ['name'] } } },
    { method: 'POST', path: '/query', body: { operation, arguments: {} } },
    { method: 'POST', path: '/query', body: { operation } },
  ];
}

/** POST /graph/decision-inputs for one definition. */
export function decisionInputShapes(definitionId: string): Shape[] {
  return [
    { method: 'POST', path: '/graph/decision-inputs', body: { definitionIds: [definitionId] } },
    { method: 'POST', path: '/graph/decision-inputs', body: { definition_ids: [definitionId] } },
    { method: 'POST', path: '/graph/decision-inputs', body: { definitionId } },
  ];
}

/**
 * Plausible query forms of a trace read of one record: the seed says a read names an entity
 * kind and an id, but not the parameter names.
 */
export function traceQueries(kind: string, id: string): Record<string, string>[] {
  return [
    { kind, id },
    { entity_kind: kind, entity_id: id },
    { entityKind: kind, entityId: id },
  ];
}

/** GET /graph/traces of an account. */
export function traceShapes(accountId: string): Shape[] {
  return traceQueries('account', accountId).map((query) => ({ method: 'GET', path: '/graph/traces', query }));
}

/**
 * Arguments to try for each catalog operation named in 4.8 (its name → candidates). Shown
 * arguments come first; for the two operations whose arguments are not shown, the shapes of
 * their shown siblings (an edit like apply_update, an account list like agent_preview).
 */
export function operationArgumentShapes(fx: AccountFixture): Record<string, Record<string, unknown>[]> {
  const edit = {
    customer_id: fx.accountId,
    summary: 'Set the title of one contact',
    changes: [{ kind: 'person_field', target_label: 'Title', person_id: fx.accountPersonId, field: 'title', after: 'x' }],
  };
  const accounts = { customerIds: [fx.accountId] };
  return {
    'graph.apply_update': [edit],
    'graph.propose_update': [edit],
    'graph.agent_preview': [accounts],
    'graph.agent_run': [{ ...accounts, mode: 'apply', creditCap: 100, user_said: 'Yes, run it within 100 credits.' }],
    'graph.context_refresh': [accounts, { customer_id: fx.accountId }, {}],
  };
}

/** What trying candidate shapes gave: the accepted exchange (if any) and every attempt. */
export interface Tried {
  accepted?: Exchange;
  attempts: Exchange[];
}

/**
 * Sends the shapes in order until one is answered 2xx. `each` runs around every send (e.g. a
 * ledger measurement) and must return the exchange.
 */
export async function tryShapes(ctx: CheckContext, key: KeyHandle, shapes: readonly Shape[], each: (send: () => Promise<Exchange>) => Promise<Exchange> = (send) => send()): Promise<Tried> {
  const attempts: Exchange[] = [];
  for (const shape of shapes) {
    const ex = await each(() => ctx.api.send({ ...shape, key }));
    attempts.push(ex);
    if (is2xx(ex)) return { accepted: ex, attempts };
  }
  return { attempts };
}

/** "400, 400, 404": the statuses of refused attempts, for a not-observable reason. */
export function statusesOf(attempts: readonly Exchange[]): string {
  return attempts.map((a) => (a.response ? String(a.response.status) : `no response (${a.error?.kind ?? 'unknown'})`)).join(', ');
}
