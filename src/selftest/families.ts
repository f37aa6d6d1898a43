/**
 * Fault families generated from the API document, not listed by hand (the hand-written faults
 * of src/reference/faults.ts are the "named" family):
 *
 * - bounds: for every length, item-count and number bound of every request field of the four
 *   definition writes in specs/openapi.yaml (body fields, the decision trace and its
 *   sub-objects, enum value objects), of the limit of GET /definitions, and of the
 *   Idempotency-Key on each of the five endpoints of 4.1, two faults on that operation only: `tighten` (the last valid
 *   value refused) and `loosen` (the first invalid value accepted), each switched at one place
 *   in the reference (faults.ts BOUND_FAULT_RE, validate.ts BoundShift). Each declares the one
 *   clause the bound belongs to on that write (suites/definitions/violation-map.ts clauseOf).
 *
 * - shapes: for every field of the Definition (components/schemas/Definition) in each answer
 *   that returns one (create, update, archive, and the items of a listing): the field left out
 *   (DEF-001), and the field given a JSON type its schema does not allow (DEF-002).
 * - patch-semantics: for every field of the Definition, a PATCH that does not name it changes
 *   it anyway (for enum_values: archives a value archiveEnumValueSlugs does not name) (DEF-028).
 *   Fields no client can change through the API (id, workspace_id, slug, state, the estimates,
 *   created_by, reason, updated_at, archived_at) are moved on their own by a conformant server
 *   or by the PATCH itself, and are left out.
 *
 * - rule-cells: for every endpoint of specs/openapi.yaml, each rule that governs it forgotten on
 *   that endpoint alone (the reference's route, named by its ledger surface; faults.ts
 *   CELL_FAULT_RE): a revoked key, a disabled key, a departed member's key and a paused
 *   workspace's key let through (AUTH-007..010); the scope check skipped where the endpoint
 *   requires scopes (its SCOPE clause); its refusals other than 401 charged (BILL-008 for the
 *   429 every endpoint can be given, BILL-009 where a capability switch gives 503, BILL-006
 *   where a scope, an id or a body can be refused); its 401s charged (BILL-007); and on the five
 *   endpoints of 4.1, replays run again (IDEM-002, IDEM-003), another input under a used key run
 *   as new (IDEM-004), the key not validated (IDEM-005, IDEM-006), replays charged (BILL-010);
 *   and where a request names a record by id, records looked up in whichever workspace holds
 *   the id (AUTH-012; AUTH-014 for a trail, which may be answered empty).
 *
 * A fault no client can observe is listed with the reason (`unobservable`) and not run.
 */
import { SEQUENCE_FAULTS, type FaultDef } from '../reference/faults.ts';
import { QUERY_OPERATIONS } from '../reference/fields.ts';
import { ROUTES } from '../reference/router.ts';
import { loadSpec } from '../spec/load.ts';
import type { JsonSchema } from '../spec/types.ts';
import { clauseOf, WRITES, type Write } from '../../suites/definitions/violation-map.ts';
import { VALID_ELSEWHERE } from '../../suites/definitions/edges.ts';
import { STARTS_WORK } from '../../suites/_shared/every-endpoint.ts';
import { CAPABILITY_OF } from '../../suites/errors/capability.ts';

export const FAMILIES = ['named', 'bounds', 'shapes', 'patch-semantics', 'rule-cells', 'sequences'] as const;
export type Family = (typeof FAMILIES)[number];

/** A generated fault: a FaultDef of its family (with why it is not run where no client can observe it). */
export interface GeneratedFault extends FaultDef {
  family: Exclude<Family, 'named'>;
}

/** The reference's surface suffix of each write (api:definitions.<suffix>). */
const SURFACE: Readonly<Record<Write, string>> = { create: 'create', update: 'update', archive: 'archive', merge: 'merge_value' };

const BOUNDS: readonly { keyword: string; bound: 'min' | 'max'; applies: (s: JsonSchema) => boolean }[] = [
  { keyword: 'maxLength', bound: 'max', applies: (s) => s.maxLength !== undefined },
  { keyword: 'minLength', bound: 'min', applies: (s) => (s.minLength ?? 0) > 0 },
  { keyword: 'maxItems', bound: 'max', applies: (s) => s.maxItems !== undefined },
  { keyword: 'minItems', bound: 'min', applies: (s) => (s.minItems ?? 0) > 0 },
  { keyword: 'maximum', bound: 'max', applies: (s) => s.maximum !== undefined },
  { keyword: 'minimum', bound: 'min', applies: (s) => s.minimum !== undefined },
  { keyword: 'exclusiveMinimum', bound: 'min', applies: (s) => s.exclusiveMinimum !== undefined },
  { keyword: 'exclusiveMaximum', bound: 'max', applies: (s) => s.exclusiveMaximum !== undefined },
];

