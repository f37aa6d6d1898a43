/**
 * The rule × endpoint table of docs/coverage.md: for every rule of the API document that
 * governs endpoints one by one, which endpoints it governs (read from specs/openapi.yaml: its
 * x-wgc-access, x-wgc-billing and x-wgc-idempotent markers, path ids and collection answers),
 * and the checks that judge it on each (their `endpoints`, which test/reference/credit-plan.test.ts
 * holds to the requests they send). A governed cell no check judges must have its reason in
 * GAPS, or the page cannot be generated: no blank cell without a reason.
 */
import type { CheckDef, Endpoints, SuiteDef } from '../engine/check.ts';
import type { LoadedSpec, OperationInfo } from '../spec/load.ts';
import { cell, code, table } from './markdown.ts';
import { CAPABILITY_OF } from '../../suites/errors/capability.ts';
import { QUERY_OPERATIONS } from '../../suites/_shared/access-shapes.ts';

/** One rule: the clauses that state it, and which endpoints it governs. */
export interface RuleColumn {
  id: string;
  title: string;
  /** Each of these clauses must be judged on a governed endpoint for its cell to count as covered. */
  clauses: readonly string[];
  /** True when the rule governs the endpoint, else why not. */
  governs(op: OperationInfo, spec: LoadedSpec): true | string;
  /**
   * Where a clause of the rule governs some of the rule's endpoints only (a scope clause names
   * one endpoint, a price clause one free endpoint): the endpoints it governs, or 'unobservable'
   * for a clause no client can observe (the catalog says why). A clause not named here governs
   * every endpoint the rule governs. Each clause that governs an endpoint must be judged there.
   * A predicate reads what specs/openapi.yaml says of the endpoint.
   */
  clauseGoverns?: Readonly<Record<string, readonly string[] | ((op: OperationInfo) => boolean) | 'unobservable'>>;
}

