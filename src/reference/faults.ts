/**
 * Named faults: each switches off exactly one behaviour of the reference target so that it
 * breaks one clause of specs/clauses.yaml (or a tight group). The suite's self-test runs the
 * reference with each fault and expects the named clauses to fail.
 *
 * Every fault is checked at exactly one place in src/reference: either a
 * `faults.has('<name>')` test (grep for the name) or one row of the tables below, each read
 * at one place (RELAXED_ISSUES by validate.ts parseBody, RELAXED_SCOPES by auth.ts
 * requireScopes, BILLED_FREE_ROUTES and BILLED_ERRORS by server.ts).
 */
import type { BoundShift, Relax } from './validate.ts';

/** One named fault. */
export interface FaultDef {
  /** kebab-case, stable; a generated fault's name follows its family's pattern (see BOUND_FAULT_RE). */
  name: string;
  /** The family a generated fault belongs to (the hand-written faults of FAULTS have none: "named"). */
  family?: 'bounds' | 'shapes' | 'patch-semantics' | 'rule-cells' | 'sequences';
  /** Why no client can observe a generated fault (it is listed, not run). */
  unobservable?: string;
  /** Clause ids it breaks. */
  clauses: readonly string[];
  description: string;
}

const f = (name: string, clauses: readonly string[], description: string): FaultDef => ({ name, clauses, description });

