/**
 * The sequences suite: random sequences of calls checked against a model of what the document
 * promises (model.ts), step by step, and a failure shrunk to the shortest sequence that still
 * fails. A sequence creates, PATCHes, archives and merges definitions, lists them a page or a
 * walk at a time, replays keyed creates and reuses their keys with other input, submits catalog
 * operations, polls and lists their receipts, replays them and reuses their keys, and (with the
 * test-control protocol) takes a scope, the definitions capability or another key away between
 * two calls (commands.ts);
 * after every step the answer is what the model says wherever the document fixes it, and at the
 * end of a sequence, with the usage ledger, the sequence was charged one credit per successful
 * billed call and nothing for its replays. Scripted checks find the sequences someone thought
 * of; these find the ones nobody did (a listing that lags a write, a value a later write drops,
 * a key forgotten after other calls).
 */
import { randomUUID } from 'node:crypto';
import type fc from 'fast-check';
import type { CheckContext, CheckDef, CreditPool, Endpoints, KeyHandle, SuiteDef } from '../../src/engine/check.ts';
import { Finding } from '../../src/engine/finding.ts';
import { judged, judgedCount } from '../../src/engine/judged.ts';
import type { LedgerEntry, Measured } from '../../src/engine/ledger.ts';
import { checkProperty } from '../../src/engine/property.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { apply, describe, MAX_COMMANDS, MAX_OPS_COMMANDS, opsSequenceArb, resolve, sequenceArb, VALUES_LOST, WALK_PAGES, type Cmd, type Runner } from './commands.ts';
import { emptyModel, liveDefs, type Model } from './model.ts';
import { drawnSequenceCredits } from './plan.ts';
import { interleavings } from './interleavings.ts';
import { walkDuringWritesCheck } from './walk-during-writes.ts';
import { isComputePoll, isMeteredCall } from './live-reads.ts';
import { is2xx } from '../_shared/definitions.ts';
import { scopeDuringSubmission } from './scope-during-submission.ts';
import { makeAccount } from '../_shared/ops-fixtures.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';

const ADMIN = 'admin';
/** The cast member that submits catalog operations (graph:write), shared with the interleavings. */
const OPERATOR = 'interleaver';
/** Sequences per run, each up to MAX_COMMANDS steps (the run's --runs bounds it too; few, in a workspace others may share). */
const SEQUENCES = 12;
const sequencesFor = (numRuns: number): number => Math.max(1, Math.min(numRuns, SEQUENCES));
/**
 * Sequences in a workspace others share (keys-only): fewer, so that the definitions they make
 * and the time they take weigh less on the other suites' bounded walks there. The plan counts
 * the full number: in a shared workspace it is an upper bound for this check.
 */
const SHARED_SEQUENCES = 4;
/** Exchanges of a failing sequence shown beside its finding (a shrunk sequence has far fewer). */
const MAX_CONTEXT = 60;
/**
 * Bytes of request and response bodies the context of a failing sequence carries: its last
 * exchanges, at most MAX_CONTEXT of them, within this many bytes. Ten parts failing at once on
 * a hostile target would otherwise put 600 exchanges in the report; the report's scenario of
 * the check keeps every request of it anyway.
 */
const MAX_CONTEXT_BYTES = 64 * 1024;

/** The last exchanges of `log` (`shown` left out) within MAX_CONTEXT and MAX_CONTEXT_BYTES, in order. */
function contextOf(log: readonly Exchange[], shown?: Exchange): Exchange[] {
  const out: Exchange[] = [];
  let bytes = 0;
  for (let i = log.length - 1; i >= 0 && out.length < MAX_CONTEXT; i--) {
    const ex = log[i]!;
    if (ex === shown) continue;
    bytes += ex.request.url.length + (ex.request.body?.length ?? 0) + (ex.response?.text.length ?? 0);
    if (bytes > MAX_CONTEXT_BYTES) break;
    out.push(ex);
  }
  return out.reverse();
}

/** Predicate calls while shrinking a failure (each a sequence). */
const MAX_SHRINK_CALLS = 25;
/**
 * Time for shrinking a failure: a sequence that fails by waiting out a bound (a receipt never
 * readable, a charge never recorded) pays that wait at every try, and 25 tries of it took 30 to
 * 50 s. Past it the smallest failing sequence so far is reported, marked not minimal.
 */
const MAX_SHRINK_MS = 12_000;