const every = (): true => true;
const range = (prefix: string, from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}-${String(from + i).padStart(3, '0')}`);

/** The 200 answer lists records: its schema is DefinitionPage (the envelope of 2.3) or one of the *List schemas. */
function answersCollection(op: OperationInfo, spec: LoadedSpec): boolean {
  const paths = spec.raw['paths'] as Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }>>;
  const ref = paths[op.path]?.[op.method.toLowerCase()]?.responses?.['200']?.content?.['application/json']?.schema?.$ref;
  return typeof ref === 'string' && /(List|Page)$/.test(ref);
}

/** Endpoints whose request names a stored record other than by a path id. */
const NAMES_RECORDS: readonly string[] = ['submitOperation', 'readTraces', 'prepareDecisionInputs'];

const DEFINITION_WRITES = ['createDefinition', 'updateDefinition', 'archiveDefinition', 'mergeDefinitionValue'];
const COMPUTE = ['previewCompute', 'startComputeRun'];
/** The request names a stored record: by a path id, or in the body or query. */
const namesRecord = (op: OperationInfo): boolean => op.path.includes('{') || NAMES_RECORDS.includes(op.operationId);

export const RULE_COLUMNS: readonly RuleColumn[] = [
  { id: 'key', title: 'A key is required: missing, unknown and malformed keys get 401 (part 5 rule 1, part 7 rule 3)', clauses: ['AUTH-004', 'AUTH-005', 'AUTH-006'], governs: every },
  { id: 'standing', title: 'Standing is re-checked on every call: revoked, disabled, departed, paused (part 5 rule 4)', clauses: range('AUTH', 7, 10), governs: every },
  { id: 'headers', title: 'Bearer and X-Api-Key are equivalent (part 5 rule 1)', clauses: ['AUTH-002'], governs: every },
  {
    id: 'access',
    title: 'Scopes and roles (part 5 rules 5-6 and its table, 4.8, 4.9)',
    clauses: [...range('SCOPE', 1, 15), ...range('ROLE', 1, 6)],
    clauseGoverns: {
      'SCOPE-001': ['listDefinitions'],
      'SCOPE-002': ['createDefinition'],
      'SCOPE-003': ['updateDefinition'],
      'SCOPE-004': ['archiveDefinition'],
      'SCOPE-005': ['mergeDefinitionValue'],
      'SCOPE-006': ['runQuery'],
      'SCOPE-007': ['submitOperation'],
      'SCOPE-008': ['submitOperation'],
      'SCOPE-009': COMPUTE,
      // Judged as a clause of its own where one scope could stand for another without the
      // endpoint's own row noticing: the list (admin or graph:write alone) and the agent
      // operations (admin). Elsewhere a key holding every scope but the one needed is the
      // endpoint's own row (SCOPE-002 to SCOPE-006, SCOPE-009, SCOPE-011).
      'SCOPE-010': ['listDefinitions', 'submitOperation'],
      'SCOPE-011': ['submitOperation'],
      'SCOPE-012': [...DEFINITION_WRITES, 'submitOperation', 'startComputeRun'],
      'SCOPE-013': 'unobservable',
      'SCOPE-014': 'unobservable',
      'SCOPE-015': 'unobservable',
      'ROLE-001': COMPUTE,
      'ROLE-002': COMPUTE,
      'ROLE-003': ['submitOperation'],
      'ROLE-004': ['submitOperation'],
      'ROLE-005': ['submitOperation', ...COMPUTE],
      'ROLE-006': ['submitOperation'],
    },
    governs: (op) => (op.access.scopes?.length || op.access.roles?.length || /x-wgc-operations/.test(op.access.note ?? '') ? true : `x-wgc-access: ${op.access.note ?? 'no scope or role named'}`),
  },
  {
    id: 'isolation',
    title: "A key reaches only its workspace's records (part 5 rules 2-3)",
    clauses: ['AUTH-012', 'AUTH-014'],
    // AUTH-012 governs what names another workspace's record; AUTH-014 (every call sees its own workspace only) every endpoint the rule governs.
    clauseGoverns: { 'AUTH-012': namesRecord },
    governs: (op, spec) => (namesRecord(op) || answersCollection(op, spec) ? true : 'names no stored record and lists none'),
  },
  {
    id: 'idempotency',
    title: 'Idempotency-Key: accepted, replayed, 409 on other input, bounds (4.1)',
    clauses: range('IDEM', 1, 7),
    governs: (op) => (op.idempotent ? true : 'not one of the five endpoints of 4.1'),
  },
  {
    id: 'price',
    title: 'What a 2xx costs: one credit, or nothing on the free list (part 8 rules 1-2)',
    clauses: range('BILL', 1, 5),
    governs: every,
    clauseGoverns: {
      'BILL-001': (op) => op.billing === 'billed',
      'BILL-002': ['getMe'],
      'BILL-003': ['getCapabilities'],
      'BILL-004': ['listOperations', 'getOperation'],
      'BILL-005': ['getComputeRun'],
    },
  },
  { id: 'refusals', title: 'A refusal (400, 403, 404, 409) costs nothing (part 8 rule 2, part 7 rule 2)', clauses: ['BILL-006'], governs: every },
  { id: 'unauthorized', title: 'A 401 costs nothing', clauses: ['BILL-007'], governs: every },
  { id: 'rate-limited', title: 'A 429 costs nothing', clauses: ['BILL-008'], governs: every },
  { id: 'unavailable', title: 'A 5xx costs nothing', clauses: ['BILL-009'], governs: every },
  { id: 'replays', title: 'A replay costs nothing (part 8 rule 5)', clauses: ['BILL-010'], governs: (op) => (op.idempotent ? true : 'not one of the five endpoints of 4.1') },
  {
    id: 'capability',
    title: 'A call that needs a switched-off capability is answered 503 (part 7 table, control protocol)',
    clauses: ['ERR-009'],
    governs: (op) =>
      CAPABILITY_OF[op.operationId] !== undefined
        ? true
        : op.operationId === 'startComputeRun'
          ? 'starts bulk work metered on top of its credit (STARTS_WORK): not sent to a target that may ignore a switch'
          : 'the document does not say which capability it needs (catalog operations: the live catalog; context areas, traces, decision inputs, polling)',
  },
  {
    id: 'paging',
    title: 'Collections: envelope, limits, cursors, filters before the limit (2.3, part 8)',
    clauses: [...range('PAGE', 1, 13), ...range('ENV', 1, 3)],
    clauseGoverns: {
      ...Object.fromEntries([...range('PAGE', 1, 12), 'ENV-001'].map((c) => [c, ['listDefinitions']])),
      'ENV-002': ['listOperations'],
      'ENV-003': ['listRelationships'],
      'PAGE-013': ['listOperations', 'listRelationships', 'listIcps'],
    },
    governs: (op, spec) => (answersCollection(op, spec) ? true : 'does not answer a collection'),
  },
];

const SWEEP_LEFT_OUT =
  'starts bulk work metered on top of its credit, so the sweeps a conformant target may let through (a rate limit, a switch it need not apply there) leave it out (STARTS_WORK); its refusals are priced by the 403 of the refusal sweep';
const NOTHING_TO_REFUSE = "nothing but the key, the rate limit or a capability switch can refuse it (no scope, path id or body shown): those refusals are the 401, 429 and 5xx columns'";

/** Governed cells no check judges, with the reason: `<column> <operationId>`. */
export const GAPS: Readonly<Record<string, string>> = {
  'refusals getMe': NOTHING_TO_REFUSE,
  'refusals getCapabilities': NOTHING_TO_REFUSE,
  'refusals listOperations': NOTHING_TO_REFUSE,
  'refusals listIcps': NOTHING_TO_REFUSE,
  'refusals listRelationships': NOTHING_TO_REFUSE,
  'rate-limited startComputeRun': SWEEP_LEFT_OUT,
  'unavailable startComputeRun': SWEEP_LEFT_OUT,
  'headers startComputeRun':
    'starts bulk work metered on top of its credit, so it is not sent twice to compare the header forms (STARTS_WORK); a dead key is refused on it in both forms (the standing column)',
  'access startComputeRun':
    'SCOPE-012: a compute run a refused call started anyway would show only through its id, which a refusal does not give, or through what it changes, which the document does not show (4.9); ROLE-005: starts bulk work metered on top of its credit (STARTS_WORK), so the role change is judged on POST /compute/preview, gated by the same row of the permission table',
  'paging listIcps': 'the path is guessed (x-wgc-guessed): no clause names its envelope, and a target may serve ICPs elsewhere',
};

/** The endpoints `check` declares for `clause`, or undefined. */
export function endpointsFor(check: CheckDef, clause: string): Endpoints | undefined {
  const e = check.endpoints;
  if (e === undefined || !check.clauses.includes(clause)) return undefined;
  if (e === 'every' || Array.isArray(e) || 'except' in e) return e as Endpoints;
  return (e as Readonly<Record<string, Endpoints>>)[clause];
}

/** Whether `e` names `operationId`. */
export function covers(e: Endpoints | undefined, operationId: string): boolean {
  if (e === undefined) return false;
  if (e === 'every') return true;
  if ('except' in e) return !e.except.includes(operationId);
  return (e as readonly string[]).includes(operationId);
}

/** The checks judging `clause` on `operationId`. */
function judging(checks: readonly CheckDef[], clause: string, operationId: string): string[] {
  return checks
    .filter((c) => {
      return covers(endpointsFor(c, clause), operationId);
    })
    .map((c) => c.id);
}

/** One cell: governed or not, and by which checks (or why not). */
export interface RuleCell {
  column: string;
  operationId: string;
  governed: boolean;
  checks: string[];
  /** Not governed: why; governed and not covered: the GAPS reason (undefined when none is given). */
  reason?: string;
  /** Governed, clauses that govern the endpoint no check judges here. */
  missing: string[];
  /** Governed: each clause that governs the endpoint and the checks judging it there. */
  perClause: { clause: string; checks: string[] }[];
}

/** The clauses of `col` that govern `op` (the rule governs it): each must be judged there. */
export function clausesGoverning(col: RuleColumn, op: OperationInfo): string[] {
  return col.clauses.filter((c) => {
    const g = col.clauseGoverns?.[c];
    return g === undefined || (typeof g === 'function' ? g(op) : g !== 'unobservable' && g.includes(op.operationId));
  });
}

/** Every cell of the table. */
export function ruleCells(spec: LoadedSpec, suites: readonly SuiteDef[]): RuleCell[] {
  const checks = suites.flatMap((s) => s.checks);
  const out: RuleCell[] = [];
  for (const col of RULE_COLUMNS) {
    for (const op of spec.operations) {
      const governs = col.governs(op, spec);
      if (governs !== true) {
        out.push({ column: col.id, operationId: op.operationId, governed: false, checks: [], reason: governs, missing: [], perClause: [] });
        continue;
      }
      const per = clausesGoverning(col, op).map((clause) => ({ clause, checks: judging(checks, clause, op.operationId) }));
      const found = [...new Set(per.flatMap((p) => p.checks))];
      const missing = per.filter((p) => p.checks.length === 0).map((p) => p.clause);
      const reason = GAPS[`${col.id} ${op.operationId}`];
      out.push({ column: col.id, operationId: op.operationId, governed: true, checks: found, missing, perClause: per, ...(reason ? { reason } : {}) });
    }
  }
  return out;
}

/** Governed cells left open without a reason, as "<column> <operationId>: missing …". */
export function unexplainedGaps(cells: readonly RuleCell[]): string[] {
  return cells.filter((c) => c.governed && c.missing.length > 0 && !c.reason).map((c) => `${c.column} ${c.operationId}: no check judges ${c.missing.join(', ')}`);
}

/** The Markdown section: a matrix, then per rule the checks of each cell. */
export function renderRuleCells(spec: LoadedSpec, suites: readonly SuiteDef[]): string {
  const cells = ruleCells(spec, suites);
  const open = unexplainedGaps(cells);
  if (open.length > 0) throw new Error(`docs/coverage.md: governed cells no check judges, with no reason in src/docs/rule-cells.ts GAPS:\n  ${open.join('\n  ')}`);
  const at = (col: string, op: string) => cells.find((c) => c.column === col && c.operationId === op)!;
  const mark = (c: RuleCell): string => (!c.governed ? '·' : c.missing.length === 0 ? `✓ ${c.checks.length}` : c.checks.length > 0 ? `part (${c.checks.length})` : 'gap');
  const out: string[] = ['# Coverage of the rules, endpoint by endpoint', ''];
  out.push(
    'Every rule of the document that governs endpoints one by one, against every endpoint of `specs/openapi.yaml`. ✓ n: judged there by n checks, each clause of the rule that governs the endpoint by at least one (the sections below name the check for each clause); part: some of those clauses only; gap: none, for the reason given below; ·: the rule does not govern the endpoint. A check names the endpoints it judges (`endpoints` of its definition), and `test/reference/credit-plan.test.ts` holds every name to a request the check sends. `wgc selftest --family rule-cells` forgets each rule on each endpoint in the reference, one at a time, and shows the suite notices (docs/self-test.md).',
    '',
  );
  out.push(
    table(
      ['Endpoint', ...RULE_COLUMNS.map((c) => code(c.id))],
      spec.operations.map((op) => [`${code(op.operationId)}`, ...RULE_COLUMNS.map((c) => mark(at(c.id, op.operationId)))]),
    ),
    '',
  );
  for (const col of RULE_COLUMNS) {
    const unobservable = col.clauses.filter((c) => col.clauseGoverns?.[c] === 'unobservable');
    out.push(
      `## ${code(col.id)}: ${cell(col.title)}`,
      '',
      `Clauses: ${col.clauses.join(', ')}. Each clause is judged on every endpoint it governs${col.clauseGoverns ? ' (a clause that names endpoints governs those only)' : ''}; one line per clause and endpoint.${unobservable.length > 0 ? ` Not observable by any client (docs/clauses.md says why): ${unobservable.join(', ')}.` : ''}`,
      '',
    );
    const rows = spec.operations.flatMap((op) => {
      const c = at(col.id, op.operationId);
      const where = `${code(op.method)} ${code(op.path)}`;
      if (!c.governed) return [[where, '–', `not governed: ${cell(c.reason ?? '')}`]];
      return c.perClause.map((p) => [where, p.clause, p.checks.length > 0 ? p.checks.map(code).join(', ') : `gap: ${cell(c.reason ?? '')}`]);
    });
    out.push(table(['Endpoint', 'Clause', 'Checks'], rows), '');
  }
  out.push(renderOperationCells(checksById(suites)));
  out.push(renderLinkedCells(checksById(suites)));
  return out.join('\n');
}

