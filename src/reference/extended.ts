/**
 * The `extended` variant of the reference target: conformant, and taking the room the API
 * document leaves where the other variants do not. What a reimplementation adds of its own:
 *
 * - fields of its own in every answer, some stable (an object tag, links, an enum value id),
 *   some that change on every write (a Definition's `revision` and `etag`) or on every request
 *   (`served_at`, `request_id`): the document defines only the fields of 2.1 to 2.5 and part 7;
 * - headers of its own on every answer (a request id, a served-by name, cache control);
 * - work that completes asynchronously, in three steps: receipts and compute runs show
 *   `queued`, then `running`, then their outcome; the usage ledger shows a charge 400 ms after
 *   the answer; estimates are filled in later; a new manual definition starts `draft` and
 *   settles into `proposed` on its own;
 * - other layouts for every shape the document does not show (receipts, compute runs, the quote,
 *   the catalog, /data reads, query results, decision inputs, traces);
 * - GET /me names roles in its own spelling (`Owner`, `Analyst`: 2.4 types `role` as a string);
 * - statuses the document does not fix taken in a mix no other variant takes (422 for invalid
 *   requests with 404 for malformed path ids and unknown operations, 415 and 413, 405, 403 for
 *   departed members and paused workspaces alike), Idempotency-Keys shared by the workspace with
 *   refusals stored, an inclusive cursor with kebab-case random slugs, timestamps at +05:30.
 *
 * test/reference/extended.test.ts shows each freedom on the wire; docs/interpretations.md names
 * the variant beside the readings it takes. Only data and layout functions here (the clocks and
 * request ids are the point: they change per request).
 */
import { createHash, randomUUID } from 'node:crypto';
import { DEFAULT_CHOICES, type CatalogParts, type Choices, type QuoteParts } from './choices.ts';
import { envelope, type ApiError, type ErrorEnvelope } from './errors.ts';
import type { ComputeRun, Definition, EnumValue, Receipt } from './model.ts';

const API = '/api/v1';
/** A queued receipt or run shows `running` once it is this old (ms). */
const RUNNING_AFTER_MS = 50;

const now = (): string => new Date().toISOString();
const digest = (...parts: string[]): string => createHash('sha256').update(parts.join('\u0000')).digest('hex');

/** A Definition with fields of the server's own: a revision and etag that move with every write, a clock that moves with every request. */
function definition(d: Definition): Record<string, unknown> {
  return {
    kind: 'Definition',
    ...d,
    revision: Date.parse(d.updated_at),
    etag: `W/"${digest(d.id, d.updated_at).slice(0, 16)}"`,
    served_at: now(),
    _links: { self: { href: `${API}/definitions/${d.id}` } },
  };
}

/** An enum value with an id of its own (stable per slug) and a clock that moves with every request. */
const enumValue = (v: EnumValue, index: number): Record<string, unknown> => ({ ...v, id: digest('enum-value', v.slug).slice(0, 12), ordinal: index + 1, seen_at: now() });

/** The error envelope with a request id at the top level and details in data. */
function error(e: ApiError): ErrorEnvelope {
  const body = envelope(e.status, e.message, { ...(e.data ?? {}), request_id: randomUUID() }) as ErrorEnvelope & Record<string, unknown>;
  body.request_id = randomUUID();
  body.docs = `https://docs.example.invalid/errors/${body.code.toLowerCase()}`;
  return body;
}

/** Queued, then running once it has waited a while, then its outcome. */
function phase(status: string, createdAt: string): string {
  if (status !== 'queued') return status;
  return Date.now() - Date.parse(createdAt) >= RUNNING_AFTER_MS ? 'running' : 'queued';
}

function receipt(r: Receipt): Record<string, unknown> {
  return {
    receipt_id: r.id,
    operation: { name: r.operation },
    status: phase(r.status, r.createdAt),
    timing: { created_at: r.createdAt, updated_at: r.updatedAt, completed_at: r.completedAt },
    output: r.result,
    error: r.error,
    reason: r.reason,
    polled_at: now(),
  };
}

function computeRun(r: ComputeRun): Record<string, unknown> {
  return {
    run_id: r.id,
    job: { name: r.job, accounts: r.accounts },
    status: phase(r.status, r.createdAt),
    created_at: r.createdAt,
    completed_at: r.completedAt,
    output: r.result,
    reason: r.reason,
    polled_at: now(),
  };
}

function quote(q: QuoteParts): Record<string, unknown> {
  const { modelCreditCeiling, apiPreviewCredits, apiSubmissionCredits, analysisLabel, model, scope } = q;
  return {
    analysis: { analysisLabel, model },
    credits: { modelCreditCeiling, apiPreviewCredits, apiSubmissionCredits, shownBeforeApproval: modelCreditCeiling + apiPreviewCredits + apiSubmissionCredits },
    scope,
  };
}