/** Every fault the reference target knows, by area. */
export const FAULTS: readonly FaultDef[] = [
  // Service-wide rules and decision traces
  f('list-touches-definitions', ['SVC-005'], 'GET /definitions advances updated_at of the definitions it lists.'),
  f('trace-read-touches-definitions', ['TRACE-017'], 'GET /graph/traces advances updated_at of every definition of the workspace.'),
  f('trace-refused-on-merge', ['TRACE-001'], 'merge-value refuses any decision_trace with 400.'),
  f('trace-reason-unchecked', ['TRACE-002'], 'The trace reason is neither required nor bounded.'),
  f('trace-basis-unchecked', ['TRACE-003'], 'Any string is accepted as trace basis.'),
  f('trace-factors-unbounded', ['TRACE-004'], 'More than 50 trace factors are accepted.'),
  f('trace-alternatives-unbounded', ['TRACE-005'], 'More than 20 trace alternatives are accepted.'),
  f('trace-event-at-unchecked', ['TRACE-006'], 'Any string is accepted as trace event_at.'),
  f('trace-factor-rationale-unbounded', ['TRACE-007'], 'Factor rationales longer than 2000 characters are accepted.'),
  f('trace-evidence-source-id-unchecked', ['TRACE-008'], 'Evidence source_id need not be a uuid.'),
  f('trace-ref-hash-unchecked', ['TRACE-009'], 'Definition-reference content_hash is not checked.'),
  f('trace-observation-excerpt-unbounded', ['TRACE-010'], 'Observation excerpts longer than 4000 characters are accepted.'),
  f('trace-origin-kind-unchecked', ['TRACE-011'], 'Any string is accepted as reported_origin kind.'),
  f('trace-accepts-unknown-properties', ['TRACE-012'], 'Unknown properties in the trace and its sub-objects are ignored instead of refused.'),
  f(
    'create-trace-arrays-unbounded',
    ['TRACE-004', 'TRACE-005'],
    'On POST /definitions only, the trace arrays (factors, evidence, definition_refs, observations, alternatives, unknowns) take any number of items.',
  ),
  f('trace-revision-zero', ['TRACE-009'], 'A definition reference with revision 0 is accepted.'),

  // Definitions
  f('definition-omits-null-fields', ['DEF-001'], 'Definition fields whose value is null are left out of responses.'),
  f('definition-state-unknown', ['DEF-002'], 'New definitions get the state "new", outside the state enum.'),
  f('create-ignores-instruction', ['DEF-003'], 'POST /definitions does not store the instruction.'),
  f('create-stores-default-refresh-policy', ['DEF-003'], 'POST /definitions answers the refreshPolicy sent but stores on_ingest: the listed copy differs from the answer.'),
  f('wrong-default-review-threshold', ['DEF-004'], 'An omitted reviewThreshold defaults to 0.5 instead of 0.6.'),
  f('enum-values-created-archived', ['DEF-005'], 'The create response shows enum values sent without archived as archived (they are stored unarchived).'),
  f('create-instruction-unbounded', ['DEF-006'], 'POST /definitions accepts an instruction longer than 2000 characters.'),
  f('enum-color-unchecked', ['DEF-007'], 'Enum value colors are not checked against # and six hex digits.'),
  f('update-description-unbounded', ['DEF-008'], 'PATCH accepts a description longer than 1000 characters.'),
  f('archive-reason-unchecked', ['DEF-009'], 'Archive does not require or bound the reason.'),
  f('merge-reason-unchecked', ['DEF-010'], 'merge-value does not require or bound the reason.'),
  f('bad-create-still-stores', ['DEF-011', 'IDEM-009'], 'A POST /definitions refused with 400 still stores a definition when the body has a string name.'),
  f('create-refuses-enum-color', ['DEF-012'], 'POST /definitions refuses (400) any enum value that carries a color, a valid optional field.'),
  f('create-answers-204', ['DEF-012'], 'POST /definitions creates the definition but answers 204 with no body, so the new Definition is not returned.'),
  f('archive-returns-stale-state', ['DEF-013'], 'Archive stores the archived state but returns the previous state.'),
  f('archive-leaves-archived-at-null', ['DEF-014'], 'Archive leaves archived_at null.'),
  f('archived-still-listed', ['DEF-015'], 'GET /definitions lists archived definitions without includeArchived.'),
  f('archive-of-archived-restores', ['DEF-016'], 'Archiving an archived definition brings it back to draft.'),
  f('patch-ignores-chat-visible', ['DEF-017'], 'PATCH ignores chatVisible.'),
  f('add-enum-values-ignored', ['DEF-018'], 'PATCH ignores addEnumValues.'),
  f('archive-enum-slugs-ignored', ['DEF-019'], 'PATCH ignores archiveEnumValueSlugs.'),
  f('patch-rewinds-updated-at', ['DEF-020'], 'PATCH sets updated_at one hour before created_at.'),
  f('patch-unarchives', ['DEF-021'], 'PATCH of an archived definition succeeds and brings it back to draft.'),
  f('merge-rewritten-negative', ['DEF-022'], 'merge-value reports rewritten as -1 when nothing was rewritten.'),
  f('merge-archives-into', ['DEF-030'], 'merge-value archives the value merged into as well as the one merged away.'),
  f('merge-leaves-labels', ['DEF-032'], 'merge-value rewrites no label: the labels keep the value merged away.'),
  f('writes-keep-updated-at', ['DEF-031'], 'PATCH, archive and merge-value leave updated_at as it was.'),
  f('decision-inputs-revision-from-zero', ['TRACE-020', 'TRACE-001'], 'POST /graph/decision-inputs counts revisions from 0: a fresh definition is referenced with revision 0.'),
  f('module-keys-ignored', ['DEF-023'], 'GET /definitions ignores the moduleKeys filter.'),
  f('definition-workspace-id-is-user-id', ['DEF-024', 'AUTH-011'], "Definitions report the creator's user id as workspace_id."),
  f('unknown-create-properties-echoed', ['DEF-025'], 'Unknown create properties are stored and returned in the Definition.'),
  f('unknown-definition-400', ['DEF-026'], 'A well-formed definition id that exists in no workspace answers 400 instead of 404.'),
  f('malformed-definition-id-409', ['DEF-027'], 'A definitionId that is not a uuid answers 409.'),
  f('name-limit-79', ['DEF-006', 'DEF-008'], 'POST /definitions and PATCH refuse a name of 80 characters (the limit is one short).'),
  f('label-length-in-bytes', ['DEF-007'], 'POST /definitions counts an enum value label in UTF-8 bytes: an 80-character label holding é is refused.'),
  f('enum-values-cap-199', ['DEF-006'], 'POST /definitions refuses 200 enumValues (the limit is one short).'),
  f('archive-slugs-cap-199', ['DEF-008'], 'PATCH refuses 200 archiveEnumValueSlugs (the limit is one short).'),
  f('patch-clears-description', ['DEF-028'], 'A PATCH that does not name description clears it to null.'),
  f('add-enum-values-replaces', ['DEF-018'], "PATCH addEnumValues replaces the definition's enum values instead of adding to them."),
  f('patch-answer-without-archived-at', ['DEF-001'], 'The PATCH answer leaves out archived_at.'),
  f('archive-answer-entity-kinds-string', ['DEF-002'], 'The archive answer gives entity_kinds as one comma-separated string.'),

  // Envelopes, introspection
  f('definitions-next-cursor-missing', ['ENV-001'], 'GET /definitions leaves nextCursor out instead of null on the last page.'),
  f('operations-list-bare-array', ['ENV-002'], 'GET /operations answers a bare array of receipts.'),
  f('relationships-bare-array', ['ENV-003'], 'GET /data/relationships answers a bare array.'),
  f('linked-default-page-size-25', ['PAGE-013'], "The collections a stored record links to (relatedData) answer 25 items a page without a limit, not part 8's 50."),
  f('relationships-limit-max-199', ['PAGE-013'], 'GET /data/relationships refuses limit=200 (its maximum is one less than part 8 says).'),
  f('linked-collections-bare-array', ['ENV-004'], 'The collections relatedData links to answer bare arrays.'),
  f('linked-collections-limit-unchecked', ['PAGE-013'], 'The collections relatedData links to clamp a limit outside 1 to 200 instead of refusing it.'),
  f('me-beta-string', ['ME-001'], 'GET /me reports beta as the string "true".'),
  f('me-omits-graph-compute', ['ME-002'], 'GET /me capabilities lack graphCompute.'),
  f('me-operation-catalog-relative', ['ME-003'], 'GET /me reports operationCatalog as "/capabilities".'),
  f('me-module-visibility-wrong', ['ME-004'], 'GET /me reports moduleVisibility as "all".'),
  f('me-user-id-is-key-id', ['ME-005'], 'GET /me reports the key id as userId.'),

  // Idempotency
  f('idempotency-key-refused-on-merge', ['IDEM-001'], 'merge-value refuses any Idempotency-Key with 400.'),
  f('replay-status-200', ['IDEM-002'], 'A replay answers 200 whatever the original status was.'),
  f('replay-re-executes', ['IDEM-002', 'IDEM-003', 'IDEM-008', 'IDEM-009'], 'A replay runs the mutation again (then returns the stored reply).'),
  f('idempotency-ignores-body', ['IDEM-004'], 'The request fingerprint leaves the body out: a different body replays instead of 409.'),
  f('idempotency-fingerprint-skips-arrays', ['IDEM-004'], 'The Idempotency-Key fingerprint leaves out array-valued body fields: a reuse that differs only in an array is replayed.'),
  f('idempotency-fingerprint-skips-path', ['IDEM-004'], 'The Idempotency-Key fingerprint leaves out the path: the key reused with the same body on another definition replays the first answer.'),
  f('archive-idempotency-key-unchecked', ['IDEM-005', 'IDEM-006'], 'POST /definitions/{id}/archive takes any Idempotency-Key (too long, spaces): the key rules are forgotten on that one route.'),
  f('long-idempotency-key-409', ['IDEM-005'], 'An Idempotency-Key longer than 128 characters answers 409.'),
  f('idempotency-key-allows-spaces', ['IDEM-006'], 'Idempotency-Keys may hold spaces and characters outside visible ASCII.'),
  f('idempotency-key-max-64', ['IDEM-007'], 'Idempotency-Keys longer than 64 characters are refused with 400.'),
  f('idempotency-race', ['IDEM-008'], 'The replay lookup and the store are a turn apart: concurrent same-key requests all execute.'),
  f(
    'conflict-overwrites-key',
    ['IDEM-002'],
    'A key reused with other input is refused with 409, and that 409 is stored under the key in place of the first answer: the first input then gets 409 too.',
  ),
  f('key-after-refusal-not-stored', ['IDEM-009'], 'After a refusal under a key, later successes under that key are not stored (a repeat runs again).'),

  // Operations and data
  f('receipts-not-pollable', ['OPS-001', 'OPS-004', 'BILL-011'], 'POST /operations returns a receipt id that GET /operations/{id} does not know.'),
  f('unknown-operation-accepted', ['OPS-002'], 'An operation name outside the catalog is accepted with a receipt (that fails).'),
  f('catalog-omits-context-refresh', ['OPS-003'], 'GET /capabilities leaves graph.context_refresh out while POST /operations accepts it.'),
  f('preview-quote-strings', ['OPS-004', 'BILL-011'], 'The agent preview quotes its credit figures as strings.'),
  f('agent-scope-unbounded', ['OPS-005'], 'An agent preview of more than 20 accounts is quoted.'),
  f('person-field-needs-canonical-id', ['OPS-006'], 'person_field changes addressed to an account-membership record are refused with 400.'),
  f('compute-runs-not-pollable', ['OPS-012'], 'GET /compute/runs/{id} answers 404 for every run.'),
  f('unknown-receipt-403', ['OPS-013'], 'GET /operations/{id} of an unknown id answers 403.'),
  f('account-fields-overwritten', ['OPS-007'], 'graph.apply_update account_field changes overwrite firmographic fields that already have a value.'),
  f('account-without-related-data', ['DATA-001'], 'GET /data/accounts/{id} has no relatedData.'),
  f('person-without-related-data', ['DATA-002'], 'GET /data/people/{id} has no relatedData.'),
  f('account-contacts-empty', ['DATA-001'], "GET /data/accounts/{id}/contacts, linked from the account's relatedData, lists none of its contacts."),
  f('person-related-data-unlinked', ['DATA-002'], "GET /data/people/{id} has relatedData {}: no link to the contact's evidence, deals or accounts."),
  f('relationships-missing', ['DATA-003', 'ENV-003'], 'GET /data/relationships answers 404.'),
  f('unknown-account-empty-200', ['DATA-004'], 'GET /data/accounts/{id} of an id that exists nowhere answers 200 with an empty object.'),

  // Authentication
  f('bearer-refused', ['AUTH-001', 'AUTH-002'], 'Authorization: Bearer is not honoured (only X-Api-Key is). Every check that sends Bearer fails too.'),
  f('x-api-key-ignored', ['AUTH-002'], 'X-Api-Key is not honoured (only Authorization: Bearer is).'),
  f('key-secret-without-prefix', ['AUTH-003'], 'New key secrets carry no vendor prefix.'),
  f('missing-key-403', ['AUTH-004'], 'A request with no credential header answers 403 instead of 401.'),
  f('unknown-key-404', ['AUTH-005'], 'An unknown well-formed key answers 404 instead of 401.'),
  f('malformed-key-400', ['AUTH-006'], 'A malformed key or Authorization header answers 400 instead of 401.'),
  f('revoked-key-accepted', ['AUTH-007', 'BILL-007'], 'Revoked keys keep working.'),
  f('disabled-key-accepted', ['AUTH-008', 'BILL-007'], 'Disabled keys keep working.'),
  f('departed-member-key-accepted', ['AUTH-009'], 'Keys of members who left keep working.'),
  f('paused-workspace-accepted', ['AUTH-010'], 'Keys of a paused workspace keep working.'),
  f('workspace-delete-drops-every-key', ['AUTH-001'], "Deleting a workspace through the control protocol drops every workspace's keys, not only its own."),
  f('workspace-from-input', ['AUTH-011'], 'A workspace id in X-Workspace-Id, ?workspaceId/workspace_id/workspace or body workspace_id/workspaceId selects that workspace.'),
  f('cross-workspace-definition-ids', ['AUTH-012'], 'Definition writes find definitions of any workspace by id.'),
  f('secret-in-me', ['AUTH-013'], 'GET /me includes the key secret.'),
  f('list-shows-all-workspaces', ['AUTH-014'], "GET /definitions lists every workspace's definitions. Checks that count definitions on a shared reference fail too."),

  // Scopes and roles
  f('list-needs-no-scope', ['SCOPE-001', 'SCOPE-010'], 'GET /definitions needs no graph:read.'),
  f('create-needs-no-admin', ['SCOPE-002', 'SCOPE-012'], 'POST /definitions needs no admin scope.'),
  f('update-needs-no-admin', ['SCOPE-003', 'SCOPE-012'], 'PATCH /definitions/{id} needs no admin scope.'),
  f('archive-needs-no-admin', ['SCOPE-004', 'SCOPE-012'], 'Archive needs no admin scope.'),
  f('merge-needs-no-admin', ['SCOPE-005', 'SCOPE-012'], 'merge-value needs no admin scope.'),
  f('query-needs-no-crm-read', ['SCOPE-006'], 'POST /query needs no crm:read.'),
  f('preview-needs-no-research', ['SCOPE-007', 'SCOPE-012'], 'graph.agent_preview needs no research:run.'),
  f('run-needs-no-research', ['SCOPE-008', 'SCOPE-012'], 'graph.agent_run needs no research:run.'),
  f('compute-needs-no-admin-scope', ['SCOPE-009'], 'Compute preview and runs check the role only, not the admin scope.'),
  f('admin-implies-graph-read', ['SCOPE-010'], 'The admin scope counts as graph:read.'),
  f('apply-update-needs-no-graph-write', ['SCOPE-011', 'SCOPE-012'], 'graph.apply_update needs no graph:write.'),
  f('forbidden-create-still-stores', ['SCOPE-012'], 'A POST /definitions refused with 403 still stores the definition.'),
  f('compute-allows-analyst', ['ROLE-001', 'ROLE-005'], 'Compute preview and runs accept analysts.'),
  f('compute-owner-only', ['ROLE-002'], 'Compute preview and runs refuse admins (owners only).'),
  f('label-change-needs-no-admin', ['ROLE-006'], 'graph.apply_update label changes skip the admin scope check (the role is still checked).'),
  f('label-change-allows-analyst', ['ROLE-006'], 'graph.apply_update label changes accept analysts holding admin (the scope is still checked).'),
  f('preview-needs-admin-scope', ['ROLE-003'], 'graph.agent_preview needs the admin scope as well.'),
  f('agent-allows-member-role', ['ROLE-004'], 'Agent previews and runs accept holders with the member role.'),
  f('roles-cached-at-first-use', ['ROLE-005'], "Role gates use the holder's role as first seen with the key."),

  // Grants
  f('regrant-disables-key', ['GRANT-001', 'GRANT-002', 'GRANT-004', 'GRANT-005'], "Replacing a key's scopes disables the key."),
  f('grants-cached-at-first-use', ['GRANT-002'], 'Authorization uses the scopes a key had when first used (GET /me shows the live ones).'),
  f('regrant-archives-definitions', ['GRANT-003'], 'Removing admin from a key archives the definitions its holder created.'),
  f('regrant-changes-role', ['GRANT-004'], "Replacing a key's scopes changes its holder's role."),
  f('me-scopes-cached', ['GRANT-005'], 'GET /me shows the scopes the key had at its first GET /me.'),

  // Errors
  f('errors-without-message', ['ERR-001'], 'Error bodies lack message. Checks that verify the envelope of their refusals fail too.'),
  f('errors-without-defined', ['ERR-001', 'ERR-002'], 'Error bodies lack defined.'),
  f('errors-code-lowercase', ['ERR-002'], 'Error codes are lowercase (bad_request...).'),
  f('unknown-route-plain-text', ['ERR-003', 'ERR-001'], 'Unknown paths answer 404 with a plain-text body.'),
  f('malformed-json-422-defined', ['ERR-004'], 'Malformed JSON answers 422 with defined true (a status outside the table must say defined false).'),
  f(
    'invalid-body-422-defined',
    ['DEF-006', 'DEF-008', 'DEF-009', 'DEF-010'],
    'A body that breaks a bound (JSON that parses) is answered 422 with defined true (a status outside the table must say defined false).',
  ),
  f('booleans-truthy', ['ERR-005', 'DEF-006', 'DEF-008'], 'captureEnabled and chatVisible take any JSON value by its truthiness (objects, arrays, any string).'),
  f('form-bodies-parsed', ['ERR-006'], 'Form-encoded bodies are read as forms, each value that parses as JSON taken as JSON.'),
  f('missing-role-as-401', ['ERR-007', 'ROLE-001', 'ROLE-004', 'ROLE-005'], 'A missing workspace role answers 401 instead of 403.'),
  f('rate-limit-plain-text', ['ERR-008', 'ERR-001'], '429 answers carry a plain-text body.'),
  f('capability-off-as-500', ['ERR-009'], 'A switched-off capability answers 500 instead of 503.'),
  f('account-contacts-whole-workspace', ['DATA-005'], "An account's linked contacts list every contact of the workspace."),
  f('person-accounts-whole-workspace', ['DATA-005'], "A person's linked accounts list every account of the workspace that has a contact."),
  f('enable-keeps-key-disabled', ['AUTH-016'], 'Enabling a disabled key through the control protocol answers 204 and leaves it disabled.'),
  f('resume-keeps-paused', ['AUTH-016'], 'Resuming a paused workspace through the control protocol answers 204 and leaves API access off.'),
  f('enable-revives-revoked-key', ['AUTH-016'], 'Enabling a revoked key through the control protocol brings it back.'),
  f('rate-limit-one-early', ['ERR-010'], 'A rate limit of N a minute refuses the Nth call already.'),
  f('rate-limit-one-late', ['ERR-010'], 'A rate limit of N a minute admits N + 1 calls.'),
  f('rate-limit-relents', ['ERR-010'], 'After a 429, the next call over the limit is admitted (the refused call clears the oldest).'),

  // Paging
  f('default-page-size-20', ['PAGE-001'], 'The default page size is 20.'),
  f('limit-one-refused', ['PAGE-002'], 'limit=1 is refused with 400 (the minimum is off by one).'),
  f('limit-unchecked', ['PAGE-003'], 'Out-of-range or non-integer limits are clamped or defaulted instead of refused.'),
  f('cursor-unchecked', ['PAGE-004'], 'A cursor that is not a uuid is ignored (first page).'),
  f('page-reversed-within-page', ['PAGE-005'], 'Items within a page are in descending id order.'),
  f('page-skips-item', ['PAGE-006'], 'nextCursor is the id of the first item of the next page, which is then skipped.'),
  f('filter-after-limit', ['PAGE-007'], 'Visibility and moduleKeys filters apply after the limit (pages may be short).'),
  f('page-repeats-boundary', ['PAGE-008', 'PAGE-006'], 'A page starts at the cursor item itself (id >= cursor), repeating it.'),
  f('include-archived-lenient', ['PAGE-009'], 'includeArchived values other than true count as false.'),
  f('module-keys-unchecked', ['PAGE-010'], 'Unknown moduleKeys values are ignored instead of refused.'),
  f('patch-instruction-not-stored', ['DEF-029'], 'A PATCH answers the new instruction but the stored definition keeps the old one.'),
  f('archive-archived-at-not-stored', ['DEF-029'], 'An archive answers archived_at set, but the stored definition keeps archived_at null.'),
  f('canonical-person-id-accepted', ['OPS-016'], 'graph.apply_update takes a canonical person id as person_id and edits that person in the account.'),
  f('idempotency-fingerprint-key-order', ['IDEM-002'], 'The Idempotency-Key fingerprint depends on the order of the body members, so a replay with them reordered is answered 409.'),
  f('operations-reason-unchecked', ['OPS-015'], 'POST /operations takes a reason of any type (or none).'),
  f('operations-list-omits-newest', ['OPS-014'], 'GET /operations leaves out the most recent submission.'),
  f('page-size-capped-100', ['PAGE-011'], 'Pages hold at most 100 items, whatever the limit up to 200.'),
  f('page-size-capped-199', ['PAGE-011'], 'Pages hold at most 199 items (the maximum is off by one).'),
  f('workspace-filter-after-limit', ['PAGE-012'], "GET /definitions takes a page of every workspace's definitions, then keeps the key's own (pages may be short)."),
  f('unknown-cursor-restarts', ['PAGE-008'], 'A well-formed cursor that names no current definition starts the walk over from the first page.'),

  // Billing
  f('writes-cost-two', ['BILL-001'], 'POST /definitions costs 2 credits.'),
  f('me-billed', ['BILL-002'], 'GET /me is billed.'),
  f('capabilities-billed', ['BILL-003'], 'GET /capabilities is billed.'),
  f('operations-polling-billed', ['BILL-004'], 'GET /operations and GET /operations/{id} are billed.'),
  f('compute-polling-billed', ['BILL-005'], 'GET /compute/runs/{id} is billed.'),
  f('bad-requests-billed', ['BILL-006'], '400 answers are billed.'),
  f('unauthorized-billed', ['BILL-007'], '401 answers to revoked or disabled keys are billed to their workspace.'),
  f('rate-limited-billed', ['BILL-008'], '429 answers are billed.'),
  f('unavailable-billed', ['BILL-009'], '503 answers are billed.'),
  f('replays-billed', ['BILL-010'], 'Idempotent replays are billed again.'),
  f('preview-free', ['BILL-011'], 'A successful agent preview is not charged.'),
  f('ledger-surface-constant', ['BILL-014'], 'Every charge is recorded under the one surface "api", whatever ran.'),

  // Versioning
  f('api-prefix-moved', ['VER-001'], 'The API answers under /api/v1beta instead of /api/v1. Every API check fails too.'),
  f('capabilities-need-graph-read', ['VER-003'], 'GET /capabilities refuses keys without graph:read with 403.'),
];