interface BoundSite {
  /** JSON pointer, items at /0 (as the suite's edges sit). */
  pointer: string;
  /** The reference's issue path, items as [] ("body.decision_trace.factors[].criterion"). */
  path: string;
  keyword: string;
  bound: 'min' | 'max';
}

/** Every length, count and number bound of `schema`, outermost first. */
function boundSites(schema: JsonSchema, pointer = '', path = 'body'): BoundSite[] {
  const out: BoundSite[] = [];
  // The length of a patterned or formatted string is its pattern's (the reference checks the pattern).
  const textLike = schema.pattern !== undefined || schema.format !== undefined;
  for (const b of BOUNDS) if (b.applies(schema) && !(textLike && b.keyword.endsWith('Length'))) out.push({ pointer, path, keyword: b.keyword, bound: b.bound });
  for (const [name, child] of Object.entries(schema.properties ?? {})) out.push(...boundSites(child, `${pointer}/${name}`, `${path}.${name}`));
  if (schema.items) out.push(...boundSites(schema.items, `${pointer}/0`, `${path}[]`));
  return out;
}

/**
 * Why a bound fault cannot be seen by any client, or undefined. Tightening a bound is seen
 * through its last valid value, which the suite does not send where a server may refuse it for
 * another reason (VALID_ELSEWHERE: slugs naming no value, made-up definition references).
 * Loosening a slug's bounds is not seen either where the server refuses a slug that names no
 * value: the first invalid slug is refused all the same.
 */
function unobservable(write: Write, site: BoundSite, how: 'tighten' | 'loosen'): string | undefined {
  const elsewhere = VALID_ELSEWHERE[write].find((p) => site.pointer === p || site.pointer.startsWith(`${p}/`));
  if (!elsewhere) return undefined;
  if (how === 'tighten') return `the last valid value of ${site.pointer} is not sent: a server may refuse it for another reason (${elsewhere} must name what the server issued)`;
  const slug = ['/archiveEnumValueSlugs/0', '/fromSlug', '/intoSlug'].includes(elsewhere);
  return slug ? `a slug one past its bound names no enum value, which a server may refuse for that reason alone (DEF-019's reading), so accepting the bound cannot be told apart` : undefined;
}

/** The bounds family, generated from specs/openapi.yaml. */
export async function boundsFamily(): Promise<GeneratedFault[]> {
  const spec = await loadSpec();
  const out: GeneratedFault[] = [];
  for (const write of Object.keys(WRITES) as Write[]) {
    const schema = spec.operation(WRITES[write].operationId).requestBodySchema;
    if (!schema) throw new Error(`specs/openapi.yaml: ${WRITES[write].operationId} has no request body`);
    for (const site of boundSites(schema)) {
      const clause = clauseOf(write, { path: site.pointer, keyword: site.keyword, scenario: `${site.path} ${site.keyword}` });
      for (const how of ['tighten', 'loosen'] as const) {
        const why = unobservable(write, site, how);
        out.push({
          name: `bound:${SURFACE[write]}:${site.path}:${site.bound}:${how}`,
          family: 'bounds',
          clauses: [clause],
          description: `${write}: ${site.path} ${site.keyword} ${how === 'tighten' ? 'one short (the last valid value refused)' : 'one past (the first invalid value accepted)'}`,
          ...(why ? { unobservable: why } : {}),
        });
      }
    }
  }
  return [...out, ...(await parameterBounds())];
}

/** The five endpoints of 4.1 by the bounds faults' operation names. */
const KEYED: Readonly<Record<string, string>> = {
  create: 'createDefinition',
  update: 'updateDefinition',
  archive: 'archiveDefinition',
  merge_value: 'mergeDefinitionValue',
  operations: 'submitOperation',
};

/**
 * The bounds of request parameters: `limit` of GET /definitions (PAGE-002 when its last valid
 * value is refused, PAGE-003 when its first invalid one is accepted), and the Idempotency-Key
 * header's length on each of the five endpoints of 4.1 (IDEM-007, IDEM-005). Read from the
 * parameters' schemas in specs/openapi.yaml.
 */
