/**
 * The commands of a sequence, as plain data (so a sequence prints as numbered steps, shrinks by
 * dropping steps and simplifying each, and replays from its seed and path), and what each does:
 * `plan` says whether it runs in the model's state and what it costs on the reference (for the
 * credit plan, plan.ts), `apply` sends it, compares the answer with the model where the
 * document fixes it, and moves the model. A command whose target does not exist in the model's
 * state (an archive with no live definition) is skipped, on the target and in the plan alike.
 */
import fc from 'fast-check';
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding } from '../../src/engine/finding.ts';
import { judged } from '../../src/engine/judged.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { documentedBody } from '../_shared/documented.ts';
import { brief, canonical, compareIds, isObject } from '../_shared/json.ts';
import { is2xx, MODULE_KEYS } from '../_shared/definitions.ts';
import { differences, liveDefs, liveValues, valuesFromAnswer, visibleDefs, type Model, type ModelDef } from './model.ts';

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
  | { kind: 'grant'; call: 'list' | 'create' | 'patch' };

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
    case 'conflict':
      if (c.change === 'path') return m.patchKeys.length > 0 && liveDefs(m).length > 1 ? { skip: false } : { skip: true };
      return m.keys.length === 0 ? { skip: true } : { skip: false };
    default:
      return { skip: false };
  }
}

/** Everything a command needs to run against the target. */
export interface Runner {
  ctx: CheckContext;
  key: KeyHandle;
  /** Names of this sequence's definitions start with it: how its own items are told apart in a listing. */
  prefix: string;
  /** A fresh Idempotency-Key. */
  newKey(): string;
  /** Billed calls answered 2xx that are not replays: what the ledger must have charged. */
  billed: Exchange[];
  /** Replays answered: none may be charged. */
  replays: number;
  /** Every exchange of the sequence, in order (evidence). */
  log: Exchange[];
  step: number;
  /** Clauses judged only when a sequence happens to set them up (shared by the check's sequences). */
  looked: Set<string>;
}

const REASON = 'conformance sequence';

/**
 * How a PATCH that added values and lost others is reported: DEF-018's finding (addEnumValues
 * adds), which the check also reports as DEF-028's (a PATCH leaves what it does not name).
 */
export const VALUES_LOST = 'the PATCH that added enum values lost values it did not name';

function fail(clause: string, message: string, expected: string, received: string, ex: Exchange): never {
  throw new Finding({ clause, message, expected, received, exchange: ex });
}

const answer = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind})`);

async function send(r: Runner, req: Parameters<CheckContext['api']['send']>[0]): Promise<Exchange> {
  const ex = await r.ctx.api.send(req);
  r.log.push(ex);
  return ex;
}

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
      if (c.change === 'path') {
        // A keyed PATCH's very body, under its key, on another live definition: another input (4.1).
        const rec = m.patchKeys[c.which % m.patchKeys.length]!;
        const other = pick(
          liveDefs(m).filter((d) => d.id !== rec.id),
          c.which,
        )!;
        what = "a keyed PATCH's key and body sent to another definition";
        ex = await send(r, { method: 'PATCH', path: `/definitions/${other.id}`, key: k, body: rec.body, idempotencyKey: rec.key });
      } else {
        const rec = m.keys[c.which % m.keys.length]!;
        // Another name, or other entity kinds (an array: the whole input counts).
        const kinds = (rec.body.entityKinds as string[]).length < KINDS.length ? [...KINDS] : [KINDS[0]];
        const body = c.change === 'kinds' ? { ...rec.body, entityKinds: kinds } : { ...rec.body, name: `${r.prefix}${r.step}c` };
        what = `a create's key reused with ${c.change === 'kinds' ? 'other entity kinds' : 'another name'}`;
        ex = await send(r, { method: 'POST', path: '/definitions', key: k, body, idempotencyKey: rec.key });
      }
      r.ctx.judged('IDEM-004');
      if (ex.response?.status !== 409) {
        if (is2xx(ex)) r.billed.push(ex);
        fail('IDEM-004', `an Idempotency-Key reused with another input (${what}) was not answered 409`, '409 CONFLICT', answer(ex), ex);
      }
      return;
    }
  }
}

/**
 * A scope taken away between calls (control protocol): the next call that needs it is refused
 * with 403 (SCOPE-001, SCOPE-002 or SCOPE-003: grants are read on every request) and changes
 * nothing (SCOPE-012: a walk after the scope is given back must still show what the model
 * holds). A walk before it makes sure what differs afterwards is the refused call's doing.
 */
async function grant(r: Runner, m: Model, c: Extract<Cmd, { kind: 'grant' }>): Promise<void> {
  const control = r.ctx.run.hasControl ? r.ctx.control : undefined;
  const keyId = r.key.keyId;
  if (!control || keyId === undefined) return;
  await listing(r, m, { kind: 'walk', includeArchived: true });
  // The scope the call needs; a PATCH with no live definition to name is a create.
  const drop = c.call === 'list' ? 'graph:read' : 'admin';
  const target = c.call === 'patch' ? pick(liveDefs(m), r.step) : undefined;
  const clause = c.call === 'list' ? 'SCOPE-001' : target ? 'SCOPE-003' : 'SCOPE-002';
  await control.setKeyScopes(
    keyId,
    r.key.scopes.filter((s) => s !== drop),
  );
  let ex: Exchange;
  try {
    const reason = `${REASON} ${r.step} without ${drop}`;
    ex =
      c.call === 'list'
        ? await send(r, { method: 'GET', path: '/definitions', key: r.key, query: { limit: 200 } })
        : target
          ? await send(r, { method: 'PATCH', path: `/definitions/${target.id}`, key: r.key, body: { reason, description: 'written without the admin scope' } })
          : await send(r, {
              method: 'POST',
              path: '/definitions',
              key: r.key,
              body: { ...createBody(r, { kind: 'create', module: MODULE_KEYS[0]!, kinds: ['account'], cardinality: 'exclusive', labels: ['Alpha'], keyed: false }), reason },
            });
  } finally {
    await control.setKeyScopes(keyId, r.key.scopes);
  }
  r.ctx.judged(clause);
  r.looked.add(clause);
  if (ex.response?.status !== 403) {
    if (is2xx(ex)) r.billed.push(ex);
    // A write let through has also changed what it was sent to.
    if (is2xx(ex) && drop === 'admin') {
      r.ctx.judged('SCOPE-012');
      r.ctx.softFail({
        clause: 'SCOPE-012',
        message: `with admin taken from the key just before, a ${target ? 'PATCH' : 'create'} was carried out`,
        expected: '403 FORBIDDEN and nothing changed',
        received: answer(ex),
        exchange: ex,
      });
    }
    fail(clause, `with ${drop} taken from the key just before, the call that needs it was not refused`, '403 FORBIDDEN', answer(ex), ex);
  }
  r.looked.add('SCOPE-012');
  try {
    await listing(r, m, { kind: 'walk', includeArchived: true });
    r.ctx.judged('SCOPE-012');
  } catch (e) {
    if (!(e instanceof Finding)) throw e;
    throw new Finding({ ...e.evidence, clause: 'SCOPE-012', message: `after a call refused for a missing scope (${drop}), ${e.evidence.message}` });
  }
}

/** One page (list) or a whole walk (walk): this sequence's items must be what the model shows. */
async function listing(r: Runner, m: Model, c: Extract<Cmd, { kind: 'list' | 'walk' }>): Promise<void> {
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
}