/** Validation issues a fault lets through: the surface (route), the issue path and message. */
export const RELAXED_ISSUES: Readonly<Record<string, { surface?: string; path: RegExp; message?: RegExp }>> = {
  'trace-reason-unchecked': { path: /^body\.decision_trace\.reason$/ },
  'trace-basis-unchecked': { path: /^body\.decision_trace\.basis$/ },
  'trace-factors-unbounded': { path: /^body\.decision_trace\.factors$/, message: /at most/ },
  'trace-alternatives-unbounded': { path: /^body\.decision_trace\.alternatives$/, message: /at most/ },
  'trace-event-at-unchecked': { path: /^body\.decision_trace\.event_at$/, message: /date-time/ },
  'trace-factor-rationale-unbounded': { path: /^body\.decision_trace\.factors\[\d+\]\.rationale$/, message: /at most/ },
  'trace-evidence-source-id-unchecked': { path: /^body\.decision_trace\.evidence\[\d+\]\.source_id$/, message: /uuid/ },
  'trace-ref-hash-unchecked': { path: /^body\.decision_trace\.definition_refs\[\d+\]\.content_hash$/, message: /must match/ },
  'trace-observation-excerpt-unbounded': { path: /^body\.decision_trace\.observations\[\d+\]\.excerpt$/, message: /at most/ },
  'trace-origin-kind-unchecked': { path: /^body\.decision_trace\.reported_origin\.kind$/, message: /one of/ },
  'trace-accepts-unknown-properties': { path: /^body\.decision_trace\./, message: /not an accepted property/ },
  'create-trace-arrays-unbounded': { surface: 'api:definitions.create', path: /^body\.decision_trace\.(factors|evidence|definition_refs|observations|alternatives|unknowns)$/, message: /at most/ },
  'trace-revision-zero': { path: /^body\.decision_trace\.definition_refs\[\d+\]\.revision$/, message: /greater than 0/ },
  'create-instruction-unbounded': { surface: 'api:definitions.create', path: /^body\.instruction$/ },
  'enum-color-unchecked': { path: /^body\.(enumValues|addEnumValues)\[\d+\]\.color$/, message: /must match/ },
  'update-description-unbounded': { surface: 'api:definitions.update', path: /^body\.description$/ },
  'archive-reason-unchecked': { surface: 'api:definitions.archive', path: /^body\.reason$/ },
  'merge-reason-unchecked': { surface: 'api:definitions.merge_value', path: /^body\.reason$/ },
  'operations-reason-unchecked': { surface: 'api:operations', path: /^body\.reason$/ },
  'agent-scope-unbounded': { path: /^body\.arguments\.customerIds$/, message: /at most/ },
};

