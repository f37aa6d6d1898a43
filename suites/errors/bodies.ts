/**
 * What the body checks share: a scratch definition (so that the definition endpoints reach
 * their body instead of answering 404), the JSON-body endpoints read from specs/openapi.yaml,
 * and the raw sender for bodies that are not what JSON.stringify would make.
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { isObject } from '../_shared/json.ts';
import { archiveIfCreated } from '../_shared/ops-fixtures.ts';

/** An endpoint that takes a JSON body, with its path made concrete. */
export interface BodyEndpoint {
  operationId: string;
  method: 'POST' | 'PATCH' | 'PUT';
  path: string;
  /**
   * False where the seed does not show the request shape (4.9: POST /query, /compute/*,
   * /graph/decision-inputs; the body schema carries x-wgc-not-shown): such an endpoint may
   * take no body at all and never read one, so what it does with a bad body says nothing.
   */
  shown: boolean;
}

/** Creates a definition to send bodies to (archived at clean-up); undefined when refused. */
export async function scratchDefinition(ctx: CheckContext, key: KeyHandle): Promise<string | undefined> {
  const ex = await ctx.api.send({ method: 'POST', path: '/definitions', key, body: minimalCreateBody(ctx, { enumValues: [{ label: 'Alpha' }, { label: 'Beta' }] }) });
  archiveIfCreated(ctx, key, ex);
  const body = ex.response?.json;
  return is2xx(ex) && isObject(body) && typeof body.id === 'string' ? body.id : undefined;
}

/**
 * Every operation of the contract with a JSON request body. Paths with {definitionId} use
 * `definitionId`; without one they are left out (and so are paths with other parameters).
 */
export async function jsonBodyEndpoints(definitionId: string | undefined): Promise<BodyEndpoint[]> {
  const spec = await loadSpec();
  const out: BodyEndpoint[] = [];
  for (const op of spec.operations) {
    if (!op.requestBodySchema || !['POST', 'PATCH', 'PUT'].includes(op.method)) continue;
    const path = definitionId ? op.path.replace('{definitionId}', encodeURIComponent(definitionId)) : op.path;
    if (path.includes('{')) continue;
    const shown = op.requestBodySchema['x-wgc-not-shown'] === undefined;
    out.push({ operationId: op.operationId, method: op.method as BodyEndpoint['method'], path, shown });
  }
  return out;
}

/** Sends `text` as the body with the given content type (JSON by default). */
export function sendRaw(ctx: CheckContext, key: KeyHandle, ep: Pick<BodyEndpoint, 'method' | 'path'>, text: string, contentType = 'application/json'): Promise<Exchange> {
  return ctx.api.send({ method: ep.method, path: ep.path, key, rawBody: text, headers: { 'content-type': contentType } });
}

/** True for 503: the capability behind the endpoint is not configured, so its body is never read. */
export const unavailable = (ex: Exchange): boolean => ex.response?.status === 503;
