/**
 * X-Api-Key and Authorization: Bearer are equivalent (part 5 rule 1): the same request sent
 * both ways gets the same answer, on reads of every endpoint family and on writes.
 */
import type { ApiRequest, CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse, expectResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { soft } from './soft.ts';
import { definitionOf, minimalCreateBody } from '../_shared/definitions.ts';
import { documentedBody } from '../_shared/documented.ts';
import { isObject } from '../_shared/json.ts';
import { listingDisagreement } from './listing-agreement.ts';
import { BILLED_ENDPOINTS, everyEndpoint, STARTS_WORK } from '../_shared/every-endpoint.ts';
import { archiveIfCreated } from '../_shared/ops-fixtures.ts';
import { availableKeys, canonical, freshId, ok2xx } from './support.ts';

/**
 * The same answer: equal status and equal body (JSON by content of what the document defines of
 * it, documentedBody: a field of the server's own is its business; otherwise text).
 */
function sameAnswer(a: Exchange, b: Exchange): boolean {
  const x = a.response;
  const y = b.response;
  if (!x || !y || x.status !== y.status) return false;
  if (x.isJson && y.isJson) return canonical(documentedBody(x.json)) === canonical(documentedBody(y.json));
  return x.text === y.text;
}

/**
 * `x` equals `y` except where `y` and `z` (two answers to the same Bearer request) differ
 * from each other: those parts vary per request (an id, a clock) and prove nothing.
 */
function sameExceptVolatile(x: unknown, y: unknown, z: unknown): boolean {
  if (canonical(y) === canonical(z)) return canonical(x) === canonical(y);
  if (Array.isArray(y) && Array.isArray(z) && y.length === z.length) {
    return Array.isArray(x) && x.length === y.length && y.every((v, i) => sameExceptVolatile(x[i], v, z[i]));
  }
  if (isObject(y) && isObject(z) && canonical(Object.keys(y).sort()) === canonical(Object.keys(z).sort())) {
    return isObject(x) && canonical(Object.keys(x).sort()) === canonical(Object.keys(y).sort()) && Object.keys(y).every((k) => sameExceptVolatile(x[k], y[k], z[k]));
  }
  return true;
}

/** The key with the widest grants the target supplied (the owner when there is one). */
function widestKey(ctx: CheckContext): KeyHandle {
  const [key] = availableKeys(ctx);
  if (!key) throw new NotObservable('no cast key is available on this target');
  return key;
}

/**
 * Reads of every endpoint family; billed ones answer 2xx for a key with every scope. A listing
 * of definitions is compared with the rules of listing-agreement.ts: others may write to the
 * workspace between the requests (a shared staging workspace, the other suites of a keys-only run).
 */
const READS: readonly { operationId: string; path: string; billed: boolean; listing?: true }[] = [
  { operationId: 'getMe', path: '/me', billed: false },
  { operationId: 'getCapabilities', path: '/capabilities', billed: false },
  { operationId: 'listDefinitions', path: '/definitions', billed: true, listing: true },
  { operationId: 'listOperations', path: '/operations', billed: false },
  { operationId: 'listRelationships', path: '/data/relationships', billed: true },
  { operationId: 'listIcps', path: '/data/icps', billed: true },
  // An id that names nothing: the error answers must be the same too.
  { operationId: 'getAccount', path: '/data/accounts/{fresh}', billed: false },
];

/** Reads sent as Bearer and as X-Api-Key get the same status and body. */
export const apiKeyReads: CheckDef = {
  id: 'auth/x-api-key-equivalent-reads',
  title: 'A read sent with X-Api-Key gets the same answer as with Authorization: Bearer',
  clauses: ['AUTH-002'],
  endpoints: READS.map((r) => r.operationId),
  // Two 2xx calls (Bearer, X-Api-Key) per billed read.
  credits: READS.filter((r) => r.billed).length * 2,
  // A third (Bearer again) where a target's two answers differ in parts that vary per request.
  maxCredits: READS.filter((r) => r.billed).length * 3,
  async run(ctx) {
    const key = widestKey(ctx);
    for (const read of READS) {
      const path = read.path.replace('{fresh}', freshId());
      const req: ApiRequest = { method: 'GET', path, key };
      const bearer = await ctx.api.send({ ...req, auth: 'bearer' });
      const viaHeader = await ctx.api.send({ ...req, auth: 'x-api-key' });
      expectResponse('AUTH-002', bearer);
      const res = expectResponse('AUTH-002', viaHeader);
      ctx.judged('AUTH-002');
      if (sameAnswer(bearer, viaHeader)) continue;
      // Ask again with Bearer: when Bearer itself answers differently each time (a request
      // id, a clock), the parts that vary are left out of the comparison.
      const again = await ctx.api.send({ ...req, auth: 'bearer' });
      if (sameAnswer(again, viaHeader)) continue;
      const stable = sameAnswer(bearer, again);
      const a = again.response;
      // Only in a shared workspace: in one of the suite's own, nothing else changes the listing.
      const disagreement =
        read.listing && ctx.run.sharedWorkspace && a && a.status === res.status && bearer.response?.status === res.status ? listingDisagreement(res.json, bearer.response.json, a.json) : null;
      if (disagreement === undefined) continue;
      if (
        !stable &&
        a &&
        a.status === res.status &&
        a.isJson &&
        res.isJson &&
        bearer.response?.isJson &&
        sameExceptVolatile(documentedBody(res.json), documentedBody(a.json), documentedBody(bearer.response.json))
      )
        continue;
      soft(ctx, () => {
        throw new Finding({
          clause: 'AUTH-002',
          message: `GET ${read.path} answered differently with X-Api-Key than with Authorization: Bearer${disagreement ? ` (${disagreement})` : stable ? '' : ' (beyond the parts that vary per request)'}`,
          expected: `the Bearer answer: ${again.response ? describeResponse(again.response) : 'no response'}`,
          received: describeResponse(res),
          exchange: viaHeader,
          context: [bearer, again],
        });
      });
    }
  },
};

/** A Definition create and its archive sent as Bearer and as X-Api-Key get equivalent answers. */
export const apiKeyWrites: CheckDef = {
  id: 'auth/x-api-key-equivalent-writes',
  title: 'A definition create and archive sent with X-Api-Key get the same answer as with Authorization: Bearer',
  clauses: ['AUTH-002'],
  endpoints: ['createDefinition', 'archiveDefinition'],
  needs: { mutation: true },
  // Two creates and two archives.
  credits: 4,
  async run(ctx) {
    const key = widestKey(ctx);
    const send = (auth: 'bearer' | 'x-api-key', req: Omit<ApiRequest, 'key' | 'auth'>) => ctx.api.send({ ...req, key, auth });
    // Each create remembers whether the check's own archive already cleaned it up.
    const created: { auth: 'bearer' | 'x-api-key'; ex: Exchange; archived: boolean }[] = [];
    for (const auth of ['bearer', 'x-api-key'] as const) {
      const entry = { auth, ex: await send(auth, { method: 'POST', path: '/definitions', body: minimalCreateBody(ctx) }), archived: false };
      created.push(entry);
      const id = ok2xx(entry.ex) ? (entry.ex.response?.json as { id?: unknown } | undefined)?.id : undefined;
      if (typeof id === 'string') {
        ctx.cleanup(async () => {
          if (!entry.archived) await send('bearer', { method: 'POST', path: `/definitions/${id}/archive`, body: { reason: 'conformance run clean-up' } });
        });
      }
    }
    const [viaBearer, viaHeader] = created.map((c) => c.ex) as [Exchange, Exchange];
    const b = expectResponse('AUTH-002', viaBearer);
    const h = expectResponse('AUTH-002', viaHeader);
    ctx.judged('AUTH-002');
    if (b.status !== h.status) {
      throw new Finding({
        clause: 'AUTH-002',
        message: 'POST /definitions answered a different status with X-Api-Key than with Authorization: Bearer',
        expected: `status ${b.status}, as with Bearer`,
        received: describeResponse(h),
        exchange: viaHeader,
        context: [viaBearer],
      });
    }
    if (!ok2xx(viaBearer)) throw new NotObservable(`a valid definition create was refused both ways (${b.status}); nothing to compare`);
    const defB = definitionOf('AUTH-002', viaBearer);
    const defH = definitionOf('AUTH-002', viaHeader);
    ctx.judged('AUTH-002');
    if (defB.workspace_id !== defH.workspace_id || defB.state !== defH.state) {
      throw new Finding({
        clause: 'AUTH-002',
        message: 'the definition created with X-Api-Key differs in workspace or state from the one created with Bearer',
        expected: `workspace_id ${String(defB.workspace_id)}, state ${defB.state}`,
        received: `workspace_id ${String(defH.workspace_id)}, state ${defH.state}`,
        exchange: viaHeader,
        context: [viaBearer],
      });
    }
    // The archive family, each definition in the form it was created with.
    const archives: Exchange[] = [];
    for (const entry of created) {
      const def = definitionOf('AUTH-002', entry.ex);
      const out = await send(entry.auth, { method: 'POST', path: `/definitions/${def.id}/archive`, body: { reason: 'conformance check' } });
      archives.push(out);
      if (ok2xx(out)) entry.archived = true;
    }
    const [ab, ah] = archives as [Exchange, Exchange];
    const rb = expectResponse('AUTH-002', ab);
    const rh = expectResponse('AUTH-002', ah);
    ctx.judged('AUTH-002');
    if (rb.status !== rh.status) {
      throw new Finding({
        clause: 'AUTH-002',
        message: 'POST /definitions/{id}/archive answered a different status with X-Api-Key than with Authorization: Bearer',
        expected: `status ${rb.status}, as with Bearer`,
        received: describeResponse(rh),
        exchange: ah,
        context: [ab],
      });
    }
  },
};

/** Endpoints the reads and writes above compare. */
const COMPARED = new Set([...READS.map((r) => r.operationId), 'createDefinition', 'archiveDefinition']);

/** Billed endpoints of the sweep below the reference answers 2xx (each sent twice). */
const SWEEP_BILLED_2XX = ['runQuery', 'previewCompute'];

/**
 * Every other endpoint, sent with each header form: the two answers have the same status (the
 * requests are suites/_shared/every-endpoint.ts's, fresh ids and all, so most are refusals,
 * which must not depend on the header either). An endpoint that starts bulk work (STARTS_WORK)
 * is sent with the graph:read key, which may not start it: the two refusals must match (a
 * header form the route does not read shows as 401 against 403), and no work is started.
 */
export const apiKeyEveryEndpoint: CheckDef = {
  id: 'auth/x-api-key-equivalent-every-endpoint',
  title: 'Every other endpoint answers the same status with X-Api-Key as with Authorization: Bearer',
  clauses: ['AUTH-002'],
  // Every endpoint the loop below does not skip.
  endpoints: { except: [...COMPARED] },
  needs: { mutation: true },
  // POST /query and POST /compute/preview answer 2xx both ways on the reference.
  credits: 2 * SWEEP_BILLED_2XX.length,
  // Every billed endpoint of the sweep twice, plus work metered on top of a preview (as a run).
  maxCredits: 2 * BILLED_ENDPOINTS,
  async run(ctx) {
    const widest = widestKey(ctx);
    const [reader] = availableKeys(ctx, ['reader']);
    for (const e of await everyEndpoint(ctx)) {
      if (COMPARED.has(e.operationId)) continue;
      const key = STARTS_WORK.includes(e.operationId) ? reader : widest;
      // Without the graph:read key, bulk work is not sent at all (a conformant target would start it).
      if (key === undefined) continue;
      const bearer = await ctx.api.send({ ...e.request, key, auth: 'bearer' });
      const viaHeader = await ctx.api.send({ ...e.request, key, auth: 'x-api-key' });
      archiveIfCreated(ctx, key, bearer);
      archiveIfCreated(ctx, key, viaHeader);
      const b = soft(ctx, () => expectResponse('AUTH-002', bearer));
      const h = soft(ctx, () => expectResponse('AUTH-002', viaHeader));
      if (!b || !h) continue;
      ctx.judged('AUTH-002');
      if (b.status === h.status) continue;
      soft(ctx, () => {
        throw new Finding({
          clause: 'AUTH-002',
          message: `${e.label} answered a different status with X-Api-Key than with Authorization: Bearer`,
          expected: `status ${b.status}, as with Bearer`,
          received: describeResponse(h),
          exchange: viaHeader,
          context: [bearer],
        });
      });
    }
  },
};