/** Scopes a fault stops requiring, for a route surface or catalog operation name. */
export const RELAXED_SCOPES: Readonly<Record<string, { what: string; scope: string }>> = {
  'list-needs-no-scope': { what: 'api:definitions.list', scope: 'graph:read' },
  'create-needs-no-admin': { what: 'api:definitions.create', scope: 'admin' },
  'update-needs-no-admin': { what: 'api:definitions.update', scope: 'admin' },
  'archive-needs-no-admin': { what: 'api:definitions.archive', scope: 'admin' },
  'merge-needs-no-admin': { what: 'api:definitions.merge_value', scope: 'admin' },
  'query-needs-no-crm-read': { what: 'api:query', scope: 'crm:read' },
  'preview-needs-no-research': { what: 'graph.agent_preview', scope: 'research:run' },
  'run-needs-no-research': { what: 'graph.agent_run', scope: 'research:run' },
  'compute-needs-no-admin-scope': { what: 'api:compute', scope: 'admin' },
  'apply-update-needs-no-graph-write': { what: 'graph.apply_update', scope: 'graph:write' },
};

/** Free routes a fault bills (by route surface). */
export const BILLED_FREE_ROUTES: Readonly<Record<string, readonly string[]>> = {
  'me-billed': ['api:me'],
  'capabilities-billed': ['api:capabilities'],
  'operations-polling-billed': ['api:operations.list', 'api:operations.get'],
  'compute-polling-billed': ['api:compute.get'],
};