const checksById = (suites: readonly SuiteDef[]): Map<string, CheckDef> => new Map(suites.flatMap((s) => s.checks).map((c) => [c.id, c]));

/**
 * The collections reached only through a stored record's relatedData links (seed 4.9), rows the
 * endpoint table cannot have: their paths are read from the links at run time. On the reference
 * they are an account's contacts, evidence and deals and a person's accounts, evidence and deals.
 * Each cell: the checks that judge the rule on every linked collection a run finds, or why not.
 */
interface LinkedCell {
  column: string;
  clauses: readonly string[];
  checks: readonly string[];
  /** Without checks: why the rule is not judged on linked collections; with them: what limits the observation. */
  note?: string;
}

const LINKED_CELLS: readonly LinkedCell[] = [
  { column: 'key', clauses: ['AUTH-004'], checks: ['operations/related-collections'], note: 'a missing key; unknown and malformed keys are sent to the endpoints of the table only' },
  { column: 'envelope', clauses: ['ENV-004'], checks: ['operations/related-collections'] },
  {
    column: 'paging',
    clauses: ['PAGE-013'],
    checks: ['operations/related-collections'],
    note: "a collection of one item or none (on the reference: evidence, deals, a person's accounts) pages nothing; the account's contacts hold the check's three people",
  },
  { column: 'price', clauses: ['BILL-001'], checks: ['billing/billed-calls-cost-one'], note: 'each collection the account and person reads link to, up to six, read once and priced' },
  {
    column: 'isolation',
    clauses: ['AUTH-012'],
    checks: ['auth/foreign-ids-refused'],
    note: "the collections another workspace's account and person link to, where their own key sees at least one item (on the reference: contacts and a person's accounts; evidence and deals are empty there)",
  },
  {
    column: 'capability',
    clauses: ['ERR-009'],
    checks: [],
    note: 'the document does not say which capability switch a linked collection needs (evidence and deals may be context areas, not graph reads)',
  },
  {
    column: 'standing, headers, refusals, unauthorized, rate-limited, unavailable',
    clauses: [],
    checks: [],
    note: 'not judged on linked collections: the sweeps of these rules send the endpoints of specs/openapi.yaml, and the links are known only at run time (open work, issue 27)',
  },
];