/**
 * Judged by a step that takes a scope away (commands.ts grant): the list's, the create's and the
 * PATCH's refusal, the refusal changing nothing, the grant read on the request, taking it away
 * undoing nothing, and GET /capabilities still answering the key without graph:read.
 */
const GRANT_CLAUSES = ['SCOPE-001', 'SCOPE-002', 'SCOPE-003', 'SCOPE-012', 'GRANT-002', 'GRANT-003', 'VER-003'];

/** The kinds of step that judge each clause, to say which were judged at all in a run. */
const JUDGED_BY: Readonly<Record<string, readonly Cmd['kind'][]>> = {
  'DEF-017': ['patch'],
  'DEF-018': ['patch'],
  'DEF-019': ['patch'],
  'DEF-028': ['patch'],
  'DEF-013': ['archive'],
  'DEF-022': ['merge'],
  'DEF-015': ['list'],
  'PAGE-006': ['walk'],
  'IDEM-002': ['replay'],
  'IDEM-003': ['replay'],
  'BILL-010': ['replay'],
  'IDEM-004': ['conflict'],
};

let sequenceCounter = 0;

/** The kinds of step that use the sequence's account (made through the test-control protocol). */
const NEEDS_ACCOUNT: ReadonlySet<Cmd['kind']> = new Set(['read', 'role', 'withhold', 'submit', 'poll', 'receipts', 'resubmit', 'reuse']);

/** The model's live definitions archived (clean-up of a sequence, whatever happened), together. */
async function archiveLive(ctx: CheckContext, key: KeyHandle, m: Model): Promise<void> {
  await inParallel(liveDefs(m), CHECK_PARALLEL, async (d) => {
    await ctx.api.send({ method: 'POST', path: `/definitions/${d.id}/archive`, key, body: { reason: 'conformance run clean-up' } });
    d.archived = true;
  });
}

/** A sequence's charges, measured and judged once the property has run (their waits overlap). */
interface PendingCharge {
  measured: Measured<void>;
  r: Runner;
  steps: string;
}

/** Runs one sequence from an empty model; a finding names its step and the whole sequence. */
/** What every sequence of one check shares: its keys and the clauses looked at. */
interface Shared {
  key: KeyHandle;
  operator: KeyHandle | undefined;
  looked: Set<string>;
}

async function runSequence(ctx: CheckContext, sh: Shared, cmds: readonly Cmd[], ran: Set<Cmd['kind']>, charges: PendingCharge[]): Promise<void> {
  const n = ++sequenceCounter;
  const m = emptyModel();
  const { key, looked } = sh;
  const r: Runner = {
    ctx,
    key,
    prefix: `${ctx.run.prefix}sq${n}-`,
    newKey: () => `${ctx.run.prefix}sq${n}-${randomUUID()}`,
    billed: [],
    metered: [],
    shapes: new Map(),
    replays: 0,
    log: [],
    step: 0,
    looked,
    ...(sh.operator ? { operator: sh.operator } : {}),
  };
  // The account a later step edits or reads is made while the first steps run (two control
  // calls one after the other: against a distant target, two round trips off the sequence).
  if (ctx.run.hasControl && cmds.some((c) => NEEDS_ACCOUNT.has(c.kind))) {
    r.accountSoon = makeAccount(ctx, `sq-${r.prefix}`);
    r.accountSoon.catch(() => undefined);
  }
  const steps = cmds.map((c, i) => `${i + 1}. ${describe(c)}`).join('\n');
  const play = async (): Promise<void> => {
    for (const [i, c] of cmds.entries()) {
      r.step = i + 1;
      const runs = !resolve(m, c).skip;
      try {
        await apply(r, m, c);
      } catch (e) {
        if (!(e instanceof Finding)) throw e;
        // The last exchanges of the sequence beside the one shown (contextOf), and its reproduction from its first.
        const context = contextOf(r.log, e.evidence.exchange);
        // The steps up to the one that failed: the ones after it played no part.
        const upTo = cmds
          .slice(0, i + 1)
          .map((x, j) => `${j + 1}. ${describe(x)}`)
          .join('\n');
        throw new Finding({ ...e.evidence, message: `step ${i + 1} of ${cmds.length} (${c.kind}): ${e.evidence.message}`, scenario: upTo, context, ...(r.log[0] ? { from: r.log[0].id } : {}) });
      }
      if (runs) ran.add(c.kind);
    }
  };
  let done = false;
  try {
    if (!ctx.run.hasControl) return await play();
    // What the sequence's own calls were charged, its entries attributed to them (ledger.ts),
    // judged after the property: a lagging ledger is then waited for once, not per sequence.
    const measured = await ctx.ledger.measure(play, {
      priced: () => r.log,
      atLeast: () => r.billed.length + r.metered.length,
      owes: (ex) => (r.billed.includes(ex) || r.metered.includes(ex) ? 1 : 0),
      defer: true,
    });
    done = true;
    charges.push({ measured, r, steps });
  } finally {
    await archiveLive(ctx, key, m);
    // A sequence stopped by a finding was not measured: its charges must land on its own calls
    // before the next sequence (a shrinking step) is measured, or a lagging ledger puts them there.
    if (!done && ctx.run.hasControl) await ctx.ledger.chargesLanded(0, r.billed);
  }
}