/** Error statuses a fault bills. */
export const BILLED_ERRORS: Readonly<Record<string, number>> = {
  'bad-requests-billed': 400,
  'unauthorized-billed': 401,
  'rate-limited-billed': 429,
  'unavailable-billed': 503,
};

/** The faults switched on for one running reference. */
export interface FaultSet {
  /** True when the named fault is on. */
  has(name: string): boolean;
  readonly names: readonly string[];
}

/** No fault on. */
export const NO_FAULTS: FaultSet = { has: () => false, names: [] };

/**
 * A generated bounds fault (the self-test's "bounds" family, src/selftest/families.ts): one
 * length, count or number bound of one request field on one definition write moved by one,
 * `tighten` (the last valid value refused) or `loosen` (the first invalid one accepted).
 * Named `bound:<write>:<field path, items as []>:<min|max>:<tighten|loosen>`, e.g.
 * `bound:create:body.decision_trace.factors[].criterion:max:tighten`; read at one place,
 * relaxFor, which hands the shift to the route's validation (validate.ts BoundShift).
 */
export const BOUND_FAULT_RE = /^bound:(create|update|archive|merge_value|operations|list):((?:body|query|header)(?:\.[A-Za-z_-]+(?:\[\])?)*):(min|max):(tighten|loosen)$/;