function renderLinkedCells(checks: ReadonlyMap<string, CheckDef>): string {
  for (const c of LINKED_CELLS) {
    for (const id of c.checks) {
      const check = checks.get(id);
      if (!check) throw new Error(`src/docs/rule-cells.ts LINKED_CELLS names ${id}, which no suite defines`);
      const missing = c.clauses.filter((k) => !check.clauses.includes(k));
      if (missing.length > 0) throw new Error(`src/docs/rule-cells.ts LINKED_CELLS: ${id} does not name ${missing.join(', ')}`);
    }
  }
  const rows = LINKED_CELLS.map((c) => [code(c.column), c.clauses.join(', ') || '–', c.checks.length > 0 ? c.checks.map(code).join(', ') : 'not judged', cell(c.note ?? '')]);
  return [
    '## Collections reached through relatedData links',
    '',
    "Rows the endpoint table cannot hold: a stored account's or person's relatedData links to paginated collections (seed 4.9) whose paths the document does not show, so the checks follow the links a run finds (suites/_shared/linked.ts). `wgc selftest --family rule-cells` forgets the price on each of the reference's six linked collections, the workspace check on the two that hold items there, and the cursor on the account's contacts.",
    '',
    table(['Rule', 'Clauses', 'Checks', 'Note'], rows),
    '',
  ].join('\n');
}