/** The sequence was charged one credit per successful billed call, nothing for its replays. */
function judgeLedger(r: Runner, charged: number, entries: readonly LedgerEntry[], steps: string, waited: string | undefined): void {
  judged('BILL-001');
  if (r.replays > 0) judged('BILL-010');
  // Refusals other than 401 and 429 (their clauses are the auth and errors suites') cost nothing.
  const refusal = (status: number): boolean => status >= 400 && status < 500 && status !== 401 && status !== 429;
  if (r.log.some((ex) => refusal(ex.response?.status ?? 0))) judged('BILL-006');
  const last: Exchange | undefined = r.log.at(-1);
  const refusedCharged = entries.filter((e) => refusal(e.status) && e.credits > 0);
  if (refusedCharged.length > 0)
    throw new Finding({
      clause: 'BILL-006',
      message: `the sequence's refused calls were charged: ${refusedCharged.map((e) => `${e.method} ${e.path} ${e.status} (${e.credits})`).join(', ')}`,
      expected: 'refusals free',
      received: `${charged} credits for ${r.billed.length} successful billed calls`,
      scenario: steps,
      ...(last ? { exchange: last, context: contextOf(r.log.slice(0, -1)) } : {}),
      ...(r.log[0] ? { from: r.log[0].id } : {}),
    });
  // A poll of a compute run is free (BILL-005).
  if (r.log.some((ex) => isComputePoll(ex.request.method, new URL(ex.request.url).pathname) && is2xx(ex))) {
    judged('BILL-005');
    r.looked.add('BILL-005');
    const polls = entries.filter((e) => isComputePoll(e.method, e.path) && e.credits > 0);
    if (polls.length > 0)
      throw new Finding({
        clause: 'BILL-005',
        message: `polls of the sequence's compute runs were charged: ${polls.map((e) => `${e.method} ${e.path} (${e.credits})`).join(', ')}`,
        expected: 'GET /compute/runs/{id} free',
        received: `${polls.reduce((t, e) => t + e.credits, 0)} credits`,
        scenario: steps,
        ...(last ? { exchange: last, context: contextOf(r.log.slice(0, -1)) } : {}),
        ...(r.log[0] ? { from: r.log[0].id } : {}),
      });
  }
  // Live CRM reads and compute runs owe at least their credit; what their work may add on top is
  // not shown (part 8 rule 3): their entries are left out of the exact count, and must cover them.
  const meteredCharged = entries.filter((e) => isMeteredCall(e.method, e.path) && !refusal(e.status)).reduce((t, e) => t + e.credits, 0);
  if (r.metered.length > 0 && meteredCharged < r.metered.length)
    throw new Finding({
      clause: 'BILL-001',
      message: `the sequence's ${r.metered.length} accepted live CRM reads and compute runs were charged ${meteredCharged} credits`,
      expected: `at least ${r.metered.length} credits`,
      received: `${meteredCharged} credits${waited ? ` (${waited})` : ''}`,
      scenario: steps,
      ...(last ? { exchange: last, context: contextOf(r.log.slice(0, -1)) } : {}),
      ...(r.log[0] ? { from: r.log[0].id } : {}),
    });
  charged -= meteredCharged;
  if (charged === r.billed.length) return;
  // More than owed: a replay charged (BILL-010) only where the surplus can be its (a replay
  // shares POST /definitions or POST /operations with what it repeats); any other surplus, or
  // too little, is BILL-001's.
  const isCreate = (method: string, path: string): boolean => method.toUpperCase() === 'POST' && /\/(definitions|operations)$/.test(path.split('?')[0]!);
  const owedElsewhere = r.billed.filter((ex) => !isCreate(ex.request.method, new URL(ex.request.url).pathname)).length;
  const chargedElsewhere = entries.filter((e) => !isCreate(e.method, e.path) && !isMeteredCall(e.method, e.path)).reduce((t, e) => t + e.credits, 0);
  const surplusElsewhere = chargedElsewhere > owedElsewhere;
  throw new Finding({
    clause: charged > r.billed.length && r.replays > 0 && !surplusElsewhere ? 'BILL-010' : 'BILL-001',
    message: `the sequence was charged ${charged} credits for ${r.billed.length} successful billed calls${r.replays > 0 ? ` and ${r.replays} replays` : ''}${r.metered.length > 0 ? ' (besides its live CRM reads and compute runs)' : ''}`,
    expected: `${r.billed.length} credits`,
    received: `${charged} credits${waited ? ` (${waited})` : ''}`,
    scenario: steps,
    ...(last ? { exchange: last, context: contextOf(r.log.slice(0, -1)) } : {}),
    ...(r.log[0] ? { from: r.log[0].id } : {}),
  });
}

