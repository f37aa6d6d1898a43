/**
 * One request for every endpoint of specs/openapi.yaml, for the rules that govern every
 * endpoint alike (a missing or dead key is rejected, a rejection costs nothing). Each request
 * is valid wherever the seed shows the shape, so the rule under test is its only fault: path
 * ids are fresh uuids (a key that works gets 404 there, never 2xx), bodies are the smallest
 * valid ones. Where the seed does not show the request shape (x-wgc-request-not-shown, the
 * endpoints of 4.9) the suite's first candidate shape is sent; the request may then be
 * invalid too, and part 7 rule 4 leaves open which fault a server answers first, so a refusal
 * as invalid (400 or 422) is accepted beside the rule's own status. A path the seed never
 * names (x-wgc-guessed: /data/icps) may not exist on the server, which may route before it
 * authenticates: 404 is accepted there.
 *
 * The table is the one place that says which endpoints such a rule reaches: the checks loop
 * over it, and the rule × endpoint coverage table (docs/coverage.md) is read from it.
 */
import { randomUUID } from 'node:crypto';
import type { ApiRequest, CheckContext } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { loadSpec, type LoadedSpec, type OperationInfo } from '../../src/spec/load.ts';
import { minimalCreateBody } from './definitions.ts';
import { computePreviewShapes, computeRunShapes, decisionInputShapes, queryShapes, traceShapes, type Shape } from './ops-shapes.ts';

/**
 * How many endpoints x-wgc-billing marks billed: the credit ceilings of checks that sweep every
 * endpoint are built on it, so it is a constant (plans are static), held to the document when
 * the table is built.
 */
export const BILLED_ENDPOINTS = 15;

/** A request of one endpoint, without its key, and the extra answers its rule must accept there. */
export interface EndpointRequest {
  operationId: string;
  /** "METHOD /template", for messages. */
  label: string;
  request: Shape;
  /** Billed when it succeeds (x-wgc-billing). */
  billed: boolean;
  /** True when the request changes state on a server that wrongly lets it through. */
  write: boolean;
  /** Answers accepted beside the rule's own status, and why (see the module comment). */
  alsoAccepted: readonly number[];
}

const REASON = 'conformance check';

/** The body of `operationId` (see the module comment), or undefined for an endpoint without one. */
function bodyFor(ctx: CheckContext, operationId: string): unknown {
  switch (operationId) {
    case 'createDefinition':
      return minimalCreateBody(ctx);
    case 'updateDefinition':
    case 'archiveDefinition':
      return { reason: REASON };
    case 'mergeDefinitionValue':
      return { fromSlug: 'a', intoSlug: 'b', reason: REASON };
    case 'submitOperation':
      // graph.apply_update with the arguments 4.8 shows (ids of nothing: existence is looked up
      // only once the workspace is known, from the key).
      return {
        operation: 'graph.apply_update',
        arguments: {
          customer_id: randomUUID(),
          summary: REASON,
          changes: [{ kind: 'person_field', target_label: 'Title', person_id: randomUUID(), field: 'title', after: 'x' }],
        },
        reason: REASON,
      };
    default:
      return undefined;
  }
}

/** The first candidate shape of an endpoint whose request shape the seed does not show. */
function candidateFor(operationId: string): Shape | undefined {
  switch (operationId) {
    case 'runQuery':
      return queryShapes()[0];
    case 'previewCompute':
      return computePreviewShapes()[0];
    case 'startComputeRun':
      return computeRunShapes()[0];
    case 'prepareDecisionInputs':
      return decisionInputShapes(randomUUID())[0];
    case 'readTraces':
      return traceShapes(randomUUID())[0];
    default:
      return undefined;
  }
}

/** The operation's x-wgc marker `name` (an explanation string), if the document sets one. */
function marker(spec: LoadedSpec, op: OperationInfo, name: string): string | undefined {
  const paths = spec.document['paths'] as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const value = paths?.[op.path]?.[op.method.toLowerCase()]?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** The request for `op` (fresh ids, fresh bodies: build one per send). */
export function endpointRequest(ctx: CheckContext, spec: LoadedSpec, op: OperationInfo): EndpointRequest {
  const candidate = candidateFor(op.operationId);
  const path = op.path.replace(/\{[^}]+\}/g, () => randomUUID());
  const request: Shape = candidate ?? { method: op.method as ApiRequest['method'], path };
  if (!candidate && op.requestBodySchema) request.body = bodyFor(ctx, op.operationId) ?? {};
  const notShown = marker(spec, op, 'x-wgc-request-not-shown') !== undefined;
  const guessed = marker(spec, op, 'x-wgc-guessed') !== undefined;
  return {
    operationId: op.operationId,
    label: `${op.method} ${op.path}`,
    request,
    billed: op.billing === 'billed',
    write: op.method !== 'GET',
    alsoAccepted: [...(notShown ? INVALID_STATUSES : []), ...(guessed ? [404] : [])],
  };
}

/**
 * Every endpoint's request, in the document's order. With `readOnly` only the GETs: a broken
 * server might act on a write it should have refused.
 */
export async function everyEndpoint(ctx: CheckContext, opts: { readOnly?: boolean } = {}): Promise<EndpointRequest[]> {
  const spec = await loadSpec();
  const billed = spec.operations.filter((op) => op.billing === 'billed').length;
  if (billed > BILLED_ENDPOINTS)
    throw new Error(`specs/openapi.yaml has ${billed} billed endpoints; BILLED_ENDPOINTS (every-endpoint.ts), which credit ceilings are built on, says ${BILLED_ENDPOINTS}`);
  return spec.operations.filter((op) => !opts.readOnly || op.method === 'GET').map((op) => endpointRequest(ctx, spec, op));
}

/**
 * Endpoints a sweep that a conformant target may let through (a rate limit or a capability
 * switch it need not apply there) leaves out: they start bulk work metered on top of its credit.
 */
export const STARTS_WORK: readonly string[] = ['startComputeRun'];
