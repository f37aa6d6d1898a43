/**
 * The credit plan of the sequences: before anything is sent, the sequences the run's seed will
 * generate are drawn exactly as the property draws them (the same arbitrary, seed and run count,
 * through fast-check's own runner) and played on the model alone, each command priced as the
 * reference charges it: a create, PATCH or listing page one credit, an archive or a merge-value
 * two (each is read back with a walk), the definitions capability switched off or the
 * graph:read scope taken away two (a walk before and after the refused call), admin taken away
 * three (a walk right after it, too), a create refused as invalid one (the walk after it), a
 * create at every upper bound one, graph:write taken away nothing (a refused submission), the
 * reads five (the walks before and after them, a stored account and person, the relationships:
 * GET /me and GET /capabilities are free) or seven (a trace read and a walk after it, where there
 * is a definition), a rate limit or a role change
 * between calls nothing (refused calls), a keyed write repeated and reused two (the write and
 * the walk after it), another key revoked two (its one read
 * before, a walk after), a catalog submission one, a replay, a refused reuse, a poll and a walk
 * of the receipts nothing, a live CRM read two (the read, a walk after it) or three (crm:read
 * taken away for one read: a read again once it is back), a compute run one or three (the admin
 * scope, then the owner role, taken away for one call each: a run after the scope came back, one
 * under the admin role), a poll of a
 * compute run nothing (a poll, replay or reused key with no submission or run yet submits or
 * starts one first: one), and every definition still live at the end one more (its archive at
 * clean-up). A walk is one page on the reference, which ends a walk on its last
 * full page.
 */
import fc from 'fast-check';
import { EDGE_LABELS, resolve, sequenceArb, type Cmd } from './commands.ts';
import { emptyModel, liveDefs, liveValues, type Model, type ModelDef } from './model.ts';

/** Credits of one command that runs (see the module comment). */
const PRICE: Readonly<Record<Cmd['kind'], number>> = {
  create: 1,
  patch: 1,
  archive: 2,
  merge: 2,
  list: 1,
  walk: 1,
  replay: 0,
  conflict: 0,
  grant: 2,
  switch: 2,
  revoke: 2,
  submit: 1,
  poll: 0,
  receipts: 0,
  resubmit: 0,
  reuse: 0,
  invalid: 1,
  edge: 1,
  withhold: 0,
  read: 1,
  throttle: 0,
  role: 0,
  again: 2,
  query: 2,
  compute: 1,
  cpoll: 0,
};

/** A created definition as the plan plays it: its labels as stand-in slugs. */
const simulated = (step: number, labels: readonly string[]): ModelDef => ({
  id: `sim-${step}`,
  fields: {},
  entityKinds: [],
  reasons: { creation: '', latest: '' },
  archived: false,
  values: labels.map((label) => ({ label, slug: label, archived: false })),
  written: new Set(),
});

