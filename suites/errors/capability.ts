/**
 * A call that needs a switched-off capability is answered 503 (ERR-009), on every endpoint whose
 * capability the document names by what it does (seed 1's list of capabilities against 2.4's
 * switches): the five definition endpoints need `definitions`, live CRM reads (POST /query)
 * `crm`, the compute preview `graphCompute`, the stored account and person reads under /data
 * `graphReads`. Each request is one the target accepts with the switch on (a stored definition,
 * accounts and people made through the control protocol, the first request form answered 2xx),
 * so the switch is the call's only fault: part 7 rule 4 leaves open which of two faults is
 * answered first. The endpoints whose capability the document does not name (the catalog
 * operations, which the live catalog describes; /data/icps and /data/relationships, which may be
 * context areas; traces and decision inputs; receipt and run polling, free and possibly ungated)
 * and POST /compute/runs (starts bulk work metered on top, STARTS_WORK) are not judged here.
 */
import type { CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { createDefinition, is2xx, minimalCreateBody } from '../_shared/definitions.ts';
import { capabilitySwitches } from '../_shared/capability-switches.ts';
import { isObject } from '../_shared/json.ts';
import { computePreviewShapes, queryShapes, statusesOf, tryShapes, type Shape } from '../_shared/ops-shapes.ts';
import { usableResponses } from '../_shared/ops-usable.ts';
import { ENVELOPE_CLAUSES, judgeEnvelope } from './envelope.ts';

/** The capability switch each judged endpoint needs, by operationId. */
export const CAPABILITY_OF: Readonly<Record<string, string>> = {
  listDefinitions: 'definitions',
  createDefinition: 'definitions',
  updateDefinition: 'definitions',
  archiveDefinition: 'definitions',
  mergeDefinitionValue: 'definitions',
  runQuery: 'crm',
  previewCompute: 'graphCompute',
  getAccount: 'graphReads',
  getPerson: 'graphReads',
};

const REASON = 'conformance check';

/** One request that needs `capability`, and the operationId it stands for. */
interface Gated {
  operationId: string;
  capability: string;
  request: Shape;
}

/** The first request form of `shapes` the target accepts (2xx) with every switch on; none: not observable. */
async function acceptedForm(ctx: CheckContext, key: KeyHandle, shapes: readonly Shape[], what: string): Promise<Shape> {
  const tried = await tryShapes(ctx, key, shapes);
  const ok = tried.accepted;
  if (!ok) throw new NotObservable(`${what}: no request form was accepted with the capability on (${statusesOf(tried.attempts)}), so a 503 could not be told from a refusal of the form`);
  const at = tried.attempts.indexOf(ok);
  return shapes[at]!;
}

/** The requests judged, each valid with its switch on (see the module comment). */
async function gatedRequests(ctx: CheckContext, key: KeyHandle): Promise<Gated[]> {
  const { definition } = await createDefinition(ctx, key, 'ERR-009', { enumValues: [{ label: 'value a' }, { label: 'value b' }] });
  const [from, into] = definition.enum_values.map((v) => v.slug);
  const account = (await ctx.control.createAccount(ctx.workspaceId, { name: 'capability check' })) as { accountId: string };
  const person = (await ctx.control.createPerson(ctx.workspaceId, account.accountId, { name: 'Capability Check' })) as { personId: string };
  const id = definition.id;
  const out: Gated[] = [
    { operationId: 'listDefinitions', capability: 'definitions', request: { method: 'GET', path: '/definitions', query: { limit: 1 } } },
    { operationId: 'createDefinition', capability: 'definitions', request: { method: 'POST', path: '/definitions', body: minimalCreateBody(ctx) } },
    { operationId: 'updateDefinition', capability: 'definitions', request: { method: 'PATCH', path: `/definitions/${id}`, body: { reason: REASON, name: `${definition.name}-x`.slice(0, 80) } } },
    {
      operationId: 'mergeDefinitionValue',
      capability: 'definitions',
      request: { method: 'POST', path: `/definitions/${id}/merge-value`, body: { fromSlug: from ?? 'value-a', intoSlug: into ?? 'value-b', reason: REASON } },
    },
    { operationId: 'archiveDefinition', capability: 'definitions', request: { method: 'POST', path: `/definitions/${id}/archive`, body: { reason: REASON } } },
    { operationId: 'getAccount', capability: 'graphReads', request: { method: 'GET', path: `/data/accounts/${account.accountId}` } },
    { operationId: 'getPerson', capability: 'graphReads', request: { method: 'GET', path: `/data/people/${person.personId}` } },
  ];
  out.push({ operationId: 'runQuery', capability: 'crm', request: await acceptedForm(ctx, key, queryShapes(), 'POST /query') });
  out.push({ operationId: 'previewCompute', capability: 'graphCompute', request: await acceptedForm(ctx, key, computePreviewShapes(), 'POST /compute/preview') });
  return out;
}

export const capabilityOff: CheckDef = {
  id: 'errors/capability-off',
  title: 'A call that needs a switched-off capability is answered 503 SERVICE_UNAVAILABLE with the error envelope, on every endpoint whose capability the document names',
  clauses: ['ERR-009', ...ENVELOPE_CLAUSES],
  endpoints: { 'ERR-009': Object.keys(CAPABILITY_OF) },
  needs: { control: true, mutation: true },
  // The definition the writes name and its archive at clean-up, one accepted POST /query and
  // one accepted preview (the switched-off calls are answered 503: free).
  credits: 4,
  // Earlier request forms refused (free) and, on a target that ignores the switches, every
  // gated call let through (9) and the second definition's clean-up, plus work metered on top
  // of a query or preview.
  maxCredits: 4 + Object.keys(CAPABILITY_OF).length + 1 + 4,
  async run(ctx) {
    ctx = usableResponses(ctx, 'ERR-009');
    const owner = ctx.key('owner');
    const gated = await gatedRequests(ctx, owner);
    const was = await capabilitySwitches(ctx, owner);
    const capabilities = [...new Set(gated.map((g) => g.capability))];
    const restore = () => ctx.control.setCapabilities(ctx.workspaceId, Object.fromEntries(capabilities.map((c) => [c, was[c] ?? true])));
    ctx.cleanup(restore);
    const answers: { g: Gated; ex: Exchange }[] = [];
    try {
      // One switch off at a time: each endpoint is answered 503 for the capability it needs.
      for (const capability of capabilities) {
        await ctx.control.setCapabilities(ctx.workspaceId, { [capability]: false });
        for (const g of gated.filter((x) => x.capability === capability)) answers.push({ g, ex: await ctx.api.send({ ...g.request, key: owner }) });
        await ctx.control.setCapabilities(ctx.workspaceId, { [capability]: was[capability] ?? true });
      }
    } finally {
      await restore();
    }
    for (const { g, ex } of answers) {
      if (ex.response?.status === 503) {
        ctx.judged('ERR-009');
        await judgeEnvelope(ctx, ex, 'ERR-009');
        continue;
      }
      ctx.softFail({
        clause: 'ERR-009',
        message: `${g.request.method} ${g.request.path} with the ${g.capability} capability switched off was not answered 503`,
        expected: '503 SERVICE_UNAVAILABLE with the error envelope',
        received: ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`,
        exchange: ex,
      });
      // A write let through is cleaned up with the check (a create makes a second definition).
      if (g.operationId === 'createDefinition' && is2xx(ex) && isObject(ex.response?.json) && typeof ex.response.json.id === 'string') {
        const made = ex.response.json.id;
        ctx.cleanup(async () => {
          await ctx.api.send({ method: 'POST', path: `/definitions/${made}/archive`, key: owner, body: { reason: 'conformance run clean-up' } });
        });
      }
    }
  },
};
