/**
 * The reference target's choices where the seed leaves room, as data. A running reference
 * reads one {@link Choices} object (on its Store) at the few places where a conformant server
 * may behave in more than one way: statuses the seed leaves open, key and slug formats,
 * idempotency scope, paging edge cases, and the layout of every response the seed does not
 * show. `default` is the reference as documented in docs/reference-target.md; `alternative`
 * (alternative.ts) makes the other choice everywhere while staying conformant, so that the
 * suite can be shown not to depend on the default's incidental behaviour; `lenient`
 * (lenient.ts) reads requests as lenient real-world stacks do and fills in some fields late.
 * variants.ts resolves a variant by name.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { envelope, type ApiError, type ErrorEnvelope } from './errors.ts';
import type { ComputeRun, Definition, EnumValue, Receipt } from './model.ts';
import type { Reading } from './validate.ts';

/** The variants `startReference({ variant })` and `wgc serve --variant` accept. */
export const VARIANT_NAMES = ['default', 'alternative', 'lenient', 'extended'] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

/** The parts of an agent preview's quote (seed 4.8), before a variant lays them out. */
export interface QuoteParts {
  modelCreditCeiling: number;
  apiPreviewCredits: number;
  apiSubmissionCredits: number;
  analysisLabel: string;
  model: string;
  scope: Record<string, unknown>;
}

/** One published catalog operation, before a variant lays the catalog out. */
export interface CatalogOperation {
  name: string;
  purpose: string;
  permissions: { scopes: string[]; roles: string[] | null; notes: string | null };
  capability: string;
  arguments: readonly unknown[];
  changeKinds?: readonly unknown[];
  authorized: boolean;
}

/** One published query operation (POST /query). */
export interface CatalogQuery {
  name: string;
  endpoint: string;
  permissions: { scopes: string[]; roles: string[] | null; notes: string | null };
  capability: string;
  fields: readonly string[];
  authorized: boolean;
}

/** Everything GET /capabilities publishes, before a variant lays it out. */
export interface CatalogParts {
  operations: CatalogOperation[];
  queries: CatalogQuery[];
  fieldCatalog: Record<string, unknown>;
  contextAreas: readonly string[];
  limits: Record<string, unknown>;
  guidance: readonly string[];
}

/** A successful reply's body and extra headers. */
export interface Shaped {
  body: unknown;
  headers?: Record<string, string>;
}

/** Output layouts of the responses whose shape is a variant's choice. */
export interface Layout {
  /** The error body (seed part 7: defined, code, status, message, optional data). */
  error(e: ApiError): ErrorEnvelope;
  /** A Definition as returned (all 25 fields of seed 2.1 are already there; a variant may add more). */
  definition(d: Definition): Record<string, unknown>;
  /** One enum value object of a Definition (label, slug, archived always there). */
  enumValue(v: EnumValue, index: number): Record<string, unknown>;
  /** A collection envelope (seed 2.3: items and nextCursor). */
  list(items: unknown[], nextCursor: string | null): Record<string, unknown>;
  /** The merge result (seed 2.5: rewritten). */
  mergeResult(rewritten: number, fromSlug: string, intoSlug: string): Record<string, unknown>;
  /** An operation receipt, as GET /operations and GET /operations/{id} return it. */
  receipt(r: Receipt): Record<string, unknown>;
  /** The answer of POST /operations, given the receipt as laid out by `receipt`. */
  submitted(receipt: Record<string, unknown>): Record<string, unknown>;
  /** A compute run as GET /compute/runs/{id} returns it. */
  computeRun(r: ComputeRun): Record<string, unknown>;
  /** The answer of POST /compute/runs; `apiPrefix` is "/api/v1" (for a Location header). */
  computeRunStarted(r: ComputeRun, apiPrefix: string): Shaped;
  /** The answer of POST /compute/preview. */
  computePreview(job: string, accounts: number): Record<string, unknown>;
  /** The result of a completed graph.agent_preview (the quote). */
  quote(q: QuoteParts): Record<string, unknown>;
  /** The GET /capabilities document. */
  catalog(c: CatalogParts): unknown;
  /** GET /me, given the default body and the key's scopes in the order they were granted. */
  me(body: Record<string, unknown>, granted: readonly string[]): Record<string, unknown>;
  /** A single stored-record read (GET /data/accounts/{id}, GET /data/people/{id}). */
  recordRead(kind: 'account' | 'person', record: Record<string, unknown>): unknown;
  /** The answer of POST /query. */
  queryResult(operation: string, object: string, items: unknown[]): Record<string, unknown>;
  /** The answer of POST /graph/decision-inputs. */
  decisionInputs(refs: unknown[]): Record<string, unknown>;
  /** The answer of GET /graph/traces. */
  trace(body: Record<string, unknown>): Record<string, unknown>;
}