/**
 * The sequences are played by PARTS checks, each in a lane (and a workspace) of its own, side by
 * side: part p plays the drawn sequences whose index is p modulo PARTS, all parts drawing from
 * the run's seed, so together they play exactly the sequences one check would. A target far
 * away then waits for a sixth of the sequences' round trips, not for all of them in a row
 * (three parts left the first the run's longest lane 100 ms away: 22.8 s of a 27 s run).
 */
const PARTS = 6;

/**
 * Clauses only some sequences judge, with what none of a part's did: a part plays one or two
 * sequences, which may not hold a page of two ids, a listing or archive answer to compare with
 * the model, or a refusal the ledger is read for.
 */
const SEEN_ONLY: Readonly<Record<string, string>> = {
  'PAGE-005': 'no page of a walk held two ids or more',
  'DEF-029': 'no listing or archive answer showed a definition to compare with the model',
  'BILL-006': 'no step was refused',
};

/** How one model check draws and plays its sequences. */
interface Play {
  arbitrary: fc.Arbitrary<Cmd[]>;
  /** Sequences drawn in all (the check plays those `played` picks). */
  sequences: number;
  played: (cmds: Cmd[], index: number) => boolean;
  /** The clause each kind of step judges. */
  judgedBy: Readonly<Record<string, readonly Cmd['kind'][]>>;
  /** Clauses judged only with the test-control protocol, by a step that sets them up (their `looked`). */
  controlled: readonly string[];
  /** Clauses judged only by a step of one variety (a read of one kind, a keyed archive): their `looked`. */
  situational?: readonly string[];
  /** Clauses only some sequences judge, with what none of this check's did when it judged them zero times. */
  seenOnly?: Readonly<Record<string, string>>;
  /** The part, in words ("this part", "this check"). */
  who: string;
  /** The check the parts together make up (Family.id): they share one allowance of shrinking in a run. */
  family: string;
}

/**
 * The shrinking allowance of each family of parts, per run: the parts of one check share it,
 * as one check playing all their sequences would have it (and the credit plan counts it once,
 * as a creditPool). Keyed by the run's context, the same object for every check of a run.
 */
const shrinkPools = new WeakMap<object, Map<string, { left: number }>>();
function shrinkPoolOf(ctx: CheckContext, family: string): { left: number } {
  let pools = shrinkPools.get(ctx.run);
  if (!pools) shrinkPools.set(ctx.run, (pools = new Map()));
  let pool = pools.get(family);
  if (!pool) pools.set(family, (pool = { left: MAX_SHRINK_CALLS }));
  return pool;
}

/**
 * One model check played in parts side by side (PARTS), each a check in a lane of its own:
 * part p plays the drawn sequences whose index is p modulo the parts, so together they play
 * exactly the sequences one check would, with one shrinking allowance (shrinkPoolOf) and one
 * ceiling in the credit plan (a creditPool) between them.
 */