async function parameterBounds(): Promise<GeneratedFault[]> {
  const spec = await loadSpec();
  const out: GeneratedFault[] = [];
  const limit = spec.operation('listDefinitions').parameters.find((p) => p.in === 'query' && p.name === 'limit')?.schema;
  if (limit?.minimum === undefined || limit.maximum === undefined) throw new Error('specs/openapi.yaml: the limit of listDefinitions has no minimum and maximum');
  for (const bound of ['min', 'max'] as const) {
    for (const how of ['tighten', 'loosen'] as const) {
      out.push({
        name: `bound:list:query.limit:${bound}:${how}`,
        family: 'bounds',
        clauses: [how === 'tighten' ? 'PAGE-002' : 'PAGE-003'],
        description: `GET /definitions: limit ${bound === 'min' ? 'minimum' : 'maximum'} ${how === 'tighten' ? 'one short (the last valid value refused)' : 'one past (the first invalid value accepted)'}`,
      });
    }
  }
  for (const [op, operationId] of Object.entries(KEYED)) {
    const header = spec.operation(operationId).parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')?.schema;
    if (header?.minLength === undefined || header.maxLength === undefined) throw new Error(`specs/openapi.yaml: the Idempotency-Key of ${operationId} has no length bounds`);
    for (const bound of ['min', 'max'] as const) {
      for (const how of ['tighten', 'loosen'] as const) {
        const name = `bound:${op}:header.idempotency-key:${bound}:${how}`;
        const what = `${operationId}: Idempotency-Key length ${bound === 'min' ? 'minimum' : 'maximum'} ${how === 'tighten' ? 'one short (the last valid value refused)' : 'one past (the first invalid value accepted)'}`;
        // An empty key may be read as no key at all (IDEM-005's recorded reading): accepting it is conformant.
        const unobservable = bound === 'min' && how === 'loosen' ? "an empty Idempotency-Key may be read as no key (IDEM-005's accepted reading), so accepting one is conformant" : undefined;
        out.push({ name, family: 'bounds', clauses: [how === 'tighten' ? 'IDEM-007' : 'IDEM-005'], description: what, ...(unobservable ? { unobservable } : {}) });
      }
    }
  }
  return out;
}

/** The JSON types a schema allows (enum and const values' types included). */
function typesAllowed(schema: JsonSchema): Set<string> {
  const out = new Set<string>();
  for (const t of Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []) out.add(t === 'integer' ? 'number' : t);
  for (const v of schema.enum ?? []) out.add(v === null ? 'null' : typeof v);
  return out;
}

/** The answers that return a Definition (the reference's DefinitionAnswer). */
const ANSWERS = ['create', 'update', 'archive', 'list'] as const;

/** The shapes family, generated from components/schemas/Definition. */
export async function shapesFamily(): Promise<GeneratedFault[]> {
  const spec = await loadSpec();
  const definition = spec.componentSchema('Definition');
  const out: GeneratedFault[] = [];
  for (const answer of ANSWERS) {
    for (const [field, schema] of Object.entries(definition.properties ?? {})) {
      const allowed = typesAllowed(schema);
      const mistype = !allowed.has('string') ? 'as-string' : !allowed.has('number') ? 'as-number' : 'as-object';
      const where = answer === 'list' ? 'each listed Definition' : `the ${answer} answer`;
      out.push({ name: `shape:${answer}:${field}:drop`, family: 'shapes', clauses: ['DEF-001'], description: `${where} leaves out ${field}` });
      out.push({ name: `shape:${answer}:${field}:${mistype}`, family: 'shapes', clauses: ['DEF-002'], description: `${where} gives ${field} ${mistype.replace('as-', 'as a ')}` });
    }
    // 2.2's output fields of every enum value object (DEF-005: label, slug and the archived flag).
    for (const [field, mistype] of [
      ['label', 'as-number'],
      ['slug', 'as-number'],
      ['archived', 'as-string'],
    ] as const) {
      const where = answer === 'list' ? 'each listed Definition' : `the ${answer} answer`;
      out.push({ name: `shape:${answer}:enum_values.${field}:drop`, family: 'shapes', clauses: ['DEF-005'], description: `${where} leaves ${field} out of every enum value` });
      out.push({
        name: `shape:${answer}:enum_values.${field}:${mistype}`,
        family: 'shapes',
        clauses: ['DEF-005'],
        description: `${where} gives every enum value's ${field} ${mistype.replace('as-', 'as a ')}`,
      });
    }
  }
  return out;
}