/**
 * A generated shapes fault: one field of the Definition one answer returns (create, update,
 * archive, or each listed item), or of each of its enum value objects (`enum_values.slug`), left out (`drop`) or given a JSON type its column does not
 * have (`as-string`, `as-number`, `as-object`). Read at one place: definitions.ts definitionOut.
 */
export const SHAPE_FAULT_RE = /^shape:(create|update|archive|list):([a-z_]+(?:\.[a-z_]+)?):(drop|as-string|as-number|as-object)$/;

/**
 * A generated patch-semantics fault: a PATCH that does not name a field of the Definition
 * changes it anyway (`enum_values`: archives a value archiveEnumValueSlugs does not name). Read
 * at one place: definitions.ts update.
 */
export const UNTOUCHED_FAULT_RE = /^untouched:([a-z_]+)$/;

/** The shape faults on, for one answer: each field and what is done to it. */
export function shapeFaults(faults: FaultSet, answer: string): { field: string; how: string }[] {
  return faults.names.flatMap((n) => {
    const m = SHAPE_FAULT_RE.exec(n);
    return m && m[1] === answer ? [{ field: m[2]!, how: m[3]! }] : [];
  });
}

/** The fields a PATCH changes although it does not name them (patch-semantics faults). */
export function untouchedFaults(faults: FaultSet): string[] {
  return faults.names.flatMap((n) => UNTOUCHED_FAULT_RE.exec(n)?.slice(1, 2) ?? []);
}