interface Family {
  /** The first part's id (part p > 0: `${id}-${p + 1}`); also names the shared allowance. */
  id: string;
  /** What the check verifies; each part's title adds its place. */
  title: string;
  clauses: readonly string[];
  parts: number;
  /** Sequences drawn in a run of --runs n. */
  sequencesFor: (numRuns: number) => number;
  /** The most one sequence may be charged. */
  sequenceCeiling: number;
  /** The one part that declares the endpoints (the seed decides which sequences reach them). */
  endpoints: { part: number; endpoints: Readonly<Record<string, Endpoints>> };
  play: Pick<Play, 'arbitrary' | 'judgedBy' | 'controlled' | 'situational'>;
}

/** The parts of a model check, as checks. */
function modelCheckParts(f: Family): CheckDef[] {
  const pool: CreditPool = { id: f.id, maxCredits: (numRuns) => (f.sequencesFor(numRuns) + MAX_SHRINK_CALLS) * f.sequenceCeiling };
  const played = (part: number) => (_: unknown, i: number) => i % f.parts === part;
  return Array.from({ length: f.parts }, (_, part) => ({
    id: part === 0 ? f.id : `${f.id}-${part + 1}`,
    title: `${f.title} (shrunk to the shortest failing sequence; part ${part + 1} of ${f.parts})`,
    clauses: [...f.clauses],
    ...(part === f.endpoints.part ? { endpoints: f.endpoints.endpoints } : {}),
    needs: { mutation: true },
    // The sequences of this part, played on the model and priced as the reference charges (plan.ts).
    credits: (numRuns, seed) =>
      drawnSequenceCredits(seed, f.sequencesFor(numRuns), f.play.arbitrary)
        .filter(played(part))
        .reduce((a, b) => a + b, 0),
    // Its own sequences and the whole shrinking allowance, which it may take alone.
    maxCredits: (numRuns) => (Math.ceil(f.sequencesFor(numRuns) / f.parts) + MAX_SHRINK_CALLS) * f.sequenceCeiling,
    creditPool: pool,
    run: (ctx) =>
      playModel(ctx, {
        ...f.play,
        sequences: f.sequencesFor(ctx.run.numRuns),
        played: played(part),
        // One or two sequences a part: what only some sequences show may not be in them.
        seenOnly: SEEN_ONLY,
        who: 'this part',
        family: f.id,
      }),
  }));
}

/** Plays a check's sequences as a property, then judges their charges and says what was not observable. */
async function playModel(ctx: CheckContext, p: Play): Promise<void> {
  const ran = new Set<Cmd['kind']>();
  const charges: PendingCharge[] = [];
  const looked = new Set<string>();
  const sh: Shared = { key: ctx.key(ADMIN), operator: ctx.run.hasControl ? ctx.key(OPERATOR) : undefined, looked };
  let drawn = 0;
  let shrinking = false;
  await checkProperty(ctx, {
    clause: 'DEF-029',
    // A PATCH that added values and lost others breaks DEF-028 as well as DEF-018 (commands.ts VALUES_LOST).
    onFinding: (e) => {
      if (e.clause === 'DEF-018' && e.message.includes(VALUES_LOST)) ctx.softFail({ ...e, clause: 'DEF-028' });
    },
    arbitrary: p.arbitrary,
    numRuns: ctx.run.sharedWorkspace ? Math.min(SHARED_SEQUENCES, p.sequences) : p.sequences,
    maxShrinkCalls: MAX_SHRINK_CALLS,
    maxShrinkMs: MAX_SHRINK_MS,
    shrinkPool: shrinkPoolOf(ctx, p.family),
    // A sequence another part plays holds here without a request; once one of this check's
    // fails, every call is a shrinking step of it and is played.
    predicate: async (cmds) => {
      if (!shrinking && !p.played(cmds, drawn++)) return;
      try {
        await runSequence(ctx, sh, cmds, ran, charges);
      } catch (e) {
        shrinking = true;
        throw e;
      }
    },
  });
  for (const c of charges) {
    const m = await c.measured.final();
    judgeLedger(c.r, m.delta, m.entries, c.steps, m.waited);
  }
  // Nothing judged is no pass: a clause whose kind of step never ran is not observable here.
  for (const [clause, kinds] of Object.entries(p.judgedBy))
    if (!kinds.some((k) => ran.has(k))) ctx.unobserved(clause, `no ${kinds.join(' or ')} step ran in the sequences ${p.who} drew from this seed`);
  // Clauses judged only when a step happens to do what they are about.
  if (p.judgedBy['DEF-018'] && ran.has('patch')) {
    if (!looked.has('DEF-017')) ctx.unobserved('DEF-017', `no PATCH in the sequences ${p.who} drew named a field`);
    if (!looked.has('DEF-018')) ctx.unobserved('DEF-018', `no PATCH in the sequences ${p.who} drew added enum values`);
    if (!looked.has('DEF-019')) ctx.unobserved('DEF-019', `no PATCH in the sequences ${p.who} drew archived an enum value`);
  }
  if (p.judgedBy['DEF-015'] && !looked.has('DEF-015')) ctx.unobserved('DEF-015', `no listing in the sequences ${p.who} drew had an archived definition in its range`);
  if (p.judgedBy['IDEM-003'] && !looked.has('IDEM-003')) ctx.unobserved('IDEM-003', `no listing in the sequences ${p.who} drew came after a replay`);
  for (const clause of p.controlled) {
    if (looked.has(clause)) continue;
    if (!ctx.run.hasControl) ctx.unobserved(clause, 'taking a scope, a capability or a key away between calls, and making the account a submission edits, need the test-control protocol');
    else if (!looked.has(clause)) ctx.unobserved(clause, `no step in the sequences ${p.who} drew set up what this clause is about`);
  }
  for (const clause of p.situational ?? []) if (!looked.has(clause)) ctx.unobserved(clause, `no step in the sequences ${p.who} drew was of the kind this clause is about`);
  for (const [clause, what] of Object.entries(p.seenOnly ?? {})) if (judgedCount(clause) === 0) ctx.unobserved(clause, `${what} in the sequences ${p.who} drew`);
  if (!ctx.run.hasControl) {
    ctx.unobserved('BILL-001', 'the usage ledger needs the test-control protocol');
    ctx.unobserved('BILL-010', 'the usage ledger needs the test-control protocol');
  }
}