/** The catalog as a list of entries under `catalog`, each operation named by `operation`. */
function catalog(c: CatalogParts): unknown {
  return {
    api: { version: 'v1-beta', served_at: now() },
    catalog: [
      ...c.operations.map((o) => ({
        operation: o.name,
        type: 'operation',
        summary: o.purpose,
        permissions: o.permissions,
        capability: o.capability,
        arguments: o.arguments,
        ...(o.changeKinds ? { changeKinds: o.changeKinds } : {}),
        allowed: o.authorized,
      })),
      ...c.queries.map((q) => ({ operation: q.name, type: 'query', endpoint: q.endpoint, permissions: q.permissions, capability: q.capability, fieldKeys: q.fields, allowed: q.authorized })),
    ],
    fieldCatalog: c.fieldCatalog,
    contextAreas: c.contextAreas,
    limits: c.limits,
    guidance: c.guidance,
  };
}

/** "owner" → "Owner": GET /me's role in the server's own spelling. */
const titleCase = (s: unknown): unknown => (typeof s === 'string' && s.length > 0 ? s[0]!.toUpperCase() + s.slice(1) : s);

export const EXTENDED: Choices = {
  ...DEFAULT_CHOICES,
  variant: 'extended',
  keys: { prefix: 'wgx_live_', secretChars: 48, alphabet: 'base62' },
  ids: 'uuid-v7',
  timestamps: { fraction: 3, offsetMinutes: 330 },
  status: {
    create: 201,
    departedMember: 403,
    pausedWorkspace: 403,
    foreignId: 404,
    malformedPathId: 404,
    unknownOperation: 404,
    nonJsonBody: 415,
    tooLargeBody: 413,
    methodMismatch: 405,
    submit: 202,
    computeRun: 202,
    invalid: 422,
  },
  definitions: {
    ...DEFAULT_CHOICES.definitions,
    initialState: 'proposed',
    settling: [{ policy: 'manual', state: 'draft', settleMs: [50, 300] }],
    settlingTouches: 'state-and-derived',
    estimates: { low: 1, high: 4 },
    estimating: { afterMs: 400, low: 1, high: 5, lastRun: 0 },
  },
  enumValueWrites: { mergedAway: 'archived', unknownSlugStatus: 404, sameSlug: 'refuse', unknownArchiveSlug: 'ignore' },
  renameSlug: 'rederive',
  archivedDefinitionWrites: 'allow',
  idempotency: { scope: 'workspace', storeRefusals: true, emptyKey: 'refuse', replayHeaders: { 'x-idempotent-replay': 'true' }, inFlightMs: 40 },
  paging: { trailingCursor: false, moduleKeysForms: 'all', cursor: 'inclusive' },
  slugs: 'kebab-random',
  receipts: { pollsToComplete: 5, executionDelayMs: 700, slowOperations: {} },
  ledgerLagMs: 400,
  responseHeaders: () => ({ 'x-request-id': randomUUID(), 'x-served-by': 'wg-extended', 'cache-control': 'no-store' }),
  layout: {
    error,
    definition,
    enumValue,
    list: (items, nextCursor) => ({ items, nextCursor, has_more: nextCursor !== null, request_id: randomUUID(), served_at: now() }),
    mergeResult: (rewritten, fromSlug, intoSlug) => ({ rewritten, merge: { from: fromSlug, into: intoSlug }, merged_at: now() }),
    receipt,
    submitted: (r) => ({ receipt: r, request_id: randomUUID() }),
    computeRun,
    computeRunStarted: (r, apiPrefix) => ({ body: { run: computeRun(r) }, headers: { location: `${apiPrefix}/compute/runs/${r.id}` } }),
    computePreview: (job, accounts) => ({ preview: { job, accounts, credits: { low: accounts, high: accounts * 2 } }, served_at: now() }),
    quote,
    catalog,
    me: (body, granted) => ({
      ...body,
      role: titleCase(body.role),
      scopes: [...granted],
      capabilities: { ...(body.capabilities as Record<string, unknown>), webhooks: false, liveCatalog: true },
      request_id: randomUUID(),
      served_at: now(),
    }),
    recordRead: (kind, record) => ({ data: { type: kind, attributes: record }, meta: { served_at: now() } }),
    queryResult: (operation, object, items) => ({ query: { operation, object }, results: items, meta: { live: true, served_at: now() } }),
    decisionInputs: (refs) => ({ inputs: { definition_refs: refs }, request_id: randomUUID() }),
    trace: (body) => ({ trace: body, meta: { served_at: now() } }),
  },
};