/** The rules the rule-cells family forgets on one route at a time. */
/**
 * Faults that only a sequence of calls shows (self-test family `sequences`; what each does:
 * sequence-faults.ts). Not among FAULTS: no single request probes them.
 */
const s = (name: string, clauses: readonly string[], description: string): FaultDef => ({ name, family: 'sequences', clauses, description });

export const SEQUENCE_FAULTS: readonly FaultDef[] = [
  s('listing-lags-writes', ['DEF-029'], 'GET /definitions answers a listing it served in the last second for the same query, writes made since left out (a cache not invalidated by writes).'),
  s('third-write-drops-enum-values', ['DEF-028'], "A definition's third write (its create, then a PATCH or merge-value) drops the enum values it does not name."),
  s('idempotency-forgets-after-requests', ['IDEM-002'], 'An Idempotency-Key is forgotten once three more calls of its workspace were answered: a replay then runs again.'),
  s('patch-after-merge-restores-value', ['DEF-028'], 'A PATCH after a merge-value brings the value merged away back (live again).'),
  s('close-writes-charged-twice', ['BILL-001'], 'A PATCH, archive or merge-value answered within 50 ms of the previous definition write in its workspace is charged twice.'),
  s(
    'poll-forgets-submission-keys',
    ['IDEM-002'],
    'Once a receipt of the workspace was polled (GET /operations/{id}), the Idempotency-Keys of its catalog submissions are forgotten: a replay of POST /operations runs again.',
  ),
];