/**
 * The catalog operations of 4.8 and 4.9, rows of their own: the endpoint table's
 * POST /operations and POST /query serve several, and a rule may be forgotten on one. Per
 * operation, each rule the document applies to it and the check that judges it for that
 * operation (a check named here sends that operation), or why none does.
 */
interface OperationCell {
  operation: string;
  rule: string;
  clauses: readonly string[];
  checks: readonly string[];
  note?: string;
}

const NOT_SHOWN_ACCESS = 'the permission is "not shown" (4.8): nothing to hold a refusal to';
const OPERATION_CELLS: readonly OperationCell[] = [
  { operation: 'graph.apply_update', rule: 'access', clauses: ['SCOPE-011', 'SCOPE-012'], checks: ['scopes/apply-update'] },
  { operation: 'graph.apply_update', rule: 'access (labels)', clauses: ['ROLE-006'], checks: ['roles/label-change-needs-admin-and-role'] },
  { operation: 'graph.apply_update', rule: 'price', clauses: ['BILL-001'], checks: ['billing/billed-calls-cost-one'] },
  {
    operation: 'graph.apply_update',
    rule: 'results',
    clauses: ['OPS-006', 'OPS-007', 'OPS-016'],
    checks: ['operations/apply-update-accepted', 'operations/account-fields-gap-fill', 'operations/canonical-person-id-not-applied'],
  },
  { operation: 'graph.apply_update', rule: 'listed', clauses: ['OPS-003'], checks: ['operations/accepted-operations-listed'] },
  { operation: 'graph.propose_update', rule: 'access', clauses: [], checks: [], note: NOT_SHOWN_ACCESS },
  { operation: 'graph.propose_update', rule: 'price', clauses: ['BILL-001'], checks: ['billing/billed-calls-cost-one'] },
  { operation: 'graph.propose_update', rule: 'listed', clauses: ['OPS-003'], checks: ['operations/accepted-operations-listed'] },
  {
    operation: 'graph.agent_preview',
    rule: 'access',
    clauses: ['SCOPE-007', 'SCOPE-010', 'SCOPE-012', 'ROLE-003', 'ROLE-004', 'ROLE-005'],
    checks: ['scopes/agent-preview', 'roles/agent-preview-by-role', 'roles/agent-refused-for-member', 'roles/role-change-agent'],
  },
  {
    operation: 'graph.agent_preview',
    rule: 'price',
    clauses: ['BILL-011'],
    checks: ['billing/preview-fee'],
    note: "the call's credit and the quoted preview fee: which of the two a ledger shows as which is the target's layout",
  },
  { operation: 'graph.agent_preview', rule: 'results', clauses: ['OPS-004', 'OPS-005'], checks: ['operations/preview-quotes', 'operations/oversized-preview-not-quoted'] },
  { operation: 'graph.agent_preview', rule: 'listed', clauses: ['OPS-003'], checks: ['operations/accepted-operations-listed'] },
  { operation: 'graph.agent_run', rule: 'access', clauses: ['SCOPE-008', 'SCOPE-010', 'SCOPE-012', 'ROLE-004'], checks: ['scopes/agent-run', 'roles/agent-refused-for-member'] },
  {
    operation: 'graph.agent_run',
    rule: 'price',
    clauses: [],
    checks: [],
    note: 'a run incurs its submission fee and model credits on top of the call (8 billing 3-4), neither of them shown: no exact price to hold it to',
  },
  { operation: 'graph.agent_run', rule: 'listed', clauses: ['OPS-003'], checks: ['operations/accepted-operations-listed'] },
  { operation: 'graph.context_refresh', rule: 'access', clauses: [], checks: [], note: NOT_SHOWN_ACCESS },
  {
    operation: 'graph.context_refresh',
    rule: 'price',
    clauses: ['BILL-001'],
    checks: ['billing/billed-calls-cost-one'],
    note: 'at least one credit: a refresh may research, metered on top (8 billing 3)',
  },
  { operation: 'graph.context_refresh', rule: 'listed', clauses: ['OPS-003'], checks: ['operations/accepted-operations-listed'] },
  ...QUERY_OPERATIONS.flatMap((operation): OperationCell[] => [
    { operation, rule: 'access', clauses: ['SCOPE-006'], checks: ['scopes/query'] },
    { operation, rule: 'price', clauses: ['BILL-001'], checks: ['billing/billed-calls-cost-one'], note: 'at least one credit: a live read may be metered on top (8 billing 3)' },
  ]),
  { operation: 'CRM mutations', rule: 'access', clauses: ['SCOPE-013'], checks: [], note: 'not observable: their names and shapes are not shown (4.9)' },
];