/** Definition fields a conformant server or the PATCH itself may move (see the module comment). */
const MOVE_ANYWAY = new Set(['id', 'workspace_id', 'slug', 'state', 'est_credits_low', 'est_credits_high', 'last_run_credits', 'created_by', 'reason', 'updated_at', 'archived_at']);

/** The patch-semantics family, generated from components/schemas/Definition. */
export async function patchSemanticsFamily(): Promise<GeneratedFault[]> {
  const spec = await loadSpec();
  return Object.keys(spec.componentSchema('Definition').properties ?? {})
    .filter((field) => !MOVE_ANYWAY.has(field))
    .map((field) => ({ name: `untouched:${field}`, family: 'patch-semantics' as const, clauses: ['DEF-028'], description: `a PATCH that does not name ${field} changes it` }));
}

/** The SCOPE clause of each endpoint whose route checks scopes (seed part 5's capability table, 4.9). */
const SCOPE_CLAUSE: Readonly<Record<string, string>> = {
  listDefinitions: 'SCOPE-001',
  createDefinition: 'SCOPE-002',
  updateDefinition: 'SCOPE-003',
  archiveDefinition: 'SCOPE-004',
  mergeDefinitionValue: 'SCOPE-005',
  runQuery: 'SCOPE-006',
  previewCompute: 'SCOPE-009',
  startComputeRun: 'SCOPE-009',
};

/**
 * What a replay that runs again breaks, where not both IDEM-002 (the original answer) and
 * IDEM-003 (nothing performed again): archiving an archived definition again is refused, so
 * nothing is performed but the answer differs; merging the same values again answers the same
 * merge result, so only its effect shows.
 */
const REPLAY_CLAUSES: Readonly<Record<string, string[]>> = {
  archiveDefinition: ['IDEM-002'],
  mergeDefinitionValue: ['IDEM-003'],
};

/** The clause that prices each free endpoint of part 8 rule 2. */
const FREE_CLAUSE: Readonly<Record<string, string>> = { getMe: 'BILL-002', getCapabilities: 'BILL-003', listOperations: 'BILL-004', getOperation: 'BILL-004', getComputeRun: 'BILL-005' };

/** The clause a forgotten cursor breaks on each collection of specs/openapi.yaml that a check walks one item a page. */
const PAGING_CLAUSE: Readonly<Record<string, string>> = { listDefinitions: 'PAGE-006', listOperations: 'PAGE-013', listRelationships: 'PAGE-013' };

/** "/definitions/{}" for both "/definitions/{definitionId}" and "/definitions/:id". */
const pathShape = (p: string): string => p.replace(/\{[^}]+\}|:[^/]+/g, '{}');

