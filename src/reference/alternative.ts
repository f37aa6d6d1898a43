/**
 * The `alternative` variant of the reference target: conformant, and different from the
 * default wherever the seed leaves room. Each choice and why the seed allows it is listed in
 * docs/reference-target.md ("Alternative variant"). Only data and pure layout functions here;
 * the places that read them are named in choices.ts.
 */
import { randomUUID } from 'node:crypto';
import type { CatalogParts, Choices, QuoteParts } from './choices.ts';
import { envelope, type ApiError, type ErrorEnvelope } from './errors.ts';
import type { ComputeRun, Definition, EnumValue, Receipt } from './model.ts';

const API = '/api/v1';

/** Messages of its own for every status (the table's are only defaults, seed part 7). */
const MESSAGES: Readonly<Record<number, string>> = {
  400: 'The request did not pass validation.',
  401: 'Authentication failed for this request.',
  403: 'This key is not allowed to do that.',
  404: 'Nothing was found at this address.',
  405: 'This address does not take that method.',
  409: 'That clashes with what is stored.',
  413: 'The request body is too large.',
  415: 'Send the body as application/json.',
  429: 'Too many calls; slow down.',
  500: 'Something broke on our side.',
  503: 'That part of the service is switched off for this workspace.',
};

/** Every error carries a data object: a request id, the detail, and the problems found (if any). */
function error(e: ApiError): ErrorEnvelope {
  const { issues, ...rest } = e.data ?? {};
  const body = envelope(e.status, MESSAGES[e.status] ?? e.message);
  body.data = { requestId: randomUUID(), detail: e.message, ...(issues !== undefined ? { violations: issues } : {}), ...rest };
  return body;
}

const pending = (status: string): boolean => status === 'queued' || status === 'running';

function receipt(r: Receipt): Record<string, unknown> {
  const open = pending(r.status);
  return {
    receiptId: r.id,
    operationName: r.operation,
    state: open ? 'pending' : 'done',
    outcome: open ? null : r.status,
    output: r.result,
    problem: r.error,
    note: r.reason,
    submitted: r.createdAt,
    finished: r.completedAt,
  };
}

function computeRun(r: ComputeRun): Record<string, unknown> {
  const open = r.status === 'queued';
  return {
    runId: r.id,
    job: r.job,
    state: open ? 'pending' : 'done',
    outcome: open ? null : r.status,
    accounts: r.accounts,
    summary: r.result,
    note: r.reason,
    requested: r.createdAt,
    finished: r.completedAt,
  };
}

function quote(q: QuoteParts): Record<string, unknown> {
  const { modelCreditCeiling, apiPreviewCredits, apiSubmissionCredits, analysisLabel, model } = q;
  return {
    pricing: {
      quote: { analysisLabel, model, modelCreditCeiling, apiPreviewCredits, apiSubmissionCredits },
      displayTotal: modelCreditCeiling + apiPreviewCredits + apiSubmissionCredits,
      currency: 'credits',
    },
    batch: q.scope,
  };
}

/**
 * The catalog keyed by operation name (the names appear only as object keys), listing only what
 * the calling key may call: the catalog is "for the caller" (seed 1), and what a key may call is
 * what it shows (5 rule 7).
 */
function catalog(c: CatalogParts): unknown {
  const perm = (p: { scopes: string[]; roles: string[] | null; notes: string | null }) => ({ needsScopes: p.scopes, needsRoles: p.roles ?? 'any', remarks: p.notes ?? '' });
  return {
    apiVersion: 'v1-beta',
    operationsByName: Object.fromEntries(
      c.operations
        .filter((o) => o.authorized)
        .map((o) => [
          o.name,
          {
            description: o.purpose,
            requires: perm(o.permissions),
            capabilitySwitch: o.capability,
            params: o.arguments,
            ...(o.changeKinds ? { editKinds: o.changeKinds } : {}),
            youMayCall: o.authorized,
          },
        ]),
    ),
    liveReadsByName: Object.fromEntries(
      c.queries.filter((q) => q.authorized).map((q) => [q.name, { via: q.endpoint, requires: perm(q.permissions), capabilitySwitch: q.capability, fieldKeys: q.fields, youMayCall: q.authorized }]),
    ),
    fields: c.fieldCatalog,
    contextAreas: c.contextAreas,
    limits: c.limits,
    help: c.guidance,
  };
}