export const CELL_RULES = [
  'x-api-key',
  'revoked',
  'disabled',
  'departed',
  'paused',
  'scopes',
  'free-refusals',
  'free-unauthorized',
  'replay',
  'conflict',
  'key-bounds',
  'free-replay',
  'isolation',
  'capability',
  'paging',
  'price',
] as const;
export type CellRule = (typeof CELL_RULES)[number];

/**
 * Generated rule-cell faults (family rule-cells): one rule forgotten on one route, the route
 * named by its ledger surface: `forgets:<rule>@<surface>`. Each rule is read at one place:
 * x-api-key (the X-Api-Key header form is not read: only Authorization counts) by auth.ts
 * credentialOf; revoked, disabled, departed and paused by auth.ts standing; scopes by server.ts before
 * requireScopes; free-refusals by server.ts fail (the route's refusals other than 401 are
 * charged); free-unauthorized by server.ts where a key is rejected (its 401s are charged);
 * replay (a repeated request runs again), conflict (idempotency.ts lookup: another input under
 * a used key runs as new), key-bounds (the Idempotency-Key is not
 * validated) and free-replay (a replay is charged), all in server.ts's Idempotency-Key steps;
 * isolation (records are looked up in whichever workspace holds the id the request names) by
 * server.ts before the handler runs; capability (the route's capability switch is not applied)
 * by server.ts beside the scope and role checks; paging (a collection ignores the cursor, so
 * every page starts at its first item) by server.ts where the query is parsed.
 */
export const CELL_FAULT_RE = new RegExp(`^forgets:(${CELL_RULES.join('|')})@(api:[a-z_.]+)$`);

/** Whether `rule` is forgotten on the route of `surface` (see CELL_FAULT_RE). */
export function forgets(faults: FaultSet, rule: CellRule, surface: string | undefined): boolean {
  return surface !== undefined && faults.has(`forgets:${rule}@${surface}`);
}

/** Resolves fault names, rejecting unknown ones with the list of valid names. */
export function resolveFaults(names: readonly string[] = []): FaultSet {
  const known = new Set([...FAULTS, ...SEQUENCE_FAULTS].map((d) => d.name));
  const generated = (n: string): boolean => BOUND_FAULT_RE.test(n) || SHAPE_FAULT_RE.test(n) || UNTOUCHED_FAULT_RE.test(n) || CELL_FAULT_RE.test(n);
  const unknown = names.filter((n) => !known.has(n) && !generated(n));
  if (unknown.length > 0) {
    const valid = FAULTS.map((d) => d.name).join(', ');
    throw new Error(`unknown fault${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid faults: ${valid}`);
  }
  const on = new Set(names);
  return { has: (name) => on.has(name), names: [...on] };
}

/** The route surface a bounds fault's operation names (create → api:definitions.create, operations → api:operations). */
const boundSurface = (op: string): string => (op === 'operations' ? 'api:operations' : `api:definitions.${op}`);

/**
 * What the faults change in one route's validation: the issues to let through (RELAXED_ISSUES)
 * and the bounds the generated bounds faults move (BOUND_FAULT_RE), both read only here.
 */
export function relaxFor(faults: FaultSet, surface: string): Relax {
  const rows = faults.names.flatMap((n) => (RELAXED_ISSUES[n] ? [RELAXED_ISSUES[n]] : [])).filter((r) => !r.surface || r.surface === surface);
  const shifts = faults.names.flatMap((n) => {
    const m = BOUND_FAULT_RE.exec(n);
    return m && boundSurface(m[1]!) === surface ? [{ path: m[2]!, bound: m[3] as 'min' | 'max', how: m[4] as 'tighten' | 'loosen' }] : [];
  });
  if (rows.length === 0 && shifts.length === 0) return undefined;
  const relax = (i: { path: string; message: string }): boolean => rows.some((r) => r.path.test(i.path) && (!r.message || r.message.test(i.message)));
  if (shifts.length === 0) return relax;
  const bounds: BoundShift = (path, bound) => shifts.find((s) => s.bound === bound && s.path === path.replace(/\[\d+\]/g, '[]'))?.how;
  return Object.assign(relax, { bounds });
}