/** The rule-cells family: each rule forgotten on one endpoint (see the module comment). */
export async function ruleCellsFamily(): Promise<GeneratedFault[]> {
  const spec = await loadSpec();
  const out: GeneratedFault[] = [];
  for (const op of spec.operations) {
    const route = ROUTES.find((r) => r.method === op.method && pathShape(r.pattern) === pathShape(op.path));
    if (!route) throw new Error(`the reference has no route for ${op.method} ${op.path} (${op.operationId})`);
    const at = `${op.method} ${op.path}`;
    const cell = (rule: string, clauses: string[], description: string): GeneratedFault => ({
      name: `forgets:${rule}@${route.surface}`,
      family: 'rule-cells',
      clauses,
      description: `${at}: ${description}`,
    });
    out.push(cell('x-api-key', ['AUTH-002'], 'the X-Api-Key header form is not read (a key sent that way is missing)'));
    out.push(cell('revoked', ['AUTH-007'], 'a revoked key is let through'));
    out.push(cell('disabled', ['AUTH-008'], 'a disabled key is let through'));
    out.push(cell('departed', ['AUTH-009'], "a departed member's key is let through"));
    out.push(cell('paused', ['AUTH-010'], "a paused workspace's key is let through"));
    // Only where the document requires scopes (the reference also checks graph:read where the
    // document shows none, /data and /graph: skipping that breaks no clause).
    if (route.scopes && op.access.scopes?.length) {
      const clause = SCOPE_CLAUSE[op.operationId];
      if (!clause) throw new Error(`specs/openapi.yaml requires scopes on ${op.operationId} but families.ts SCOPE_CLAUSE names no clause for it`);
      out.push(cell('scopes', [clause], 'the scope check is skipped'));
    }
    out.push(cell('free-unauthorized', ['BILL-007'], 'a call rejected with 401 is charged'));
    // Part 8 rules 1-2: a billed route's 2xx costs one credit, a free route's nothing.
    const free = FREE_CLAUSE[op.operationId];
    if (!route.billable && !free) throw new Error(`the reference serves ${op.operationId} free but families.ts FREE_CLAUSE names no clause for it`);
    out.push(cell('price', [route.billable ? 'BILL-001' : free!], route.billable ? 'its 2xx answers are not charged' : 'its 2xx answers are charged one credit'));
    const refusable = Boolean(op.access.scopes?.length) || op.path.includes('{') || route.body === true;
    // The 429 and 503 sweeps leave out endpoints that start bulk work (STARTS_WORK).
    const swept = !STARTS_WORK.includes(op.operationId);
    const clauses = [...(swept ? ['BILL-008'] : []), ...(swept && route.capability ? ['BILL-009'] : []), ...(refusable ? ['BILL-006'] : [])];
    out.push(cell('free-refusals', clauses, 'its refusals other than 401 are charged'));
    // Isolation where a request names a record by id: in its path, in its query (a trail), or
    // among its arguments (an edit through POST /operations).
    const isolationClause = op.path.includes('{') || ['submitOperation', 'prepareDecisionInputs'].includes(op.operationId) ? 'AUTH-012' : op.operationId === 'readTraces' ? 'AUTH-014' : undefined;
    if (isolationClause) out.push(cell('isolation', [isolationClause], 'records are looked up in whichever workspace holds the id it names'));
    // Part 8's continuation on a collection (a walk with limit=1 pages its items).
    const paging = PAGING_CLAUSE[op.operationId];
    if (paging) out.push(cell('paging', [paging], 'the cursor is ignored: every page starts at the first item'));
    // A capability switch the document names for the endpoint (suites/errors/capability.ts).
    if (route.capability && CAPABILITY_OF[op.operationId]) out.push(cell('capability', ['ERR-009'], `the ${route.capability} capability switch is not applied`));
    if (op.idempotent) {
      out.push(cell('replay', REPLAY_CLAUSES[op.operationId] ?? ['IDEM-002', 'IDEM-003'], 'a repeated request with the same Idempotency-Key and input runs again'));
      out.push(cell('conflict', ['IDEM-004'], 'an Idempotency-Key reused with another input runs as a new request'));
      out.push(cell('key-bounds', ['IDEM-005', 'IDEM-006'], 'the Idempotency-Key is not validated'));
      out.push(cell('free-replay', ['BILL-010'], 'a replay is charged'));
    }
  }
  // The catalog operations (4.8, 4.9) as rows of their own: a rule forgotten on one operation
  // of an endpoint that serves several. The price of each submission the suite can send without
  // an agent's fees, and of each live CRM read; the scope check of each operation whose
  // permission the document shows.
  for (const operation of ['graph.apply_update', 'graph.propose_update', 'graph.context_refresh']) {
    out.push({
      name: `forgets:price@api:operations.${operation}`,
      family: 'rule-cells',
      clauses: ['BILL-001'],
      description: `POST /operations ${operation}: its accepted submissions are not charged`,
    });
  }
  for (const operation of Object.keys(QUERY_OPERATIONS)) {
    out.push({ name: `forgets:price@api:query.${operation}`, family: 'rule-cells', clauses: ['BILL-001'], description: `POST /query ${operation}: its 2xx answers are not charged` });
  }
  for (const [operation, clauses] of Object.entries(OPERATION_SCOPE_CLAUSES)) {
    out.push({ name: `forgets:scopes@api:operations.${operation}`, family: 'rule-cells', clauses: [...clauses], description: `POST /operations ${operation}: the scope check is skipped` });
  }
  // The collections reached only through relatedData links: the account's contacts hold the
  // check's three people (its evidence and deals, and a person's collections, hold fewer than
  // two items on the reference, so a forgotten cursor shows nowhere there: LINKED_UNOBSERVABLE).
  out.push({
    name: 'forgets:paging@api:data.account_contacts',
    family: 'rule-cells',
    clauses: ['PAGE-013'],
    description: 'GET /data/accounts/{id}/contacts (linked from relatedData): the cursor is ignored: every page starts at the first item',
  });
  for (const [surface, path] of Object.entries(LINKED_PATHS)) {
    out.push({ name: `forgets:price@${surface}`, family: 'rule-cells', clauses: ['BILL-001'], description: `${path} (linked from relatedData): its 2xx answers are not charged` });
    if (LINKED_ISOLATION_UNOBSERVABLE[surface] === undefined) {
      out.push({
        name: `forgets:isolation@${surface}`,
        family: 'rule-cells',
        clauses: ['AUTH-012'],
        description: `${path} (linked from relatedData): records are looked up in whichever workspace holds the id it names`,
      });
    }
  }
  return out;
}