/** Every choice of one variant. Only data and pure layout functions: no state. */
export interface Choices {
  readonly variant: VariantName;
  /**
   * Catalog operations this server does not offer (a release that dropped them): not in
   * GET /capabilities, and POST /operations treats them as unknown. `wgc serve
   * --without-operation`; for the regression guide (docs/guide/regression.md).
   */
  readonly withoutOperations?: readonly string[];
  /**
   * Key secrets: the vendor prefix (ending in its underscore), then `secretChars` characters of
   * the alphabet (base62, or base64url, whose "_" and "-" may follow the prefix's underscore).
   */
  readonly keys: { readonly prefix: string; readonly secretChars: number; readonly alphabet: 'base62' | 'base64url' };
  /** Version of the random uuids given to new records (both are uuids; ordering is by the id string). */
  readonly ids: 'uuid-v4' | 'uuid-v7';
  /**
   * RFC 3339 timestamps: fraction digits (3: milliseconds, 0: whole seconds) and the UTC offset
   * they are shown in, in minutes (0 is written "Z").
   */
  readonly timestamps: { readonly fraction: 0 | 3; readonly offsetMinutes: number };
  readonly status: {
    /** POST /definitions, always with the Definition (DEF-012: any 2xx that returns it). */
    readonly create: 200 | 201 | 202;
    /** A departed member's key (AUTH-009: 401 or 403). */
    readonly departedMember: 401 | 403;
    /** A paused workspace's keys (AUTH-010: 401 or 403). */
    readonly pausedWorkspace: 401 | 403;
    /** An id of another workspace's record in a path (AUTH-012: 404 or 403). */
    readonly foreignId: 403 | 404;
    /** A definitionId that is not a uuid (DEF-027: 400 or 404). */
    readonly malformedPathId: 400 | 404;
    /** An operation name outside the catalog (OPS-002: 400 or 404). */
    readonly unknownOperation: 400 | 404;
    /** A body sent with a content type other than JSON (ERR-006: 400, or 415 with defined false). */
    readonly nonJsonBody: 400 | 415;
    /** A body over the size cap (not stated: 400, or 413 with defined false). */
    readonly tooLargeBody: 400 | 413;
    /** A known path with a method it does not have (ERR-003: any 4xx with the envelope). */
    readonly methodMismatch: 404 | 405;
    /** POST /operations (not stated). */
    readonly submit: 201 | 202;
    /** POST /compute/runs (not stated). */
    readonly computeRun: 201 | 202;
    /**
     * A request refused as invalid: a broken bound, a wrong type, a bad query parameter or
     * Idempotency-Key (7 rule 4: which condition yields which status is not shown): 400, or
     * 422 with defined false and code VALIDATION_ERROR (FastAPI, Rails). Malformed JSON and
     * refusals that depend on stored state stay 400.
     */
    readonly invalid: 400 | 422;
  };
  /** Unknown API paths are answered 404 before the key is looked at (else the key is checked first). */
  readonly routeBeforeKey: boolean;
  /**
   * Route paths served elsewhere, by pattern (4.9 names no path for ICPs, only "resources under
   * /data"): the pattern's own path is then an unknown path (404).
   */
  readonly paths: Readonly<Record<string, string>>;
  /** How request bodies are read (part 4: "Bodies are JSON"). */
  readonly bodies: {
    /** Content types a JSON body is taken under: JSON ones only (others get `status.nonJsonBody`), or any (Go's json.NewDecoder(r.Body)); a body that is not JSON is 400 either way. */
    readonly contentTypes: 'json' | 'any';
    /** Bytes after a complete JSON value: 400 like any malformed JSON, or ignored (Go's json.Decoder.Decode reads the first value). */
    readonly trailingBytes: 'refuse' | 'ignore';
    /**
     * JSON null in an optional property the seed types without null: a wrong type, or "not
     * given" (pydantic's Optional[...] = None, Jackson); then on PATCH, description and
     * instruction ("string or null" in 2.1) are cleared. A null in a required property is refused either way.
     */
    readonly nullOptional: 'refuse' | 'absent';
    /** "0.9" for a number, "true" or "false" for a boolean: a wrong type, or read as the number or boolean (pydantic's lax mode). */
    readonly scalarStrings: 'refuse' | 'coerce';
  };
  /** uuids wherever one is parsed (cursor, path ids, body fields, trace ids): 8-4-4-4-12 hex in any case, or also 32 hex digits without hyphens (Python's uuid.UUID, Go's google/uuid, Postgres). */
  readonly uuids: 'hyphenated' | 'hyphenated-or-plain';
  /** Boolean query parameters (includeArchived, 4.3 "boolean"): `true` or `false`, or also yes/no, on/off, 1/0, in any case (pydantic, Spring). */
  readonly queryBooleans: 'true-false' | 'lenient';
  /** Values of Definition fields the seed does not fix (seed 2.1, 3: "other transitions: not shown"). */
  readonly definitions: {
    /** State of a new definition. */
    readonly initialState: string;
    /**
     * New definitions with a listed refresh policy ("*": any) start in `state` instead and move
     * to the initial state on their own after a random time within `settleMs` (the first
     * matching row applies).
     */
    readonly settling: readonly { readonly policy: string; readonly state: string; readonly settleMs: readonly [number, number] }[];
    /**
     * What settling changes: only the state, or also what may move with it (SVC-005's reading):
     * updated_at, the credit estimates and last_run_credits.
     */
    readonly settlingTouches: 'state' | 'state-and-derived';
    /** `reason` shows the latest write's reason, or keeps the one given at creation. */
    readonly reason: 'latest-write' | 'creation';
    /** `created_by`: the creating member's user id, or null. */
    readonly createdBy: 'member' | 'null';
    /** est_credits_low and est_credits_high of a new definition (null: not estimated). */
    readonly estimates: { readonly low: number; readonly high: number } | null;
    /** description and instruction when omitted on create: null or the empty string. */
    readonly omittedText: null | '';
    /** cardinality of an enum definition created without one: null or this value. */
    readonly enumCardinality: 'exclusive' | null;
    /** description and instruction given as "": kept as "", or stored as null (2.1: "string or null"). */
    readonly emptyText: 'keep' | 'null';
    /**
     * Estimates computed in the background: `afterMs` after a create, est_credits_low/high and
     * last_run_credits are filled in and updated_at advances, with no state change and no write
     * (2.1 does not say when they are computed). Null: never.
     */
    readonly estimating: { readonly afterMs: number; readonly low: number; readonly high: number; readonly lastRun: number } | null;
  };
  /** Enum value writes the seed leaves open (4.5 archiveEnumValueSlugs, 4.7 merge-value). */
  readonly enumValueWrites: {
    /** The value merged away: archived, or removed from enum_values. */
    readonly mergedAway: 'archived' | 'removed';
    /** merge-value naming a slug no value has. */
    readonly unknownSlugStatus: 400 | 404;
    /** merge-value of a value into itself: 400, or a success that rewrites nothing. */
    readonly sameSlug: 'refuse' | 'no-op';
    /** archiveEnumValueSlugs naming a slug no value has: 400, or ignored. */
    readonly unknownArchiveSlug: 'refuse' | 'ignore';
  };
  /** A definition's slug when a PATCH renames it: kept, or derived anew from the new name. */
  readonly renameSlug: 'keep' | 'rederive';
  /** Unknown top-level properties of definition write bodies, outside decision_trace (DEF-025). */
  readonly unknownBodyProperties: 'ignore' | 'refuse';
  /** PATCH, archive and merge-value of an archived definition (DEF-016, DEF-021): 409, or success leaving it archived. */
  readonly archivedDefinitionWrites: 'refuse' | 'allow';
  readonly idempotency: {
    /** Who shares an Idempotency-Key: the key holder within the workspace, or the whole workspace. */
    readonly scope: 'member' | 'workspace';
    /** Refusals by the handler (400, 404...) are stored and replayed like successes (IDEM-009). */
    readonly storeRefusals: boolean;
    /** An empty Idempotency-Key header: a 400, or no key at all (IDEM-005). */
    readonly emptyKey: 'refuse' | 'absent';
    /** Headers added to a replay. */
    readonly replayHeaders: Readonly<Record<string, string>>;
    /**
     * A keyed request is processed this long after it is admitted (0: at once, in the turn that
     * read its body); meanwhile the same key gets 409 (IDEM-008 allows a refusal).
     */
    readonly inFlightMs: number;
  };
  /** Query parameters GET /definitions does not define (seed 4.3): ignored, or refused with 400. */
  readonly unknownListParameters: 'ignore' | 'refuse';
  readonly paging: {
    /** nextCursor is the last item's id on every non-empty page, so a walk ends on an empty page (PAGE-006). */
    readonly trailingCursor: boolean;
    /**
     * moduleKeys wire forms accepted (DEF-023): all three; or only `moduleKeys=a&moduleKeys=b`
     * (the others 400); or the bracket forms `moduleKeys[]=a`, `moduleKeys[0]=a`, a repeated plain
     * name keeping only its last value (Rails, PHP).
     */
    readonly moduleKeysForms: 'all' | 'repeated' | 'brackets-last-wins';
    /**
     * The cursor (part 8: a boundary): exclusive (nextCursor is the last item's id, the next page
     * starts after it) or inclusive (nextCursor is the id of the next page's first item, the next
     * page starts at it: the "fetch limit + 1" design).
     */
    readonly cursor: 'exclusive' | 'inclusive';
  };
  /** Definition and enum value slugs: snake_case with _2, _3 on collisions, or kebab-case with a random suffix. */
  readonly slugs: 'snake-numbered' | 'kebab-random';
  readonly receipts: {
    /** A queued receipt runs when polled this many times (1: the first poll)... */
    readonly pollsToComplete: number;
    /** ...or this long after submission (0: the next event-loop turn). */
    readonly executionDelayMs: number;
    /** Operations that take at least this long (ms) whatever the polls, by name. */
    readonly slowOperations: Readonly<Record<string, number>>;
  };
  /**
   * graph.agent_preview fee (BILL-011): the quoted apiPreviewCredits, and whether it is charged
   * on top of the call's credit, as a ledger entry of its own under `surface` (an "api:" name).
   */
  readonly previewFee: { readonly apiPreviewCredits: number; readonly chargedOnTop: boolean; readonly surface: string };
  /** Retry-After on 429: delay-seconds or an HTTP date. */
  readonly retryAfter: 'seconds' | 'http-date';
  /** Which ids GET /data/people/{id} takes: canonical person and account-membership ids, or canonical only. */
  readonly personIds: 'both' | 'canonical';
  /** POST /graph/decision-inputs body field holding the definition ids. */
  readonly decisionInputsField: 'definitionIds' | 'definition_ids';
  /** GET /graph/traces query parameter names of the entity kind and id. */
  readonly traceParams: { readonly kind: string; readonly id: string };
  /** The ledger surface of a charge ("api:<what ran>" by default). */
  ledgerSurface(surface: string): string;
  /** Charges show in the usage ledger this long after the answer (0: before the answer is sent). */
  readonly ledgerLagMs: number;
  /** Headers of the server's own on every API answer (called per answer; none when absent). */
  readonly responseHeaders?: () => Readonly<Record<string, string>>;
  readonly layout: Layout;
}