/** Extra fields, entity kinds as a sorted set, enum values ordered by slug. */
function definition(d: Definition): Record<string, unknown> {
  const bySlug = (a: EnumValue, b: EnumValue) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
  return {
    object: 'definition',
    ...d,
    entity_kinds: [...new Set(d.entity_kinds)].sort(),
    enum_values: [...d.enum_values].sort(bySlug),
    links: { self: `${API}/definitions/${d.id}` },
  };
}

const surface = (s: string): string => `API ${s.replace(/^api:/, '').split('.').join(' / ')}`;

export const ALTERNATIVE: Choices = {
  variant: 'alternative',
  keys: { prefix: 'acme_live_', secretChars: 40, alphabet: 'base64url' },
  ids: 'uuid-v7',
  timestamps: { fraction: 0, offsetMinutes: -300 },
  status: {
    create: 200,
    departedMember: 403,
    pausedWorkspace: 401,
    foreignId: 403,
    malformedPathId: 404,
    unknownOperation: 404,
    nonJsonBody: 415,
    tooLargeBody: 413,
    methodMismatch: 405,
    submit: 201,
    computeRun: 201,
    invalid: 400,
  },
  routeBeforeKey: true,
  // The lenient variant (lenient.ts) takes the other side of these: request reading, paths, paging's cursor.
  paths: {},
  bodies: { contentTypes: 'json', trailingBytes: 'refuse', nullOptional: 'refuse', scalarStrings: 'refuse' },
  uuids: 'hyphenated',
  queryBooleans: 'true-false',
  definitions: {
    initialState: 'live',
    settling: [
      { policy: 'on_ingest_and_backfill', state: 'backfilling', settleMs: [200, 1500] },
      { policy: '*', state: 'proposed', settleMs: [5, 80] },
    ],
    settlingTouches: 'state-and-derived',
    reason: 'creation',
    createdBy: 'null',
    estimates: { low: 0, high: 25 },
    omittedText: '',
    enumCardinality: 'exclusive',
    emptyText: 'keep',
    estimating: null,
  },
  enumValueWrites: { mergedAway: 'removed', unknownSlugStatus: 404, sameSlug: 'no-op', unknownArchiveSlug: 'ignore' },
  renameSlug: 'rederive',
  unknownBodyProperties: 'refuse',
  unknownListParameters: 'refuse',
  archivedDefinitionWrites: 'allow',
  idempotency: { scope: 'workspace', storeRefusals: true, emptyKey: 'absent', replayHeaders: {}, inFlightMs: 25 },
  paging: { trailingCursor: true, moduleKeysForms: 'repeated', cursor: 'exclusive' },
  slugs: 'kebab-random',
  receipts: { pollsToComplete: 4, executionDelayMs: 1500, slowOperations: { 'graph.agent_preview': 4000 } },
  previewFee: { apiPreviewCredits: 2, chargedOnTop: true, surface: 'api:fees.agent_preview' },
  retryAfter: 'http-date',
  personIds: 'canonical',
  decisionInputsField: 'definition_ids',
  traceParams: { kind: 'entity_kind', id: 'entity_id' },
  ledgerSurface: surface,
  ledgerLagMs: 150,
  layout: {
    error,
    definition,
    enumValue: (v: EnumValue, index: number) => ({ ...v, position: index }),
    list: (items, nextCursor) => ({ object: 'list', items, nextCursor, count: items.length }),
    mergeResult: (rewritten, fromSlug, intoSlug) => ({ object: 'merge_result', rewritten, from: fromSlug, into: intoSlug }),
    receipt,
    submitted: (r) => ({ data: r }),
    computeRun,
    computeRunStarted: (r, apiPrefix) => ({
      body: { job: r.job, state: 'pending', accounts: r.accounts, requested: r.createdAt },
      headers: { location: `${apiPrefix}/compute/runs/${r.id}` },
    }),
    computePreview: (job, accounts) => ({ job, accounts, estimate: { credits: { low: accounts, high: accounts * 2 } } }),
    quote,
    catalog,
    me: (body, granted) => ({ object: 'api_key', ...body, beta: false, scopes: [...granted], capabilities: { ...(body.capabilities as Record<string, unknown>), webhooks: false } }),
    recordRead: (kind, record) => ({ [kind]: { object: kind, ...record } }),
    queryResult: (operation, object, items) => ({ source: 'partner_crm', live: true, request: { operation, object }, records: items }),
    decisionInputs: (refs) => ({ object: 'decision_inputs', definition_refs: refs }),
    trace: (body) => ({ object: 'trace', ...body }),
  },
};