function renderOperationCells(checks: ReadonlyMap<string, CheckDef>): string {
  for (const c of OPERATION_CELLS) {
    if (c.checks.length === 0 && !c.note) throw new Error(`src/docs/rule-cells.ts OPERATION_CELLS: ${c.operation} ${c.rule} has neither a check nor a reason`);
    for (const id of c.checks) {
      const check = checks.get(id);
      if (!check) throw new Error(`src/docs/rule-cells.ts OPERATION_CELLS names ${id}, which no suite defines`);
      if (!c.clauses.some((k) => check.clauses.includes(k))) throw new Error(`src/docs/rule-cells.ts OPERATION_CELLS: ${id} names none of ${c.clauses.join(', ')}`);
    }
  }
  const rows = OPERATION_CELLS.map((c) => [code(c.operation), cell(c.rule), c.clauses.join(', ') || '–', c.checks.length > 0 ? c.checks.map(code).join(', ') : 'not judged', cell(c.note ?? '')]);
  return [
    '## Catalog operations (4.8, 4.9)',
    '',
    'Rows the endpoint table cannot hold: POST /operations and POST /query each serve several operations, and a rule can be forgotten on one of them. Each check named here sends that operation itself. `wgc selftest --family rule-cells` forgets the price of each operation priced here and the scope check of each operation whose permission the document shows, one at a time.',
    '',
    table(['Operation', 'Rule', 'Clauses', 'Checks', 'Note'], rows),
    '',
  ].join('\n');
}
