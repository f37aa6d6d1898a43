/**
 * The commands of a sequence, as plain data (so a sequence prints as numbered steps, shrinks by
 * dropping steps and simplifying each, and replays from its seed and path), and what each does:
 * `plan` says whether it runs in the model's state and what it costs on the reference (for the
 * credit plan, plan.ts), `apply` sends it, compares the answer with the model where the
 * document fixes it, and moves the model. A command whose target does not exist in the model's
 * state (an archive with no live definition) is skipped, on the target and in the plan alike.
 */
import fc from 'fast-check';
import type { KeyHandle } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { Finding } from '../../src/engine/finding.ts';
import { judged } from '../../src/engine/judged.ts';
import { waitBound } from '../../src/engine/waits.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { documentedBody } from '../_shared/documented.ts';
import { brief, canonical, compareIds, findObjects, isObject } from '../_shared/json.ts';
import { comparableRenderings, is2xx, MODULE_KEYS } from '../_shared/definitions.ts';
import { agentPreviewBody, applyUpdateBody } from '../_shared/ops-fixtures.ts';
import { traceQueries } from '../_shared/ops-shapes.ts';
import { allReceiptIds, findResourceId, idOf, isUuid, listedReceiptIds, pollUntil, RECEIPT_BOUND_MS } from '../_shared/receipts.ts';
import { provisionKey } from '../auth/support.ts';
import { answerOf, sameAnswer, sameJson } from '../idempotency/support.ts';
import { computePoll, computeRun, crmRead, withoutScope } from './live-reads.ts';
import { carriesLinks } from '../_shared/linked.ts';
import { accountOf, answer, fail, send, type Runner } from './runner.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';
import { differences, liveDefs, liveValues, valuesFromAnswer, visibleDefs, type Model, type ModelDef, type ModelOpKey, type ModelValue } from './model.ts';

const LABELS = ['Alpha', 'Beta', 'Gamma', 'Delta'] as const;
const MORE_LABELS = ['Epsilon', 'Zeta', 'Eta', 'Theta'] as const;
const KINDS = ['account', 'contact', 'deal', 'investor'] as const;
const POLICIES = ['on_ingest', 'on_ingest_and_backfill', 'manual'] as const;
/** Threshold pairs (auto-apply, review) in order: a server may refuse auto-apply below review. */
const THRESHOLDS: readonly (readonly [number, number])[] = [
  [0.85, 0.6],
  [1, 0],
  [0.5, 0.5],
  [0.9, 0.1],
];

export type { Runner } from './runner.ts';

export type Cmd =
  | { kind: 'create'; module: string; kinds: string[]; cardinality: 'exclusive' | 'multi'; labels: string[]; policy?: string; thresholds?: number; keyed: boolean; colored?: true }
  | {
      kind: 'patch';
      target: number;
      name?: true;
      description?: string;
      instruction?: string;
      policy?: string;
      capture?: boolean;
      chat?: boolean;
      thresholds?: number;
      add: string[];
      archive: number[];
      keyed?: true;
    }
  | { kind: 'archive'; target: number; shown?: true }
  | { kind: 'merge'; target: number; from: number; into: number }
  | { kind: 'list'; limit: number; includeArchived: boolean }
  | { kind: 'walk'; includeArchived: boolean; limit?: number }
  | { kind: 'replay'; which: number; reorder?: true }
  | { kind: 'conflict'; which: number; change?: 'kinds' | 'path' }
  | { kind: 'grant'; call: 'list' | 'create' | 'patch' }
  | { kind: 'switch'; call: 'list' | 'create' | 'patch' }
  | { kind: 'revoke' }
  | { kind: 'submit'; after: number }
  | { kind: 'poll'; which: number }
  | { kind: 'receipts'; limit?: number }
  | { kind: 'resubmit'; which: number }
  | { kind: 'reuse'; which: number }
  | { kind: 'invalid' }
  | { kind: 'edge' }
  | { kind: 'withhold' }
  | { kind: 'read' }
  | { kind: 'throttle' }
  | { kind: 'role' }
  | { kind: 'again'; what: 'patch' | 'archive' | 'merge'; target: number }
  | { kind: 'query'; op: number; withheld: boolean }
  | { kind: 'compute'; ladder: boolean }
  | { kind: 'cpoll'; which: number };

/** The labels of a create at the upper bound of enumValues (4.4: at most 200). */
export const EDGE_LABELS: readonly string[] = Array.from({ length: 200 }, (_, i) => `V${i + 1}`);

/** The reads a sequence makes between two walks (4.2, 4.9, 2.7). */
const READS = ['me', 'capabilities', 'account', 'person', 'relationships', 'trace'] as const;
type ReadKind = (typeof READS)[number];

/** The single bound an invalid create breaks (4.4): each refused as invalid, storing nothing. */
const BREAKS = ['name-empty', 'name-long', 'description-long', 'instruction-long', 'values-201', 'kinds-empty', 'reason-long'] as const;

/** A field present about half the time (a record's optional keys are otherwise nearly always there); shrinks to absent. */
const sometimes = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined, freq: 2 });

/** The record without its absent keys (a command prints and shrinks as what it sends). */
const present = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const create = fc
  .record({
    kind: fc.constant('create' as const),
    module: fc.constantFrom(...MODULE_KEYS),
    kinds: fc.subarray([...KINDS], { minLength: 1 }),
    cardinality: fc.constantFrom('exclusive' as const, 'multi' as const),
    // Mostly two values or more (merges need two), sometimes one or none.
    labels: fc.oneof({ arbitrary: fc.subarray([...LABELS], { minLength: 2 }), weight: 4 }, { arbitrary: fc.subarray([...LABELS], { maxLength: 1 }), weight: 1 }),
    policy: fc.option(fc.constantFrom(...POLICIES), { nil: undefined }),
    thresholds: fc.option(fc.nat({ max: THRESHOLDS.length - 1 }), { nil: undefined }),
    keyed: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    // The first enum value with every optional field of 2.2 (a description and a color).
    colored: sometimes(fc.constant(true as const)),
  })
  .map(present);
const patch = fc
  .record({
    kind: fc.constant('patch' as const),
    target: fc.nat({ max: 7 }),
    name: sometimes(fc.constant(true as const)),
    description: sometimes(fc.constantFrom('changed', '', 'x'.repeat(1000))),
    instruction: sometimes(fc.constantFrom('changed instruction', '')),
    policy: sometimes(fc.constantFrom(...POLICIES)),
    capture: sometimes(fc.boolean()),
    chat: sometimes(fc.boolean()),
    thresholds: sometimes(fc.nat({ max: THRESHOLDS.length - 1 })),
    add: fc.subarray([...MORE_LABELS], { maxLength: 2 }),
    archive: fc.uniqueArray(fc.nat({ max: 5 }), { maxLength: 2 }),
    // Sent with an Idempotency-Key (kept in the model: a reuse on another path must be refused).
    keyed: sometimes(fc.constant(true as const)),
  })
  .map(present);

/** One command of a sequence. */
export const commandArb: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: create, weight: 2 },
  { arbitrary: patch, weight: 6 },
  // Read back with archived definitions shown (includeArchived) or hidden.
  { arbitrary: fc.record({ kind: fc.constant('archive' as const), target: fc.nat({ max: 7 }), shown: sometimes(fc.constant(true as const)) }).map(present), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('merge' as const), target: fc.nat({ max: 7 }), from: fc.nat({ max: 5 }), into: fc.nat({ max: 5 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('list' as const), limit: fc.integer({ min: 1, max: 2 }), includeArchived: fc.boolean() }), weight: 3 },
  // Walks of the live definitions a few at a time (several pages: the cursors are followed), or all at once.
  { arbitrary: fc.record({ kind: fc.constant('walk' as const), includeArchived: fc.constant(false), limit: sometimes(fc.integer({ min: 1, max: 2 })) }).map(present), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('walk' as const), includeArchived: fc.constant(true) }), weight: 2 },
  // A replay may send the same input with its properties in another order: the same input (4.1).
  { arbitrary: fc.record({ kind: fc.constant('replay' as const), which: fc.nat({ max: 3 }), reorder: sometimes(fc.constant(true as const)) }).map(present), weight: 3 },
  // Another input under a used key: another name, other entity kinds (an array), or a keyed PATCH's body on another definition.
  {
    arbitrary: fc.record({ kind: fc.constant('conflict' as const), which: fc.nat({ max: 3 }), change: fc.constantFrom(undefined, 'kinds' as const, 'path' as const, 'path' as const) }).map(present),
    weight: 3,
  },
  // With the test-control protocol: a scope taken from the key between two calls, one call that
  // needs it (refused, changing nothing), the scope given back (part 5 rules 5 and 8).
  { arbitrary: fc.record({ kind: fc.constant('grant' as const), call: fc.constantFrom('list' as const, 'create' as const, 'patch' as const) }), weight: 2 },
);