/** The catalog operations whose permission the document shows, and the clause of their scopes. */
const OPERATION_SCOPE_CLAUSES: Readonly<Record<string, readonly string[]>> = {
  // A refused call changes nothing (SCOPE-012): one let through changes what it was sent to.
  'graph.apply_update': ['SCOPE-011', 'SCOPE-012'],
  // The admin scope does not stand in for the agent scopes (SCOPE-010): an admin key gets through too.
  'graph.agent_preview': ['SCOPE-007', 'SCOPE-010', 'SCOPE-012'],
  'graph.agent_run': ['SCOPE-008', 'SCOPE-010', 'SCOPE-012'],
};

/** The collections the reference's stored account and person link to (relatedData), by surface. */
const LINKED_PATHS: Readonly<Record<string, string>> = {
  'api:data.account_contacts': 'GET /data/accounts/{id}/contacts',
  'api:data.account_evidence': 'GET /data/accounts/{id}/evidence',
  'api:data.account_deals': 'GET /data/accounts/{id}/deals',
  'api:data.person_accounts': 'GET /data/people/{id}/accounts',
  'api:data.person_evidence': 'GET /data/people/{id}/evidence',
  'api:data.person_deals': 'GET /data/people/{id}/deals',
};

/**
 * Linked collections where a forgotten workspace check shows nowhere on the reference, and why:
 * another workspace's collection that lists nothing leaks nothing.
 */
export const LINKED_ISOLATION_UNOBSERVABLE: Readonly<Record<string, string>> = {
  'api:data.account_evidence': 'empty on the reference: the other workspace has nothing there to leak',
  'api:data.account_deals': 'empty on the reference: the other workspace has nothing there to leak',
  'api:data.person_evidence': 'empty on the reference: the other workspace has nothing there to leak',
  'api:data.person_deals': 'empty on the reference: the other workspace has nothing there to leak',
};

/** Linked collections whose forgotten cursor no check can see on the reference, and why. */
export const LINKED_UNOBSERVABLE: Readonly<Record<string, string>> = {
  'api:data.account_evidence': 'empty on the reference: nothing to page',
  'api:data.account_deals': 'empty on the reference: nothing to page',
  'api:data.person_evidence': 'empty on the reference: nothing to page',
  'api:data.person_deals': 'empty on the reference: nothing to page',
  'api:data.person_accounts': 'one item on the reference (the control protocol makes a person in one account): a single page',
};

/** The faults of the given families (default: all), the named ones first. */
export async function familyFaults(named: readonly FaultDef[], families: readonly Family[] = FAMILIES): Promise<(FaultDef | GeneratedFault)[]> {
  return [
    ...(families.includes('named') ? named : []),
    ...(families.includes('bounds') ? await boundsFamily() : []),
    ...(families.includes('shapes') ? await shapesFamily() : []),
    ...(families.includes('patch-semantics') ? await patchSemanticsFamily() : []),
    ...(families.includes('rule-cells') ? await ruleCellsFamily() : []),
    ...(families.includes('sequences') ? (SEQUENCE_FAULTS as GeneratedFault[]) : []),
  ];
}

/** The suites a fault of a family can be caught by (undefined: every suite). */
export function suitesFor(f: FaultDef): string[] | undefined {
  if (f.family === undefined) return undefined;
  // Faults only a sequence shows: the stateful checks alone must catch them.
  if (f.family === 'sequences') return ['sequences'];
  if (f.family === 'bounds' && /:(query|header)\./.test(f.name)) return [f.name.includes(':query.') ? 'pagination' : 'idempotency'];
  if (f.family !== 'rule-cells') return ['definitions'];
  const suite = (c: string): string =>
    c.startsWith('AUTH')
      ? 'auth'
      : c.startsWith('SCOPE')
        ? 'scopes'
        : c.startsWith('IDEM')
          ? 'idempotency'
          : c.startsWith('ERR')
            ? 'errors'
            : c === 'PAGE-013'
              ? 'operations'
              : c.startsWith('PAGE')
                ? 'pagination'
                : 'billing';
  return [...new Set(f.clauses.map(suite))];
}