/** Plays `c` on the model with stand-in slugs: what a later command's target depends on. */
function simulate(m: Model, c: Cmd, step: number): number {
  const res = resolve(m, c);
  if (res.skip) return 0;
  switch (c.kind) {
    case 'create':
      m.defs.push(simulated(step, c.labels));
      if (c.keyed) m.keys.push({ key: `k${step}`, body: {}, status: 201, id: `sim-${step}`, answer: '' });
      break;
    case 'patch': {
      const def = res.def!;
      const live = liveValues(def);
      for (const i of c.archive) {
        const v = live.length === 0 ? undefined : live[i % live.length];
        if (v) v.archived = true;
      }
      def.values.push(...res.add!.map((label) => ({ label, slug: label, archived: false })));
      if (c.keyed) m.patchKeys.push({ key: `p${step}`, body: {}, id: def.id });
      break;
    }
    case 'archive':
      res.def!.archived = true;
      break;
    case 'merge': {
      const live = liveValues(res.def!);
      live[c.from % live.length]!.mergedAway = true;
      break;
    }
    case 'again':
      if (c.what === 'archive') res.def!.archived = true;
      if (c.what === 'merge') liveValues(res.def!)[0]!.mergedAway = true;
      break;
    case 'read':
      // A walk before and after the reads: GET /me and GET /capabilities free, a stored account, a
      // stored person and the relationships billed; a trace read and a walk after it, billed, where
      // the sequence has a definition.
      return 5 + (m.defs.length > 0 ? 2 : 0);
    case 'edge':
      m.defs.push(simulated(step, EDGE_LABELS));
      break;
    case 'query':
      // The read and the walk after it; with crm:read taken away, one more read after it came back.
      return c.withheld ? 3 : 2;
    case 'compute':
      m.computeRuns.push(`c${step}`);
      // The ladder: two more runs (the admin scope given back; under the admin role).
      return c.ladder ? 3 : 1;
    case 'poll':
    case 'resubmit':
    case 'reuse':
      // With no submission yet, one is made first (commands.ts operation).
      if (m.opKeys.length > 0) break;
      m.receipts.push(`r${step}`);
      m.opKeys.push({ key: `o${step}`, body: {}, receipt: `r${step}`, answer: { status: 201, json: null, text: '' } });
      return PRICE.submit;
    case 'cpoll':
      // With no run yet, one is started instead.
      if (m.computeRuns.length > 0) break;
      m.computeRuns.push(`c${step}`);
      return PRICE.compute;
    case 'submit':
      m.receipts.push(`r${step}`);
      m.opKeys.push({ key: `o${step}`, body: {}, receipt: `r${step}`, answer: { status: 201, json: null, text: '' } });
      break;
    case 'walk':
      // Pages of `limit` over the live definitions, the last one full or not (the reference ends a walk on its last item).
      if (c.limit !== undefined) return Math.max(1, Math.ceil(liveDefs(m).length / c.limit));
      break;
    default:
      break;
  }
  // Without admin the walk still works: a third walk, right after the scope is taken away.
  if (c.kind === 'grant' && c.call !== 'list') return PRICE.grant + 1;
  return PRICE[c.kind];
}

/** Credits of one sequence on the reference, its clean-up included. */
export function sequenceCredits(cmds: readonly Cmd[]): number {
  const m = emptyModel();
  const spent = cmds.reduce((n, c, i) => n + simulate(m, c, i), 0);
  return spent + liveDefs(m).length;
}

/** The sequences the property draws for `seed` and `runs` (fast-check's runner, every value passing). */
export function drawnSequences(seed: number, runs: number, arbitrary: fc.Arbitrary<Cmd[]> = sequenceArb): Cmd[][] {
  const drawn: Cmd[][] = [];
  fc.check(
    fc.property(arbitrary, (cmds) => {
      drawn.push(cmds);
      return true;
    }),
    { seed, numRuns: runs },
  );
  return drawn;
}

/** Each drawn sequence's credits, by arbitrary, then by seed and runs (see drawnSequenceCredits). */
const drawnCredits = new WeakMap<fc.Arbitrary<Cmd[]>, Map<string, readonly number[]>>();

/**
 * The credits of each sequence the property draws for `seed` and `runs`, in the order drawn.
 * Every part of a model check prices its share of the same draw (and the plan asks for its
 * exact credits and its ceiling): the draw is made once per arbitrary, seed and run count.
 */
export function drawnSequenceCredits(seed: number, runs: number, arbitrary: fc.Arbitrary<Cmd[]> = sequenceArb): readonly number[] {
  let bySeed = drawnCredits.get(arbitrary);
  if (!bySeed) drawnCredits.set(arbitrary, (bySeed = new Map()));
  const key = `${seed}:${runs}`;
  let credits = bySeed.get(key);
  if (!credits) bySeed.set(key, (credits = Object.freeze(drawnSequences(seed, runs, arbitrary).map(sequenceCredits))));
  return credits;
}