const identity = <T>(x: T): T => x;

/** The default variant: the reference target as docs/reference-target.md describes it. */
export const DEFAULT_CHOICES: Choices = {
  variant: 'default',
  keys: { prefix: 'wgr_', secretChars: 32, alphabet: 'base62' },
  ids: 'uuid-v4',
  timestamps: { fraction: 3, offsetMinutes: 0 },
  status: {
    create: 201,
    departedMember: 401,
    pausedWorkspace: 403,
    foreignId: 404,
    malformedPathId: 400,
    unknownOperation: 400,
    nonJsonBody: 400,
    tooLargeBody: 400,
    methodMismatch: 404,
    submit: 202,
    computeRun: 202,
    invalid: 400,
  },
  routeBeforeKey: false,
  paths: {},
  bodies: { contentTypes: 'json', trailingBytes: 'refuse', nullOptional: 'refuse', scalarStrings: 'refuse' },
  uuids: 'hyphenated',
  queryBooleans: 'true-false',
  definitions: {
    initialState: 'draft',
    settling: [],
    settlingTouches: 'state',
    reason: 'latest-write',
    createdBy: 'member',
    estimates: null,
    omittedText: null,
    enumCardinality: null,
    emptyText: 'keep',
    estimating: null,
  },
  enumValueWrites: { mergedAway: 'archived', unknownSlugStatus: 400, sameSlug: 'refuse', unknownArchiveSlug: 'refuse' },
  renameSlug: 'keep',
  unknownBodyProperties: 'ignore',
  unknownListParameters: 'ignore',
  archivedDefinitionWrites: 'refuse',
  idempotency: { scope: 'member', storeRefusals: false, emptyKey: 'refuse', replayHeaders: { 'idempotent-replayed': 'true' }, inFlightMs: 0 },
  paging: { trailingCursor: false, moduleKeysForms: 'all', cursor: 'exclusive' },
  slugs: 'snake-numbered',
  receipts: { pollsToComplete: 1, executionDelayMs: 0, slowOperations: {} },
  previewFee: { apiPreviewCredits: 1, chargedOnTop: false, surface: '' },
  retryAfter: 'seconds',
  personIds: 'both',
  decisionInputsField: 'definitionIds',
  traceParams: { kind: 'kind', id: 'id' },
  ledgerSurface: identity,
  ledgerLagMs: 0,
  layout: {
    error: (e) => envelope(e.status, e.message, e.data),
    definition: (d) => d as unknown as Record<string, unknown>,
    enumValue: (v) => ({ ...v }),
    list: (items, nextCursor) => ({ items, nextCursor }),
    mergeResult: (rewritten) => ({ rewritten }),
    receipt: (r) => ({ ...r }),
    submitted: identity,
    // Stryker disable next-line ObjectLiteral: a compute run's shape is not shown (4.9)
    computeRun: (r) => ({ ...r }),
    // Stryker disable next-line ObjectLiteral: a compute run's shape is not shown (4.9)
    computeRunStarted: (r) => ({ body: { ...r } }),
    // Stryker disable next-line ObjectLiteral,ArithmeticOperator: a compute preview's shape and figures are not shown (4.9)
    computePreview: (job, accounts) => ({ job, accounts, estCreditsLow: accounts, estCreditsHigh: accounts * 2 }),
    quote: (q) => ({
      modelCreditCeiling: q.modelCreditCeiling,
      apiPreviewCredits: q.apiPreviewCredits,
      apiSubmissionCredits: q.apiSubmissionCredits,
      // Stryker disable next-line ArithmeticOperator: a total is the reference's own field (4.8 shows three credit figures, no total)
      totalCredits: q.modelCreditCeiling + q.apiPreviewCredits + q.apiSubmissionCredits,
      analysisLabel: q.analysisLabel,
      model: q.model,
      scope: q.scope,
    }),
    catalog: (c) => ({
      // Stryker disable next-line StringLiteral: where the version label is published is not shown (VER-002, not observable); the catalog's layout is the reference's own
      version: 'v1-beta',
      operations: c.operations,
      queryOperations: c.queries,
      fieldCatalog: c.fieldCatalog,
      contextAreas: c.contextAreas,
      limits: c.limits,
      guidance: c.guidance,
    }),
    me: identity,
    recordRead: (_kind, record) => record,
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: a query result's shape is not shown (4.9)
    queryResult: (operation, object, items) => ({ operation, object, live: true, items }),
    // Stryker disable next-line ObjectLiteral: the decision inputs' shape is not shown (4.9)
    decisionInputs: (refs) => ({ definition_refs: refs }),
    trace: identity,
  },
};