/** Pages of 200 one walk reads at most (a walk that needs more ends at the bound, judged on what it read). */
export const WALK_PAGES = 5;

/** The most commands a sequence has: one or two creates, then up to sixteen commands of any kind. */
export const MAX_COMMANDS = 18;
/**
 * A sequence: one or two creates (so that the rest has targets), then any commands; both parts
 * shrink (the creates down to one, the rest to nothing).
 */
export const sequenceArb: fc.Arbitrary<Cmd[]> = fc
  .tuple(
    // Two creates more often than one: a second live definition is what a key reused on another path needs.
    fc.oneof({ arbitrary: fc.array(create, { minLength: 1, maxLength: 1 }), weight: 1 }, { arbitrary: fc.array(create, { minLength: 2, maxLength: 2 }), weight: 2 }),
    fc.array(commandArb, { maxLength: MAX_COMMANDS - 2, size: 'max' }),
  )
  .map(([first, rest]) => [...first, ...rest]);

/**
 * One command of a sequence about catalog operations and standing: submissions and their
 * receipts, replays and reused keys, and (with the test-control protocol) a scope, the
 * definitions capability or another key taken away between calls; with definition writes and
 * walks among them, so that what a refused call might have changed is there to be read back.
 */
export const opsCommandArb: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: create, weight: 1 },
  { arbitrary: patch, weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('walk' as const), includeArchived: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('grant' as const), call: fc.constantFrom('list' as const, 'create' as const, 'patch' as const) }), weight: 1 },
  // With the test-control protocol: the definitions capability switched off between two calls,
  // one call that needs it (503, changing nothing), switched on again (7 table, 503).
  { arbitrary: fc.record({ kind: fc.constant('switch' as const), call: fc.constantFrom('list' as const, 'create' as const, 'patch' as const) }), weight: 2 },
  // With the test-control protocol: another key of the workspace revoked between calls (part 5
  // rule 4): it is refused from the next call on, and the sequence's own key goes on as before.
  { arbitrary: fc.constant({ kind: 'revoke' as const }), weight: 1 },
  // Catalog operations (4.8): a keyed graph.apply_update (its receipt polled at once), a poll of
  // one of the receipts, a walk of GET /operations, a replay and a key reused with another input
  // (each read back with a walk of the receipts).
  { arbitrary: fc.record({ kind: fc.constant('submit' as const), after: fc.nat({ max: 3 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('poll' as const), which: fc.nat({ max: 3 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('receipts' as const), limit: sometimes(fc.constantFrom(1, 2)) }).map(present), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('resubmit' as const), which: fc.nat({ max: 3 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('reuse' as const), which: fc.nat({ max: 3 }) }), weight: 2 },
  // Creates that each break one bound of 4.4: refused as invalid, storing nothing; and one at every
  // upper bound at once (name 80, description 1000, instruction 2000, 200 enum values, reason 500): accepted.
  { arbitrary: fc.constant({ kind: 'invalid' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'edge' as const }), weight: 1 },
  // With the test-control protocol: graph:write taken from the submitting key, one submission
  // (403, submitting nothing), the scope given back.
  { arbitrary: fc.constant({ kind: 'withhold' as const }), weight: 2 },
  // Every kind of read the document names (GET /me, GET /capabilities, a stored account and
  // person, the relationships, a trace), one after the other: each answers 2xx and changes
  // nothing (walks before, between and after show what the model holds).
  { arbitrary: fc.constant({ kind: 'read' as const }), weight: 2 },
  // With the test-control protocol: a rate limit of one call a minute between calls (two calls, at
  // least one 429), lifted again; the submitting key's holder moved to the member role (an agent
  // preview refused with 403), moved back.
  { arbitrary: fc.constant({ kind: 'throttle' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'role' as const }), weight: 1 },
  // A keyed PATCH, archive or merge-value, repeated (the stored answer), its key reused with another
  // input (409), read back (done once).
  { arbitrary: fc.record({ kind: fc.constant('again' as const), what: fc.constantFrom('patch' as const, 'archive' as const, 'merge' as const), target: fc.nat({ max: 7 }) }), weight: 2 },
  // With the test-control protocol (live-reads.ts): a live CRM read (POST /query), crm:read taken
  // away for one read in between or not, then a walk; a compute run, the admin scope or the owner
  // role taken away for one call each and the holder made a workspace admin for one run, or not;
  // each run polled; a later poll of a run.
  { arbitrary: fc.record({ kind: fc.constant('query' as const), op: fc.nat({ max: 2 }), withheld: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('compute' as const), ladder: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('cpoll' as const), which: fc.nat({ max: 3 }) }), weight: 1 },
);

/** The most commands an operations sequence has: one create, then up to sixteen of any kind. */
export const MAX_OPS_COMMANDS = 17;

/**
 * An operations sequence: one create (a definition for the walks to show), then up to sixteen
 * commands of any kind, their number drawn without fast-check's bias toward small values (a
 * short sequence sets up little), and shrinking to none.
 */
export const opsSequenceArb: fc.Arbitrary<Cmd[]> = fc
  .tuple(fc.array(create, { minLength: 1, maxLength: 1 }), fc.noBias(fc.array(opsCommandArb, { maxLength: MAX_OPS_COMMANDS - 1, size: 'max' })))
  .map(([first, rest]) => [...first, ...rest]);

/** One step as a person reads it. */
export function describe(c: Cmd): string {
  const { kind, ...rest } = c;
  return `${kind} ${JSON.stringify(rest)}`;
}

/** The definition a command's target index names among the live ones (undefined: none). */
const pick = <T>(xs: readonly T[], i: number): T | undefined => (xs.length === 0 ? undefined : xs[i % xs.length]);

/** What running `c` in model `m` sends, resolved: skipped when it has no target; the labels added that are new. */
export function resolve(m: Model, c: Cmd): { skip: true } | { skip: false; def?: ModelDef; add?: string[] } {
  switch (c.kind) {
    case 'patch': {
      const def = pick(liveDefs(m), c.target);
      if (!def) return { skip: true };
      const taken = new Set(def.values.map((v) => v.label));
      return { skip: false, def, add: c.add.filter((l) => !taken.has(l)) };
    }
    case 'archive':
    case 'merge': {
      const def = pick(liveDefs(m), c.target);
      if (!def) return { skip: true };
      if (c.kind === 'merge' && liveValues(def).length < 2) return { skip: true };
      return { skip: false, def };
    }
    case 'replay':
      return m.keys.length === 0 ? { skip: true } : { skip: false };
    case 'again': {
      const def = pick(liveDefs(m), c.target);
      if (!def || (c.what === 'merge' && liveValues(def).length < 2)) return { skip: true };
      return { skip: false, def };
    }
    case 'conflict':
      if (c.change === 'path') return m.patchKeys.length > 0 && liveDefs(m).length > 1 ? { skip: false } : { skip: true };
      return m.keys.length === 0 ? { skip: true } : { skip: false };
    default:
      return { skip: false };
  }
}

const REASON = 'conformance sequence';

/**
 * How a PATCH that added values and lost others is reported: DEF-018's finding (addEnumValues
 * adds), which the check also reports as DEF-028's (a PATCH leaves what it does not name).
 */
export const VALUES_LOST = 'the PATCH that added enum values lost values it did not name';

/** A 2xx with a Definition object, else a finding on `clause`. */
function definitionOf(clause: string, what: string, ex: Exchange): Record<string, unknown> {
  const body = ex.response?.json;
  judged(clause);
  if (!is2xx(ex) || !isObject(body) || typeof body.id !== 'string') fail(clause, `${what} did not answer 2xx with a Definition`, '2xx with the Definition', answer(ex), ex);
  return body;
}

function createBody(r: Runner, c: Extract<Cmd, { kind: 'create' }>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: `${r.prefix}${r.step}`,
    description: 'made by a sequence',
    instruction: 'none',
    moduleKey: c.module,
    entityKinds: c.kinds,
    valueType: 'enum',
    cardinality: c.cardinality,
    enumValues: c.labels.map((label, i) => (i === 0 && c.colored ? { label, description: 'the first value', color: '#a1b2c3' } : { label })),
    reason: `${REASON} ${r.step}`,
  };
  if (c.policy !== undefined) body.refreshPolicy = c.policy;
  if (c.thresholds !== undefined) [body.autoApplyThreshold, body.reviewThreshold] = THRESHOLDS[c.thresholds]!;
  return body;
}

/** The body of a plain create (one kind, one value): the base of the writes sent to be refused. */
const plainCreateBody = (r: Runner): Record<string, unknown> =>
  createBody(r, { kind: 'create', module: MODULE_KEYS[0]!, kinds: ['account'], cardinality: 'exclusive', labels: ['Alpha'], keyed: false });

function modelOfCreate(id: string, body: Record<string, unknown>, c: Extract<Cmd, { kind: 'create' }>, shown: Record<string, unknown>, ex: Exchange): ModelDef {
  const values = valuesFromAnswer(c.labels, shown);
  judged('DEF-003');
  if (!values) fail('DEF-003', 'the created definition does not show every enum value sent', `values labelled ${JSON.stringify(c.labels)}`, brief(shown.enum_values), ex);
  const [auto, review] = c.thresholds === undefined ? [0.85, 0.6] : THRESHOLDS[c.thresholds]!;
  return {
    id,
    fields: {
      name: body.name,
      description: body.description,
      instruction: body.instruction,
      module_key: c.module,
      value_type: 'enum',
      cardinality: c.cardinality,
      refresh_policy: c.policy ?? 'on_ingest',
      capture_enabled: false,
      auto_apply_threshold: auto,
      review_threshold: review,
      chat_visible: true,
    },
    entityKinds: [...c.kinds],
    reasons: { creation: String(body.reason), latest: String(body.reason) },
    archived: false,
    values,
    written: new Set(),
  };
}

/** Compares a Definition the server showed with the model's; a difference is a finding on `clause`. */
function expectModel(r: Runner, m: Model, clause: string | ((diff: readonly string[]) => string), what: string, def: ModelDef, shown: Record<string, unknown>, ex: Exchange): void {
  const diff = differences(def, shown, m.readings);
  const judgedClause = typeof clause === 'string' ? clause : clause(diff);
  r.ctx.judged(judgedClause);
  if (diff.length > 0) fail(judgedClause, `${what}: ${diff.slice(0, 4).join('; ')}`, 'the definition as the calls so far made it', brief(documentedBody(shown), 600), ex);
}

/** Runs one command: sends it, judges the answer against the model, moves the model. */
export async function apply(r: Runner, m: Model, c: Cmd): Promise<void> {
  const res = resolve(m, c);
  if (res.skip) return;
  const k = r.key;
  switch (c.kind) {
    case 'create': {
      const body = createBody(r, c);
      const idem = c.keyed ? r.newKey() : undefined;
      const ex = await send(r, { method: 'POST', path: '/definitions', key: k, body, ...(idem ? { idempotencyKey: idem } : {}) });
      const shown = definitionOf('DEF-012', 'a valid create', ex);
      r.billed.push(ex);
      const def = modelOfCreate(String(shown.id), body, c, shown, ex);
      expectModel(r, m, 'DEF-003', 'the created definition', def, shown, ex);
      m.defs.push(def);
      if (idem) m.keys.push({ key: idem, body, status: ex.response!.status, id: def.id, answer: canonical(documentedBody(shown)) });
      return;
    }
    case 'patch': {
      const def = res.def!;
      const body: Record<string, unknown> = { reason: `${REASON} ${r.step}` };
      const named = new Set<string>();
      if (c.name) body.name = `${r.prefix}${r.step}p`;
      if (c.description !== undefined) body.description = c.description;
      if (c.instruction !== undefined) body.instruction = c.instruction;
      if (c.policy !== undefined) body.refreshPolicy = c.policy;
      if (c.capture !== undefined) body.captureEnabled = c.capture;
      if (c.chat !== undefined) body.chatVisible = c.chat;
      if (c.thresholds !== undefined) [body.autoApplyThreshold, body.reviewThreshold] = THRESHOLDS[c.thresholds]!;
      if (res.add!.length > 0) body.addEnumValues = res.add!.map((label) => ({ label }));
      const live = liveValues(def);
      const archived = [...new Set(c.archive.map((i) => pick(live, i)).filter((v) => v !== undefined))];
      if (archived.length > 0) body.archiveEnumValueSlugs = archived.map((v) => v.slug);
      const idem = c.keyed ? r.newKey() : undefined;
      const ex = await send(r, { method: 'PATCH', path: `/definitions/${def.id}`, key: k, body, ...(idem ? { idempotencyKey: idem } : {}) });
      const shown = definitionOf('DEF-017', 'a valid PATCH', ex);
      r.billed.push(ex);
      if (idem) m.patchKeys.push({ key: idem, body, id: def.id });
      // The model after the PATCH: the named fields set, the named values archived, the added ones new.
      const field = (request: string, snake: string): void => {
        if (body[request] === undefined) return;
        def.fields[snake] = body[request];
        named.add(snake);
        def.written.add(snake);
      };
      field('name', 'name');
      field('description', 'description');
      field('instruction', 'instruction');
      field('refreshPolicy', 'refresh_policy');
      field('captureEnabled', 'capture_enabled');
      field('chatVisible', 'chat_visible');
      field('autoApplyThreshold', 'auto_apply_threshold');
      field('reviewThreshold', 'review_threshold');
      def.reasons.latest = String(body.reason);
      for (const v of archived) v.archived = true;
      const added = valuesFromAnswer(res.add!, shown);
      if (res.add!.length > 0) {
        r.ctx.judged('DEF-018');
        r.looked.add('DEF-018');
      }
      if (!added) fail('DEF-018', 'values added by addEnumValues are missing from the PATCH answer', `values labelled ${JSON.stringify(res.add)}`, brief(shown.enum_values), ex);
      def.values.push(...added);
      const diff = differences(def, shown, m.readings);
      // Looked at: the fields and values it did not name (always), those it named, those it archived.
      r.ctx.judged('DEF-028');
      if (named.size > 0) {
        r.ctx.judged('DEF-017');
        r.looked.add('DEF-017');
      }
      if (archived.length > 0) {
        r.ctx.judged('DEF-019');
        r.looked.add('DEF-019');
      }
      if (diff.length === 0) return;
      // What the PATCH did not name, changed: DEF-028; else a named field shown otherwise:
      // DEF-017; else a value it named for archiving: DEF-019.
      const isNamed = (d: string): boolean => [...named].some((f) => d.startsWith(`${f} is`));
      const isArchivedValue = (d: string): boolean => archived.some((v) => d.includes(`value ${v.slug} `));
      // Values it added shown, values it had gone: addEnumValues replaced instead of adding (DEF-018).
      const replaced = res.add!.length > 0 && diff.some((d) => / is missing$/.test(d) && !isArchivedValue(d));
      const clause = replaced ? 'DEF-018' : diff.some((d) => !isNamed(d) && !isArchivedValue(d)) ? 'DEF-028' : diff.some(isNamed) ? 'DEF-017' : 'DEF-019';
      fail(clause, `${replaced ? VALUES_LOST : 'the PATCH answer'}: ${diff.slice(0, 4).join('; ')}`, 'the definition as the calls so far made it', brief(documentedBody(shown), 600), ex);
      return;
    }
    case 'archive': {
      const def = res.def!;
      const ex = await send(r, { method: 'POST', path: `/definitions/${def.id}/archive`, key: k, body: { reason: `${REASON} ${r.step}` } });
      const shown = definitionOf('DEF-013', 'archiving a live definition', ex);
      r.billed.push(ex);
      def.archived = true;
      def.reasons.latest = `${REASON} ${r.step}`;
      // The state is looked at here: archived, or the comparison below fails DEF-013.
      r.ctx.judged('DEF-013');
      expectModel(r, m, shown.state === 'archived' ? 'DEF-029' : 'DEF-013', 'the archive answer', def, shown, ex);
      // Read back at once, whatever the sequence does next: the default listing no longer shows it
      // (DEF-015), or with includeArchived it shows it archived, as the archive answered.
      return listing(r, m, { kind: 'walk', includeArchived: c.shown === true });
    }
    case 'merge': {
      const def = res.def!;
      const live = liveValues(def);
      const from = pick(live, c.from)!;
      const into = pick(
        live.filter((v) => v !== from),
        c.into,
      )!;
      const ex = await send(r, { method: 'POST', path: `/definitions/${def.id}/merge-value`, key: k, body: { fromSlug: from.slug, intoSlug: into.slug, reason: `${REASON} ${r.step}` } });
      const rewritten = isObject(ex.response?.json) ? ex.response.json.rewritten : undefined;
      r.ctx.judged('DEF-022');
      if (!is2xx(ex) || typeof rewritten !== 'number' || !Number.isInteger(rewritten) || rewritten < 0)
        fail('DEF-022', 'merging two live values did not answer a merge result', '2xx with rewritten, an integer of at least 0', answer(ex), ex);
      r.billed.push(ex);
      from.mergedAway = true;
      def.reasons.latest = `${REASON} ${r.step}`;
      // Read back at once: what the merge did to the value merged away is a reading (DEF-022's),
      // held from its first sight, and a later write must not be the first to show it.
      return listing(r, m, { kind: 'walk', includeArchived: true });
    }
    case 'list':
    case 'walk':
      return listing(r, m, c);
    case 'grant':
      return grant(r, m, c);
    case 'switch':
      return switched(r, m, c);
    case 'withhold':
      return withhold(r);
    case 'read':
      return reads(r, m);
    case 'throttle':
      return throttle(r);
    case 'role':
      return role(r);
    case 'again':
      return again(r, m, c, res.def!);
    case 'edge': {
      const cc: Extract<Cmd, { kind: 'create' }> = { kind: 'create', module: MODULE_KEYS[0]!, kinds: [...KINDS], cardinality: 'multi', labels: [...EDGE_LABELS], keyed: false };
      const body = createBody(r, cc);
      body.name = String(body.name).padEnd(80, 'e');
      body.description = 'd'.repeat(1000);
      body.instruction = 'i'.repeat(2000);
      body.reason = String(body.reason).padEnd(500, 'r');
      const ex = await send(r, { method: 'POST', path: '/definitions', key: k, body });
      // Refused, the bounds are enforced one short (DEF-006, as the definitions suite's edges report it).
      const shown = definitionOf('DEF-006', 'a create at every upper bound', ex);
      r.billed.push(ex);
      const def = modelOfCreate(String(shown.id), body, cc, shown, ex);
      expectModel(r, m, 'DEF-003', 'the created definition', def, shown, ex);
      m.defs.push(def);
      return;
    }
    case 'invalid': {
      // Names keep the sequence's prefix where they can: a listing would show a definition, were one stored.
      // The creates are sent together (none depends on another's answer), judged in order.
      const sent = await inParallel(BREAKS, CHECK_PARALLEL, (breaks) => {
        const body = plainCreateBody(r);
        if (breaks === 'name-empty') body.name = '';
        if (breaks === 'name-long') body.name = String(body.name).padEnd(81, 'x');
        if (breaks === 'description-long') body.description = 'd'.repeat(1001);
        if (breaks === 'instruction-long') body.instruction = 'i'.repeat(2001);
        if (breaks === 'values-201') body.enumValues = [...EDGE_LABELS, 'V201'].map((label) => ({ label }));
        if (breaks === 'kinds-empty') body.entityKinds = [];
        if (breaks === 'reason-long') body.reason = 'r'.repeat(501);
        return r.ctx.api.send({ method: 'POST', path: '/definitions', key: k, body });
      });
      r.log.push(...sent);
      // Every create accepted is owed its credit (the sequence's charges), whichever is reported.
      r.billed.push(...sent.filter(is2xx));
      for (const [i, ex] of sent.entries()) {
        r.ctx.judged('DEF-006');
        r.looked.add('DEF-006');
        if (!INVALID_STATUSES.includes(ex.response?.status ?? 0)) fail('DEF-006', `a create that breaks one bound (${BREAKS[i]}) was not refused as invalid`, '400 or 422', answer(ex), ex);
      }
      // Read back at once: nothing stored (DEF-011).
      r.looked.add('DEF-011');
      try {
        await listing(r, m, { kind: 'walk', includeArchived: true });
        r.ctx.judged('DEF-011');
      } catch (e) {
        if (!(e instanceof Finding)) throw e;
        throw new Finding({ ...e.evidence, clause: 'DEF-011', message: `after a create refused as invalid, ${e.evidence.message}` });
      }
      return;
    }
    case 'revoke':
      return revoke(r, m);
    case 'query':
      return crmRead(r, c, () => ownListed(r, m, { kind: 'walk', includeArchived: true }));
    case 'compute':
      return computeRun(r, m, c);
    case 'cpoll':
      // With no run to poll yet, the sequence starts one (polled at once) instead.
      if (m.computeRuns.length === 0) return computeRun(r, m, { ladder: false });
      return computePoll(r, pick(m.computeRuns, c.which)!);
    case 'submit':
    case 'poll':
    case 'receipts':
    case 'resubmit':
    case 'reuse':
      return operation(r, m, c);
    case 'replay': {
      const rec = m.keys[c.which % m.keys.length]!;
      // The same input, its properties in reverse order when `reorder`: JSON objects are unordered.
      const body = c.reorder ? Object.fromEntries(Object.entries(rec.body).reverse()) : rec.body;
      const ex = await send(r, { method: 'POST', path: '/definitions', key: k, body, idempotencyKey: rec.key });
      r.replays++;
      const shown = ex.response?.json;
      r.ctx.judged('IDEM-002');
      if (ex.response?.status !== rec.status || canonical(documentedBody(shown)) !== rec.answer) {
        fail('IDEM-002', 'a create repeated with its Idempotency-Key and input did not return the stored answer', `${rec.status} ${rec.answer.slice(0, 400)}`, answer(ex), ex);
      }
      return;
    }
    case 'conflict': {
      let ex: Exchange;
      let what: string;
      let first: string;
      if (c.change === 'path') {
        // A keyed PATCH's very body, under its key, on another live definition: another input (4.1).
        const rec = m.patchKeys[c.which % m.patchKeys.length]!;
        first = rec.id;
        const other = pick(
          liveDefs(m).filter((d) => d.id !== rec.id),
          c.which,
        )!;
        what = "a keyed PATCH's key and body sent to another definition";
        ex = await send(r, { method: 'PATCH', path: `/definitions/${other.id}`, key: k, body: rec.body, idempotencyKey: rec.key });
      } else {
        const rec = m.keys[c.which % m.keys.length]!;
        first = rec.id;
        // Another name, or other entity kinds (an array: the whole input counts).
        const kinds = (rec.body.entityKinds as string[]).length < KINDS.length ? [...KINDS] : [KINDS[0]];
        const body = c.change === 'kinds' ? { ...rec.body, entityKinds: kinds } : { ...rec.body, name: `${r.prefix}${r.step}c` };
        what = `a create's key reused with ${c.change === 'kinds' ? 'other entity kinds' : 'another name'}`;
        ex = await send(r, { method: 'POST', path: '/definitions', key: k, body, idempotencyKey: rec.key });
      }
      r.ctx.judged('IDEM-004');
      if (ex.response?.status !== 409) {
        // A new write is charged; the first call's answer served again (its definition's id) is a
        // replay, which is free: no charge is waited for that will not come.
        const id = isObject(ex.response?.json) ? ex.response.json.id : undefined;
        if (is2xx(ex) && (typeof id !== 'string' || id.toLowerCase() !== first.toLowerCase())) r.billed.push(ex);
        fail('IDEM-004', `an Idempotency-Key reused with another input (${what}) was not answered 409`, '409 CONFLICT', answer(ex), ex);
      }
      return;
    }
  }
}

/** What a call refused for a standing withdrawn between two steps is about (grant, switch). */
interface Withdrawal {
  /** Takes the standing away (control protocol). */
  take(): Promise<unknown>;
  /** Gives it back. */
  give(): Promise<unknown>;
  /** The status the call must be refused with. */
  status: number;
  /** The clause of the refusal, by the call sent. */
  clause(call: 'list' | 'create' | 'patch'): string;
  /** The clause of "the refused call changed nothing". */
  unchanged: string;
  /** With the standing taken away, the walk still works: read before the call (a change then is taking it away's doing, this clause's). */
  readableWithout?: string;
  /** A clause the refusal also answers to (a grant read on the request, not cached). */
  also?: string;
  /** GET /capabilities is sent too while the standing is away: it answers any valid key (VER-003). */
  capabilities?: true;
  /** What was withdrawn, in words. */
  what: string;
}

/**
 * A standing withdrawn between calls (control protocol): a walk, the standing taken away, one
 * call that needs it (refused with `w.status`, changing nothing), the standing given back, and a
 * walk that must still show what the model holds. The walk before makes sure what differs
 * afterwards is the refused call's doing.
 */
async function refusedBetween(r: Runner, m: Model, calls: readonly ('list' | 'create' | 'patch')[], w: Withdrawal): Promise<void> {
  await listing(r, m, { kind: 'walk', includeArchived: true });
  // A PATCH names a live definition; with none, it is left out.
  const target = pick(liveDefs(m), r.step);
  const sent = calls.filter((c) => c !== 'patch' || target !== undefined);
  await w.take();
  if (w.readableWithout) {
    const clause = w.readableWithout;
    r.looked.add(clause);
    try {
      await listing(r, m, { kind: 'walk', includeArchived: true });
      r.ctx.judged(clause);
    } catch (e) {
      await w.give();
      if (!(e instanceof Finding)) throw e;
      throw new Finding({ ...e.evidence, clause, message: `right after ${w.what} was taken away, ${e.evidence.message}` });
    }
  }
  let answers: Exchange[];
  try {
    const reason = `${REASON} ${r.step} without ${w.what}`;
    // Every call is one made after the withdrawal, so they go side by side (one after another they
    // were as many round trips of a sequence that waits for every answer); the withdrawal is
    // undone only once all are answered.
    const calls = [
      ...sent.map((call) =>
        call === 'list'
          ? send(r, { method: 'GET', path: '/definitions', key: r.key, query: { limit: 200 } })
          : call === 'patch'
            ? send(r, { method: 'PATCH', path: `/definitions/${target!.id}`, key: r.key, body: { reason, description: `written without ${w.what}` } })
            : send(r, {
                method: 'POST',
                path: '/definitions',
                key: r.key,
                body: { ...plainCreateBody(r), reason },
              }),
      ),
      ...(w.capabilities ? [send(r, { method: 'GET', path: '/capabilities', key: r.key })] : []),
    ];
    const settled = await Promise.allSettled(calls);
    const thrown = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
    if (thrown) throw thrown.reason;
    answers = settled.map((x) => (x as PromiseFulfilledResult<Exchange>).value);
  } finally {
    await w.give();
  }
  if (w.capabilities) {
    const ex = answers.pop()!;
    r.ctx.judged('VER-003');
    r.looked.add('VER-003');
    if (!is2xx(ex) || ex.response?.isJson !== true)
      fail('VER-003', `with ${w.what} taken away, GET /capabilities did not answer the still valid key with 2xx and a JSON body`, '2xx with a JSON body', answer(ex), ex);
  }
  let first: { clause: string; ex: Exchange } | undefined;
  for (const [i, call] of sent.entries()) {
    const ex = answers[i]!;
    const clause = w.clause(call);
    r.ctx.judged(clause);
    r.looked.add(clause);
    if (w.also) {
      r.ctx.judged(w.also);
      r.looked.add(w.also);
    }
    if (ex.response?.status === w.status) continue;
    if (is2xx(ex)) r.billed.push(ex);
    if (w.also)
      r.ctx.softFail({ clause: w.also, message: `with ${w.what} taken away just before, the next call that needs it was not refused`, expected: String(w.status), received: answer(ex), exchange: ex });
    // A write let through has also changed what it was sent to.
    if (is2xx(ex) && call !== 'list') {
      r.ctx.judged(w.unchanged);
      r.ctx.softFail({
        clause: w.unchanged,
        message: `with ${w.what} taken away just before, a ${call === 'patch' ? 'PATCH' : 'create'} was carried out`,
        expected: `${w.status} and nothing changed`,
        received: answer(ex),
        exchange: ex,
      });
    }
    first ??= { clause, ex };
  }
  if (first) fail(first.clause, `with ${w.what} taken away just before, a call that needs it was not refused with ${w.status}`, String(w.status), answer(first.ex), first.ex);
  r.looked.add(w.unchanged);
  try {
    await listing(r, m, { kind: 'walk', includeArchived: true });
    r.ctx.judged(w.unchanged);
  } catch (e) {
    if (!(e instanceof Finding)) throw e;
    throw new Finding({ ...e.evidence, clause: w.unchanged, message: `after a call refused for ${w.what}, ${e.evidence.message}` });
  }
}

/**
 * A scope taken away between calls: the next call that needs it is refused with 403 (SCOPE-001,
 * SCOPE-002 or SCOPE-003: grants are read on every request) and changes nothing (SCOPE-012).
 */
async function grant(r: Runner, m: Model, c: Extract<Cmd, { kind: 'grant' }>): Promise<void> {
  const control = r.ctx.run.hasControl ? r.ctx.control : undefined;
  const keyId = r.key.keyId;
  if (!control || keyId === undefined) return;
  const drop = c.call === 'list' ? 'graph:read' : 'admin';
  // Without admin, both writes are sent (a create, and a PATCH where a definition is live).
  await refusedBetween(r, m, c.call === 'list' ? ['list'] : ['create', 'patch'], {
    take: () =>
      control.setKeyScopes(
        keyId,
        r.key.scopes.filter((s) => s !== drop),
      ),
    give: () => control.setKeyScopes(keyId, r.key.scopes),
    status: 403,
    clause: (call) => (call === 'list' ? 'SCOPE-001' : call === 'create' ? 'SCOPE-002' : 'SCOPE-003'),
    unchanged: 'SCOPE-012',
    // Grants are read on each request: a removed scope is refused on the next call (GRANT-002).
    also: 'GRANT-002',
    // Without admin the walk still works: read before the call, a change is the removal's doing
    // (GRANT-003). Without graph:read the key is still valid: GET /capabilities answers it.
    ...(drop === 'admin' ? { readableWithout: 'GRANT-003' } : { capabilities: true as const }),
    what: `the ${drop} scope`,
  });
}

/**
 * The definitions capability switched off between calls: the next call that needs it is
 * answered 503 (ERR-009) and changes nothing; switched on again, the definitions are as before.
 */
async function switched(r: Runner, m: Model, c: Extract<Cmd, { kind: 'switch' }>): Promise<void> {
  const control = r.ctx.run.hasControl ? r.ctx.control : undefined;
  if (!control) return;
  const ws = r.ctx.workspaceId;
  // The listing and both writes need the capability: all three are sent, the drawn one first.
  await refusedBetween(r, m, [c.call, ...(['list', 'create', 'patch'] as const).filter((x) => x !== c.call)], {
    take: () => control.setCapabilities(ws, { definitions: false }),
    give: () => control.setCapabilities(ws, { definitions: true }),
    status: 503,
    clause: () => 'ERR-009',
    unchanged: 'ERR-009',
    what: 'the definitions capability',
  });
}

/**
 * Another key of the workspace revoked between calls (part 5 rule 4): it worked just before, is
 * refused with 401 on its next call (AUTH-007), and the sequence's own key still lists what the
 * model holds.
 */
async function revoke(r: Runner, m: Model): Promise<void> {
  if (!r.ctx.run.hasControl) return;
  const side = await provisionKey(r.ctx, r.ctx.workspaceId, 'owner', ['graph:read'], 'sequence_side_key');
  const read = (): Promise<Exchange> => send(r, { method: 'GET', path: '/definitions', key: side, query: { limit: 1 } });
  const before = await read();
  // A fresh key that does not work cannot show that revoking it took its access.
  if (!is2xx(before)) return;
  r.billed.push(before);
  await r.ctx.control.revokeKey(side.keyId!);
  const after = await read();
  r.ctx.judged('AUTH-007');
  r.looked.add('AUTH-007');
  if (after.response?.status !== 401) {
    if (is2xx(after)) r.billed.push(after);
    fail('AUTH-007', 'a key revoked between two calls was not refused on its next call', '401 UNAUTHORIZED', answer(after), after);
  }
  return listing(r, m, { kind: 'walk', includeArchived: true });
}

/**
 * Every kind of read the document names, in turn (free or billed, part 8): each answers 2xx as
 * its clause says, and a walk after them shows what the model holds (a read changes nothing:
 * SVC-005); the trace read last, with a walk of its own after it (TRACE-017).
 */
async function reads(r: Runner, m: Model): Promise<void> {
  let before = await ownListed(r, m, { kind: 'walk', includeArchived: true });
  // The five reads side by side (one after another they were five round trips of a sequence that
  // waits for every answer), the account they share made first; a failed one is reported as it
  // was in turn: the first in this order.
  if (r.ctx.run.hasControl) await accountOf(r);
  const done = await Promise.allSettled((['me', 'capabilities', 'account', 'person', 'relationships'] as const).map((what) => read(r, m, what)));
  for (const d of done) if (d.status === 'rejected') throw d.reason;
  before = await unchangedSince(r, m, before, 'SVC-005', 'GET /me, /capabilities, /data/accounts/{id}, /data/people/{id} and /data/relationships');
  if (m.defs.length === 0) return;
  if (await read(r, m, 'trace')) await unchangedSince(r, m, before, 'TRACE-017', 'GET /graph/traces');
}

/**
 * A walk after reads: the definitions as the model holds them, and listed alike with `before`
 * but for what the service may change on its own (state, estimates); a difference is `clause`'s.
 */
async function unchangedSince(r: Runner, m: Model, before: readonly Record<string, unknown>[], clause: string, what: string): Promise<Record<string, unknown>[]> {
  r.looked.add(clause);
  let after: Record<string, unknown>[];
  try {
    after = await ownListed(r, m, { kind: 'walk', includeArchived: true });
  } catch (e) {
    if (!(e instanceof Finding)) throw e;
    throw new Finding({ ...e.evidence, clause, message: `after reads (${what}), ${e.evidence.message}` });
  }
  r.ctx.judged(clause);
  for (const b of before) {
    const a = after.find((x) => x.id === b.id);
    if (!a) continue;
    const [x, y] = comparableRenderings(b, a);
    const was = canonical(x) ?? '';
    const is = canonical(y) ?? '';
    if (was !== is) fail(clause, `definition ${String(b.id)} is listed otherwise after reads (${what}) than before them`, was.slice(0, 600), is.slice(0, 600), r.log.at(-1)!);
  }
  return after;
}

/** One read the document names: 2xx with what its clause fixes (false: no trace form was accepted, nothing judged). */
async function read(r: Runner, m: Model, what: ReadKind): Promise<boolean> {
  const needsAccount = what === 'account' || what === 'person';
  if (needsAccount && !r.ctx.run.hasControl) return false;
  if (needsAccount) await accountOf(r);
  // The forms a read may take where the document does not fix one (a person's id, a trace's
  // query): tried in turn until one is not refused as unknown or invalid.
  const forms: { path: string; query?: Record<string, string> }[] =
    what === 'me'
      ? [{ path: '/me' }]
      : what === 'capabilities'
        ? [{ path: '/capabilities' }]
        : what === 'account'
          ? [{ path: `/data/accounts/${encodeURIComponent(r.account!.accountId)}` }]
          : what === 'person'
            ? [r.account!.accountPersonId, r.account!.personId].map((id) => ({ path: `/data/people/${encodeURIComponent(id)}` }))
            : what === 'relationships'
              ? [{ path: '/data/relationships' }]
              : traceQueries('definition', m.defs[0]?.id ?? '').map((query) => ({ path: '/graph/traces', query }));
  let ex: Exchange | undefined;
  let used = forms[0]!;
  for (const f of forms) {
    used = f;
    ex = await send(r, { method: 'GET', path: f.path, key: r.key, ...(f.query ? { query: f.query } : {}) });
    const status = ex.response?.status ?? 0;
    if (!(status >= 400 && status < 500 && ![401, 403, 429].includes(status))) break;
  }
  ex = ex!;
  const path = forms[0]!.path;
  const clause = CLAUSE_OF_READ[what];
  const body = ex.response?.json;
  // What each clause fixes of the answer: GET /me's fields (2.4), a JSON body, a stored record
  // with relatedData, the collection envelope; of a trace read, only that it changes nothing.
  const related = (): boolean => isObject(body) && findObjects(body, (o) => 'relatedData' in o, { maxDepth: 2 }).length > 0 && carriesLinks(ex, used.path);
  const shaped =
    what === 'me'
      ? isObject(body) &&
        typeof body.workspaceId === 'string' &&
        typeof body.userId === 'string' &&
        typeof body.role === 'string' &&
        Array.isArray(body.scopes) &&
        body.scopes.every((x) => typeof x === 'string') &&
        typeof body.beta === 'boolean' &&
        isObject(body.capabilities)
      : what === 'capabilities'
        ? ex.response?.isJson === true
        : what === 'account' || what === 'person'
          ? related()
          : true;
  const billed = what !== 'me' && what !== 'capabilities';
  if (is2xx(ex) && billed) r.billed.push(ex);
  // No trace form accepted: no trace read was observed (nothing to judge).
  if (what === 'trace' && !is2xx(ex)) return false;
  r.ctx.judged(clause);
  r.looked.add(clause);
  if (!is2xx(ex) || !shaped)
    fail(
      clause,
      `GET ${path} did not answer 2xx${what === 'me' ? ' with the key introspection object' : what === 'capabilities' ? ' with a JSON body' : what === 'relationships' ? '' : ' with the stored record and its relatedData'}`,
      '2xx',
      answer(ex),
      ex,
    );
  return true;
}

/** The clause a read is judged by (besides SVC-005 for what the walks around it show). */
const CLAUSE_OF_READ: Readonly<Record<ReadKind, string>> = {
  me: 'ME-001',
  capabilities: 'VER-003',
  account: 'DATA-001',
  person: 'DATA-002',
  relationships: 'DATA-003',
  trace: 'TRACE-017',
};

/**
 * A rate limit of one call a minute set between calls (control protocol): of two free calls
 * (GET /me, not retried), at least one is answered 429 (ERR-008); the limit is lifted again.
 */
async function throttle(r: Runner): Promise<void> {
  if (!r.ctx.run.hasControl) return;
  const ws = r.ctx.workspaceId;
  await r.ctx.control.setRateLimit(ws, 1);
  const answers: Exchange[] = [];
  try {
    for (let i = 0; i < 2; i++) answers.push(await send(r, { method: 'GET', path: '/me', key: r.key, retry429: false }));
  } finally {
    await r.ctx.control.setRateLimit(ws, null);
  }
  r.ctx.judged('ERR-008');
  r.looked.add('ERR-008');
  if (!answers.some((ex) => ex.response?.status === 429))
    fail('ERR-008', 'with a rate limit of one call a minute, neither of two calls was answered 429', 'at least one 429 TOO_MANY_REQUESTS', answers.map(answer).join(' / '), answers.at(-1)!);
}

/**
 * The submitting key's holder moved to the member role between calls (control protocol): an agent
 * preview is refused with 403 on the next call (ROLE-004, ROLE-005: a role change takes effect at
 * once); the holder is moved back.
 */
async function role(r: Runner): Promise<void> {
  const op = r.operator;
  if (!op?.userId) return;
  const account = await accountOf(r);
  await r.ctx.control.setMemberRole(r.ctx.workspaceId, op.userId, 'member');
  let ex: Exchange;
  try {
    ex = await send(r, { method: 'POST', path: '/operations', key: op, body: agentPreviewBody([account.accountId]), idempotencyKey: r.newKey() });
  } finally {
    await r.ctx.control.setMemberRole(r.ctx.workspaceId, op.userId, op.role);
  }
  for (const clause of ['ROLE-004', 'ROLE-005']) {
    r.ctx.judged(clause);
    r.looked.add(clause);
  }
  if (ex.response?.status !== 403) {
    if (is2xx(ex)) r.billed.push(ex);
    r.ctx.softFail({
      clause: 'ROLE-005',
      message: 'the holder moved to the member role just before, an agent preview was not refused on the next call',
      expected: '403',
      received: answer(ex),
      exchange: ex,
    });
    fail('ROLE-004', 'an agent preview by a key whose holder now has the member role was not refused with 403', '403 FORBIDDEN', answer(ex), ex);
  }
}

/**
 * A keyed PATCH, archive or merge-value, then the same request again (the stored answer, IDEM-002),
 * its key with another input (409, IDEM-004), and a walk (performed once: IDEM-003, and what the
 * write did: DEF-029).
 */
async function again(r: Runner, m: Model, c: Extract<Cmd, { kind: 'again' }>, def: ModelDef): Promise<void> {
  const reason = `${REASON} ${r.step}`;
  const idem = r.newKey();
  let path: string;
  let body: Record<string, unknown>;
  let other: Record<string, unknown>;
  let from: ModelValue | undefined;
  if (c.what === 'patch') {
    path = `/definitions/${def.id}`;
    body = { reason, description: `written once at step ${r.step}` };
    other = { reason, description: `written again at step ${r.step}` };
  } else if (c.what === 'archive') {
    path = `/definitions/${def.id}/archive`;
    body = { reason };
    other = { reason: `${reason} (another input)` };
  } else {
    const live = liveValues(def);
    from = live[0]!;
    path = `/definitions/${def.id}/merge-value`;
    body = { fromSlug: from.slug, intoSlug: live[1]!.slug, reason };
    other = { ...body, reason: `${reason} (another input)` };
  }
  const method = c.what === 'patch' ? 'PATCH' : 'POST';
  const first = await send(r, { method, path, key: r.key, body, idempotencyKey: idem });
  const clause = c.what === 'patch' ? 'DEF-017' : c.what === 'archive' ? 'DEF-013' : 'DEF-022';
  r.ctx.judged(clause);
  r.looked.add(clause);
  if (!is2xx(first)) fail(clause, `a keyed ${method} ${path.replace(def.id, '{id}')} was not accepted`, '2xx', answer(first), first);
  r.billed.push(first);
  // The model after the write.
  if (c.what === 'patch') {
    def.fields.description = body.description;
    def.written.add('description');
  } else if (c.what === 'archive') def.archived = true;
  else from!.mergedAway = true;
  def.reasons.latest = reason;
  const replay = await send(r, { method, path, key: r.key, body, idempotencyKey: idem });
  r.replays++;
  r.ctx.judged('IDEM-002');
  if (!sameAnswer(first, replay)) {
    if (newWrite(replay, first.response?.json)) r.billed.push(replay);
    fail('IDEM-002', `a keyed ${method} ${path.replace(def.id, '{id}')} repeated with its key and input did not return the stored answer`, answerOf(first), answer(replay), replay);
  }
  const reused = await send(r, { method, path, key: r.key, body: other, idempotencyKey: idem });
  r.ctx.judged('IDEM-004');
  if (reused.response?.status !== 409) {
    if (newWrite(reused, first.response?.json)) r.billed.push(reused);
    fail('IDEM-004', `the key of a ${method} ${path.replace(def.id, '{id}')} reused with another input was not answered 409`, '409 CONFLICT', answer(reused), reused);
  }
  return listing(r, m, { kind: 'walk', includeArchived: true });
}

/** Every receipt id GET /operations lists (lower-case), or undefined when it cannot be walked to its end (free); its pages logged. */
async function receiptIdSet(r: Runner, op: KeyHandle): Promise<Set<string> | undefined> {
  const all = await allReceiptIds(r.ctx, op, RECEIPT_PAGES);
  if (!all) return undefined;
  r.log.push(...all.pages);
  return all.ids;
}

/**
 * graph:write taken from the submitting key between calls (control protocol): a submission is
 * refused with 403 (SCOPE-011; the grant read on the request, GRANT-002) and submits nothing
 * (SCOPE-012: in a workspace of the check's own, no receipt appears); the scope is given back.
 */
async function withhold(r: Runner): Promise<void> {
  const op = r.operator;
  if (!op || op.keyId === undefined) return;
  const account = await accountOf(r);
  const keyId = op.keyId;
  const own = !r.ctx.run.sharedWorkspace;
  const before = own ? await receiptIdSet(r, op) : undefined;
  const ex = await withoutScope(r, { ...op, keyId }, 'graph:write', () =>
    send(r, { method: 'POST', path: '/operations', key: op, body: applyUpdateBody(account, `title ${r.step} without graph:write`), idempotencyKey: r.newKey() }),
  );
  for (const clause of ['SCOPE-011', 'GRANT-002']) {
    r.ctx.judged(clause);
    r.looked.add(clause);
  }
  if (ex.response?.status !== 403) {
    if (is2xx(ex)) r.billed.push(ex);
    r.ctx.softFail({ clause: 'GRANT-002', message: 'with graph:write taken from the key just before, the next submission was not refused', expected: '403', received: answer(ex), exchange: ex });
    // Carried out, it has changed what it was sent to (and left a receipt).
    if (is2xx(ex)) {
      r.ctx.judged('SCOPE-012');
      r.ctx.softFail({ clause: 'SCOPE-012', message: 'a submission by a key without graph:write was carried out', expected: '403 and nothing submitted', received: answer(ex), exchange: ex });
    }
    fail('SCOPE-011', 'a graph.apply_update submitted by a key without graph:write was not refused with 403', '403 FORBIDDEN', answer(ex), ex);
  }
  const after = before ? await receiptIdSet(r, op) : undefined;
  if (!before || !after) return;
  r.ctx.judged('SCOPE-012');
  r.looked.add('SCOPE-012');
  const fresh = [...after].filter((id) => !before.has(id));
  if (fresh.length > 0) fail('SCOPE-012', `a submission refused for a missing graph:write left ${fresh.length} receipt(s) behind`, 'no new receipt', brief(fresh), r.log.at(-1)!);
}

/** Pages of GET /operations one walk reads at most (free). */
const RECEIPT_PAGES = 6;

/** The lower-case form ids are compared in. */
const lower = (id: string): string => id.toLowerCase();

/** A catalog submission, a poll, a walk of the receipts, a replay or a reused key (4.8, 4.1). */
async function operation(r: Runner, m: Model, c: Extract<Cmd, { kind: 'submit' | 'poll' | 'receipts' | 'resubmit' | 'reuse' }>): Promise<void> {
  const op = r.operator;
  if (!op) return;
  // A poll, a replay or a reused key with no submission to work on: the sequence submits one
  // first (itself polled and replayed at once), so that no such step is drawn in vain.
  if (c.kind !== 'submit' && c.kind !== 'receipts' && m.opKeys.length === 0) {
    await operation(r, m, { kind: 'submit', after: 0 });
    if (m.opKeys.length === 0) return;
  }
  switch (c.kind) {
    case 'submit': {
      const body = applyUpdateBody(await accountOf(r), `title ${r.step}.${c.after}`);
      const idem = r.newKey();
      const ex = await send(r, { method: 'POST', path: '/operations', key: op, body, idempotencyKey: idem });
      const id = findResourceId(ex);
      r.ctx.judged('OPS-006');
      r.looked.add('OPS-006');
      if (!is2xx(ex) || id === undefined)
        fail('OPS-006', 'a graph.apply_update of a person_field on an account-membership record was not accepted with a receipt', '2xx with a receipt id', answer(ex), ex);
      r.billed.push(ex);
      m.receipts.push(id);
      const res = ex.response!;
      m.opKeys.push({ key: idem, body, receipt: id, answer: { status: res.status, json: res.json, text: res.text } });
      // Polled at once, whatever the sequence does next (free), then repeated: a poll in between
      // leaves the stored answer as it was (free, a replay).
      await poll(r, op, id);
      return resubmit(r, op, m.opKeys.at(-1)!, 'after its receipt was polled');
    }
    case 'poll':
      return poll(r, op, pick(m.receipts, c.which)!);
    case 'resubmit':
      await resubmit(r, op, pick(m.opKeys, c.which)!, 'later in the sequence');
      // The receipts read back at once (free): no second receipt (IDEM-003).
      return receipts(r, m, op, undefined);
    case 'reuse': {
      const rec = pick(m.opKeys, c.which)!;
      const body = applyUpdateBody(r.account!, `title ${r.step} under a reused key`);
      const ex = await send(r, { method: 'POST', path: '/operations', key: op, body, idempotencyKey: rec.key });
      r.ctx.judged('IDEM-004');
      if (ex.response?.status !== 409) {
        if (newWrite(ex, rec.answer.json)) r.billed.push(ex);
        fail('IDEM-004', "a catalog submission's Idempotency-Key reused with another change was not answered 409", '409 CONFLICT', answer(ex), ex);
      }
      // The receipts read back at once (free): nothing submitted (IDEM-004).
      return receipts(r, m, op, undefined);
    }
    case 'receipts':
      return receipts(r, m, op, c.limit);
  }
}

/**
 * A 2xx to a repeated key that is not the first answer's body served again (under any status):
 * a new write, charged. The first answer's body again is a replay, free: no charge is then
 * waited for (LEDGER_LAG_MS) that will not come.
 */
function newWrite(ex: Exchange, firstBody: unknown): boolean {
  return is2xx(ex) && canonical(ex.response?.json) !== canonical(firstBody);
}

/** A keyed submission repeated with its key and input (free): the stored answer, whole (IDEM-002). */
async function resubmit(r: Runner, op: KeyHandle, rec: ModelOpKey, when: string): Promise<void> {
  const ex = await send(r, { method: 'POST', path: '/operations', key: op, body: rec.body, idempotencyKey: rec.key });
  r.replays++;
  r.ctx.judged('IDEM-002');
  const res = ex.response;
  if (res && res.status === rec.answer.status && sameJson(res.json, rec.answer.json, res.text, rec.answer.text)) return;
  if (newWrite(ex, rec.answer.json)) r.billed.push(ex);
  fail(
    'IDEM-002',
    `a catalog submission repeated with its Idempotency-Key and input (${when}) did not return the stored answer`,
    `${rec.answer.status} ${rec.answer.text.slice(0, 400)}`,
    answer(ex),
    ex,
  );
}

/** A poll of one receipt (free): 2xx within the bound, naming that receipt where it names one (OPS-001). */
async function poll(r: Runner, op: KeyHandle, id: string): Promise<void> {
  const path = `/operations/${encodeURIComponent(id)}`;
  const polled = await pollUntil(r.ctx, op, path, is2xx, RECEIPT_BOUND_MS);
  r.log.push(...polled.polls);
  r.ctx.judged('OPS-001');
  r.looked.add('OPS-001');
  if (!polled.satisfied) fail('OPS-001', `the receipt ${id} did not answer 2xx at GET ${path}`, '2xx with the receipt', answer(polled.last), polled.last);
  const named = idOf(polled.last.response?.json);
  if (named !== undefined && lower(named) !== lower(id)) fail('OPS-001', `GET ${path} answered another receipt (${named})`, `the receipt ${id}`, answer(polled.last), polled.last);
}

/**
 * A walk of GET /operations (free): every receipt the sequence was given is listed (OPS-014,
 * allowing an index the suite's bound to catch up), none twice along the cursors (PAGE-006), a
 * page's uuids ascending (PAGE-005).
 */
async function receipts(r: Runner, m: Model, op: KeyHandle, limit: number | undefined): Promise<void> {
  const deadline = Date.now() + waitBound(r.ctx.run, RECEIPT_BOUND_MS);
  for (;;) {
    const startedAt = Date.now();
    const listed: string[] = [];
    let cursor: string | undefined;
    let last: Exchange | undefined;
    let cut = false;
    let uuids = true;
    for (let page = 0; ; page++) {
      if (page === RECEIPT_PAGES) {
        cut = true;
        break;
      }
      const query: Record<string, string | number> = {};
      if (limit !== undefined) query.limit = limit;
      if (cursor !== undefined) query.cursor = cursor;
      const ex = await send(r, { method: 'GET', path: '/operations', key: op, query });
      last = ex;
      if (!is2xx(ex)) fail('OPS-014', 'GET /operations did not answer 2xx', '2xx with the receipts', answer(ex), ex);
      const ids = listedReceiptIds(ex);
      const body = ex.response?.json;
      if (isObject(body) && Array.isArray(body.items) && ids.every(isUuid)) {
        r.ctx.judged('PAGE-005');
        const back = ids.findIndex((id, i) => i > 0 && compareIds(ids[i - 1]!, id) >= 0);
        if (back > 0) fail('PAGE-005', `a page of GET /operations lists ${ids[back]} after ${ids[back - 1]}`, 'ids strictly ascending', brief(ids), ex);
      } else uuids = false;
      listed.push(...ids.map(lower));
      if (page > 0) r.ctx.judged('PAGE-006');
      const next = isObject(body) && typeof body.nextCursor === 'string' ? body.nextCursor : undefined;
      if (next === undefined || next === cursor) break;
      cursor = next;
    }
    const ex = last!;
    // A walk cut at its page bound is judged up to its last id, where the ids are uuids in order.
    if (cut && !uuids) return;
    const reach = cut ? listed.at(-1) : undefined;
    const inReach = (id: string): boolean => reach === undefined || compareIds(lower(id), reach) <= 0;
    if (new Set(listed).size !== listed.length) {
      fail('PAGE-006', 'a walk of GET /operations listed a receipt more than once', 'each receipt once', brief(listed), ex);
    }
    const missing = m.receipts.filter((id) => inReach(id) && !listed.includes(lower(id)));
    if (missing.length > 0 && startedAt < deadline) {
      await new Promise((res) => setTimeout(res, Math.max(0, Math.min(250, deadline - Date.now()))));
      continue;
    }
    if (m.receipts.length > 0) {
      r.ctx.judged('OPS-014');
      r.looked.add('OPS-014');
    }
    if (missing.length > 0)
      fail('OPS-014', `GET /operations does not list ${missing.length} receipt(s) the sequence was given`, `receipts ${brief(missing)}`, `${listed.length}: ${brief(listed)}`, ex);
    return;
  }
}

/** One page (list) or a whole walk (walk): this sequence's items must be what the model shows. */
async function listing(r: Runner, m: Model, c: Extract<Cmd, { kind: 'list' | 'walk' }>): Promise<void> {
  await ownListed(r, m, c);
}

/** {@link listing}, returning the sequence's own items as listed. */
async function ownListed(r: Runner, m: Model, c: Extract<Cmd, { kind: 'list' | 'walk' }>): Promise<Record<string, unknown>[]> {
  const want = visibleDefs(m, c.includeArchived);
  const own: Record<string, unknown>[] = [];
  let reach: string | undefined;
  let cursor: string | undefined;
  let last: Exchange | undefined;
  let pages = 0;
  for (let page = 0; page < WALK_PAGES; page++) {
    pages++;
    const query: Record<string, string | number> = { limit: c.limit ?? 200 };
    if (c.includeArchived) query.includeArchived = 'true';
    if (cursor !== undefined) query.cursor = cursor;
    const ex = await send(r, { method: 'GET', path: '/definitions', key: r.key, query });
    last = ex;
    const body = ex.response?.json;
    if (!is2xx(ex) || !isObject(body) || !Array.isArray(body.items))
      fail('PAGE-006', 'a listing of definitions did not answer the collection envelope', '2xx with items and nextCursor', answer(ex), ex);
    r.billed.push(ex);
    const items = body.items.filter(isObject);
    // Within a page, ascending by id (part 8).
    const ids = items.map((i) => String(i.id));
    r.ctx.judged('PAGE-005');
    const back = ids.findIndex((id, i) => i > 0 && compareIds(ids[i - 1]!, id) >= 0);
    if (back > 0) fail('PAGE-005', `a page of the definition listing lists ${ids[back]} after ${ids[back - 1]}`, 'ids strictly ascending', brief(ids), ex);
    own.push(...items.filter((i) => typeof i.name === 'string' && i.name.startsWith(r.prefix)));
    const next = typeof body.nextCursor === 'string' ? body.nextCursor : undefined;
    // A page with more after it reaches up to its last item (ascending by id, part 8): a single
    // page, or the last of a walk cut at its bound.
    if (next !== undefined && items.length > 0) reach = String(items.at(-1)!.id);
    if (c.kind === 'list' || next === undefined) {
      if (next === undefined) reach = undefined;
      break;
    }
    cursor = next;
  }
  const ex = last!;
  const expected = want.filter((d) => reach === undefined || compareIds(d.id, reach) <= 0);
  const shownIds = own.map((i) => String(i.id).toLowerCase());
  const wantIds = expected.map((d) => d.id.toLowerCase()).sort(compareIds);
  // Every item exactly once along the cursors followed (PAGE-006: only where a walk followed one;
  // a walk whose first page ends it is no continuation).
  // A walk whose first page ends it (null) followed the cursors to the end too: it is judged for
  // listing each item once along them all the same.
  if (c.kind === 'walk') r.ctx.judged('PAGE-006');
  if (new Set(shownIds).size !== shownIds.length) fail('PAGE-006', `a walk of the definitions listed one of this sequence's definitions more than once`, 'each once', brief(shownIds), ex);
  // Looked at: the listing shows what the writes made (DEF-029); an archived definition in its
  // range left out or listed as includeArchived says (DEF-015); no second definition from a
  // replay made before it (IDEM-003).
  r.ctx.judged('DEF-029');
  if (m.defs.some((d) => d.archived && (reach === undefined || compareIds(d.id, reach) <= 0))) {
    r.ctx.judged('DEF-015');
    r.looked.add('DEF-015');
  }
  if (r.replays > 0) {
    r.ctx.judged('IDEM-003');
    r.looked.add('IDEM-003');
  }
  if (canonical([...shownIds].sort(compareIds)) !== canonical(wantIds)) {
    const missing = wantIds.filter((id) => !shownIds.includes(id));
    const extra = shownIds.filter((id) => !wantIds.includes(id));
    const archivedShown = extra.filter((id) => m.defs.some((d) => d.id.toLowerCase() === id && d.archived));
    // Archived ones shown where they are hidden: DEF-015; one more, made by a replay or a reused
    // key: IDEM-003; else the listing does not show what the writes made: DEF-029.
    // Items missing, none extra, along cursors a walk followed: the continuation skipped them (PAGE-006).
    const skipped = c.kind === 'walk' && pages > 1 && missing.length > 0 && extra.length === 0;
    fail(
      archivedShown.length > 0 ? 'DEF-015' : skipped ? 'PAGE-006' : extra.length > 0 && m.keys.length > 0 ? 'IDEM-003' : 'DEF-029',
      `the listing (${c.kind === 'walk' ? 'every page' : `limit=${c.limit}`}${c.includeArchived ? ', includeArchived' : ''}) of this sequence's definitions is not what its calls made: ${missing.length} missing, ${extra.length} not expected`,
      `${wantIds.length} definitions: ${brief(wantIds)}`,
      `${shownIds.length}: ${brief(shownIds)}`,
      ex,
    );
  }
  for (const item of own) {
    const def = m.defs.find((d) => d.id.toLowerCase() === String(item.id).toLowerCase())!;
    // A field no PATCH has named since the create, listed otherwise: the stored copy is not what the create answered (DEF-003).
    const unwritten = Object.keys(def.fields).filter((f) => !def.written.has(f));
    const fromCreate = (diff: readonly string[]): boolean => diff.length > 0 && diff.every((d) => unwritten.some((f) => d.startsWith(`${f} is`)));
    expectModel(r, m, (diff) => (fromCreate(diff) ? 'DEF-003' : 'DEF-029'), 'a listed definition', def, item, ex);
  }
  return own;
}