/** The definitions sequences, played in PARTS parts. */
const definitionsModel: Family = {
  id: 'sequences/definitions-model',
  title: 'Random sequences of definition writes, listings, replays and reused keys leave what a model of the document says, step by step',
  clauses: [
    'DEF-003',
    'DEF-012',
    'DEF-013',
    'DEF-015',
    'DEF-017',
    'DEF-018',
    'DEF-019',
    'DEF-022',
    'DEF-028',
    'DEF-029',
    'PAGE-005',
    'PAGE-006',
    'IDEM-002',
    'IDEM-003',
    'IDEM-004',
    'BILL-001',
    'BILL-006',
    'BILL-010',
    ...GRANT_CLAUSES,
  ],
  parts: PARTS,
  sequencesFor,
  // Every step billed, every walk at its page bound, every definition archived at the end.
  sequenceCeiling: MAX_COMMANDS * (WALK_PAGES + 1),
  // Which endpoints a part's sequences reach depends on the seed: the first part declares them
  // (test/reference/credit-plan.test.ts holds it to the seed of the self-test).
  endpoints: { part: 0, endpoints: { 'DEF-029': ['createDefinition', 'updateDefinition', 'archiveDefinition', 'mergeDefinitionValue', 'listDefinitions'] } },
  play: { arbitrary: sequenceArb, judgedBy: JUDGED_BY, controlled: GRANT_CLAUSES },
};

/** Operations sequences per run (each up to MAX_OPS_COMMANDS steps; the run's --runs bounds it too). */
const OPS_SEQUENCES = 10;
const opsSequencesFor = (numRuns: number): number => Math.max(1, Math.min(numRuns, OPS_SEQUENCES));
/**
 * The operations sequences are played in parts side by side, each a check in a lane of its own
 * playing every OPS_PARTS-th drawn sequence, as the definitions sequences are (PARTS): every
 * step waits for the answer before it, so against a distant target one check playing all ten
 * took ten sequences' round trips one after another (495 requests: 28 s 25 ms away, 103 s 100 ms
 * away, the longest lane of the run by far).
 */
const OPS_PARTS = 10;

/** The kinds of step of an operations sequence that judge each clause. */
const OPS_JUDGED_BY: Readonly<Record<string, readonly Cmd['kind'][]>> = {
  'DEF-017': ['patch'],
  'DEF-018': ['patch'],
  'DEF-019': ['patch'],
  'DEF-028': ['patch'],
  'PAGE-006': ['walk'],
  'IDEM-002': ['resubmit', 'submit', 'again'],
  'IDEM-003': ['resubmit', 'submit', 'again'],
  'BILL-010': ['resubmit', 'submit', 'again'],
  'IDEM-004': ['reuse', 'again'],
  'SVC-005': ['read'],
  'DEF-006': ['invalid', 'edge'],
  'DEF-011': ['invalid'],
};
/** Judged by the live CRM reads and compute runs of an operations sequence (live-reads.ts), the submitting key's: all need the test-control protocol. */
const LIVE_READ_CLAUSES = ['SCOPE-006', 'SCOPE-009', 'ROLE-001', 'ROLE-002', 'OPS-012', 'BILL-005'];