/** How a variant reads request bodies (validate.ts), from its choices. */
export function readingOf(c: Choices): Reading {
  // Stryker disable next-line all: each of the three is a freedom the document leaves (docs/interpretations.md; the lenient variant takes the other side of all three), so a reading switched either way is another conformant server, which the suite must pass
  return { nullIsAbsent: c.bodies.nullOptional === 'absent', coerceScalars: c.bodies.scalarStrings === 'coerce', plainUuids: c.uuids === 'hyphenated-or-plain' };
}

/** A fresh random uuid of the variant's version, lowercase. */
export function newUuid(c: Choices): string {
  // Stryker disable next-line all: a version 4 or a version 7 uuid are both uuids (the document fixes no version; a variant issues version 7)
  if (c.ids === 'uuid-v4') return randomUUID();
  // RFC 9562 version 7: 48-bit Unix milliseconds, version, 74 random bits, variant.
  const b = randomBytes(16);
  const ms = Date.now();
  b.writeUIntBE(ms, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** An RFC 3339 timestamp of `ms` with the variant's precision and UTC offset. */
// Stryker disable all: every form these branches write is an RFC 3339 timestamp of the same instant (to the second), which is all the document fixes; the precision and offset are variants' choices
export function formatTime(c: Choices, ms: number): string {
  const { fraction, offsetMinutes } = c.timestamps;
  if (fraction === 3 && offsetMinutes === 0) return new Date(ms).toISOString();
  // Whole seconds are truncated, never rounded up: a timestamp is never later than the event.
  const local = new Date(Math.floor(ms / 1000) * 1000 + offsetMinutes * 60_000).toISOString();
  const stamp = fraction === 3 ? new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23) : local.slice(0, 19);
  if (offsetMinutes === 0) return `${stamp}Z`;
  const abs = Math.abs(offsetMinutes);
  return `${stamp}${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
// Stryker restore all