/** Judged by the steps of an operations sequence that need the test-control protocol. */
const OPS_CONTROLLED = [...GRANT_CLAUSES, 'SCOPE-011', 'ERR-009', 'ERR-008', 'AUTH-007', 'ROLE-004', 'ROLE-005', 'OPS-001', 'OPS-006', 'OPS-014', 'DATA-001', 'DATA-002', ...LIVE_READ_CLAUSES];

/** The operations sequences, played in OPS_PARTS parts. */
const operationsModel: Family = {
  id: 'sequences/operations-model',
  title:
    'Random sequences of catalog submissions, polls and walks of their receipts, their replays and reused keys, live CRM reads, compute runs and their polls, and every kind of read, among definition writes and creates refused as invalid, with a scope, a role, the definitions capability or another key taken away between calls, leave what a model of the document says',
  clauses: [
    'OPS-001',
    'OPS-006',
    'OPS-014',
    'SCOPE-011',
    'ERR-008',
    'ROLE-004',
    'ROLE-005',
    'DATA-001',
    'DATA-002',
    'DATA-003',
    'TRACE-017',
    'ME-001',
    'SVC-005',
    'DEF-013',
    'DEF-022',
    'IDEM-002',
    'IDEM-003',
    'IDEM-004',
    'ERR-009',
    'AUTH-007',
    'DEF-003',
    'DEF-012',
    'DEF-017',
    'DEF-018',
    'DEF-019',
    'DEF-028',
    'DEF-029',
    'DEF-015',
    'PAGE-005',
    'PAGE-006',
    'DEF-006',
    'DEF-011',
    'BILL-001',
    'BILL-006',
    'BILL-010',
    ...LIVE_READ_CLAUSES,
    ...GRANT_CLAUSES,
  ],
  parts: OPS_PARTS,
  sequencesFor: opsSequencesFor,
  // Every step billed twice over (a revoked key's reads, a walk at its page bound).
  sequenceCeiling: MAX_OPS_COMMANDS * (WALK_PAGES + 2),
  // Which endpoints a part's sequence reaches depends on the seed: one part declares them, the
  // second (test/reference/credit-plan.test.ts holds it to the seed of the self-test; there the
  // first part's sequence never polls a receipt).
  endpoints: { part: 1, endpoints: { 'OPS-014': ['submitOperation', 'getOperation', 'listOperations'] } },
  play: {
    arbitrary: opsSequenceArb,
    judgedBy: OPS_JUDGED_BY,
    controlled: OPS_CONTROLLED,
    situational: ['ME-001', 'VER-003', 'DATA-003', 'TRACE-017', 'DEF-013', 'DEF-022', 'DEF-015'],
  },
};

const modelParts = modelCheckParts(definitionsModel);
const operationsParts = modelCheckParts(operationsModel);

export const sequencesSuite: SuiteDef = {
  name: 'sequences',
  title: 'Sequences: random series of calls against a model of the document, shrunk when they fail',
  cast: {
    admin: { role: 'owner', scopes: ['admin', 'graph:read'] },
    // The interleavings and the operations sequences submit catalog operations (graph.apply_update
    // needs graph:write; the agent preview a role change is shown with, research:run too).
    interleaver: { role: 'owner', scopes: ['admin', 'graph:read', 'graph:write', 'research:run', 'crm:read'] },
  },
  // The scope race before the interleavings: where the checks share one workspace (no lanes), the
  // interleavings' submissions, whose charges nobody waits for, would land in its measurement.
  checks: [...modelParts, ...operationsParts, scopeDuringSubmission, interleavings, walkDuringWritesCheck],
  // Each part (of the definitions and of the operations sequences) in a workspace of its own,
  // side by side; the interleavings and the scope race too (the race measures its charges: no
  // other check's submissions may land in its ledger late).
  lanes: [...modelParts.slice(1).map((c) => [c]), ...operationsParts.map((c) => [c]), [interleavings, walkDuringWritesCheck], [scopeDuringSubmission]],
};
