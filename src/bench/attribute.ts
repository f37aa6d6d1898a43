/**
 * The benchmark's recording pass: the same suites, sessions and checks as a run, in-process,
 * one suite and one check at a time, against an embedded reference target, through a
 * RecordingDispatcher. Because nothing overlaps, every request and every usage-ledger entry
 * belongs to the check that was running: after each check the ledgers of every workspace
 * seen so far are read (once they have stopped moving), and a workspace about to be deleted
 * is read just before its DELETE goes out (for a target whose ledger lags, no sooner than the
 * lag after the last 2xx answer). The result is each check's real charge next to the credits it
 * declares (exact, and its ceiling), and the list of requests to replay for the raw limit.
 */
import { settleReads } from '../engine/ledger.ts';
import type { CheckDef, SuiteDef } from '../engine/check.ts';
import type { RunContext } from '../engine/context.ts';
import { maxCredits, plannedCredits, planCredits } from '../engine/credits.ts';
import { prepareRun } from '../engine/run.ts';
import { openSession } from '../engine/session.ts';
import { createDispatcher } from '../http/client.ts';
import { RetryBudget } from '../http/retry.ts';
import { createControlClient, type ControlClient } from '../control/client.ts';
import type { Outcome } from '../engine/outcome.ts';
import { RecordingDispatcher, type RecordedRequest } from './recording.ts';

/** A ledger entry as the control protocol returns it. */
export interface ChargedEntry {
  method: string;
  path: string;
  status: number;
  credits: number;
}

/** What one check declared and what the ledgers say it cost. */
export interface CheckCharge {
  checkId: string;
  suite: string;
  outcome: Outcome;
  /** Declared (exact) credits for the run's property-run count (the plan's figure). */
  planned: number;
  /** Declared ceiling for the run's property-run count. */
  maxCredits: number;
  /** Credits the usage ledgers recorded while the check ran (every workspace). */
  charged: number;
  /** Of `charged`, what landed in workspaces other than the suite's own and its lanes' (ones the check created). */
  chargedElsewhere: number;
  requests: number;
  durationMs: number;
  /** The charged entries, in ledger order. */
  entries: ChargedEntry[];
}

export interface AttributedRun {
  checks: CheckCharge[];
  /** Charges while no check ran (set-up and teardown), per suite; a conformant target charges nothing here. */
  outsideChecks: Record<string, number>;
  /** The plan's exact credits (admitted checks). */
  planned: number;
  /** The plan's ceiling (admitted checks). */
  ceiling: number;
  /** Credits over the suites' own workspaces. */
  chargedSuiteWorkspaces: number;
  /** Credits over every workspace any request touched. */
  chargedAll: number;
  /** Credits as the sessions report them when they close (a run's "credits charged"); null without ledgers. */
  creditsCharged: number | null;
  /** Every request, in order; `group` names the suite. */
  records: RecordedRequest[];
  durationMs: number;
}

export interface AttributeOptions {
  /**
   * How late the target may record a charge after answering (ms): the ledgers are read (after
   * each check, and before a workspace is deleted) no sooner than this after the last 2xx
   * answer of the API. Default 0: a charge shows by the time its answer arrives.
   */
  ledgerLagMs?: number;
}

const WORKSPACE_IN_PATH = /\/__control\/v1\/workspaces\/([^/?#]+)/;
const DELETE_WORKSPACE = /\/__control\/v1\/workspaces\/([^/?#]+)\/?$/;
const CREATE_WORKSPACE = /\/__control\/v1\/workspaces\/?$/;

/**
 * The workspace a recorded control call names in its path, or the one it made (POST
 * /workspaces: with the cast addition a lane's workspace is never named in a path at set-up).
 */
function workspaceOf(r: RecordedRequest): string | undefined {
  const raw = WORKSPACE_IN_PATH.exec(r.path)?.[1];
  if (raw !== undefined) return decodeURIComponent(raw);
  if (r.method !== 'POST' || r.status !== 201 || !CREATE_WORKSPACE.test(r.path)) return undefined;
  try {
    const made = (JSON.parse(r.responseBody.toString('utf8')) as { workspaceId?: unknown }).workspaceId;
    return typeof made === 'string' ? made : undefined;
  } catch {
    return undefined;
  }
}

/** The ledgers of every workspace the run has touched, read in increments. */
class LedgerWatch {
  private readonly lastSeq = new Map<string, number>();
  private readonly gone = new Set<string>();
  /** Workspace id → charged credits attributed so far. */
  readonly totals = new Map<string, number>();

  constructor(
    private readonly control: ControlClient,
    private readonly attribute: (ws: string, entries: ChargedEntry[]) => void,
    /** Until when (epoch ms) a charge may still be recorded late. */
    private readonly lateUntil: () => number = () => 0,
    /**
     * How long a settled ledger must stay unchanged (ms): the target's lag. A charge whose
     * answer the recording did not see as the last, or whose delay a loaded machine stretched,
     * still lands within it of the reads, not in the next check's.
     */
    private readonly quietMs = 0,
  ) {}

  /** Notes the workspaces named in recorded control paths, or made by recorded control calls. */
  discover(records: readonly RecordedRequest[]): void {
    for (const r of records) {
      const ws = workspaceOf(r);
      if (ws && !this.gone.has(ws) && !this.lastSeq.has(ws)) this.lastSeq.set(ws, 0);
    }
  }

  /** Reads every live workspace's ledger once it has settled and attributes the new entries. */
  async collect(): Promise<void> {
    await Promise.all([...this.lastSeq.keys()].map((ws) => this.read(ws, true)));
  }

  /** Reads one workspace's ledger (settled or as is) and attributes what is new. */
  async read(ws: string, settle: boolean): Promise<void> {
    const late = settle ? this.lateUntil() - Date.now() : 0;
    if (late > 0) await new Promise((r) => setTimeout(r, late));
    let usage = await this.control.usage(ws).catch(() => undefined);
    if (!usage) {
      // Deleted by something this watch did not see: nothing more will land there.
      this.forget(ws);
      return;
    }
    // A target may record a charge after answering: the engine's settle policy (bounded).
    if (settle) {
      const first = usage;
      usage = await settleReads(
        async () => (await this.control.usage(ws).catch(() => undefined)) ?? first,
        (a, b) => a.entries.length === b.entries.length,
        1_000,
        this.quietMs,
      );
    }
    const last = this.lastSeq.get(ws) ?? 0;
    const fresh = usage.entries.filter((e) => e.seq > last);
    if (fresh.length === 0) return;
    this.lastSeq.set(ws, Math.max(last, ...fresh.map((e) => e.seq)));
    const entries = fresh.filter((e) => e.credits !== 0).map((e) => ({ method: e.method, path: e.path, status: e.status, credits: e.credits }));
    this.totals.set(ws, (this.totals.get(ws) ?? 0) + entries.reduce((s, e) => s + e.credits, 0));
    if (entries.length > 0) this.attribute(ws, entries);
  }

  forget(ws: string): void {
    this.lastSeq.delete(ws);
    this.gone.add(ws);
  }

  isLive(ws: string): boolean {
    return this.lastSeq.has(ws);
  }
}

/**
 * Runs the suites one check at a time against the target in `run` (which must have the
 * test-control protocol) and attributes every ledger entry to the check that caused it.
 */
export async function attributeCharges(suites: readonly SuiteDef[], run: RunContext, opts: AttributeOptions = {}): Promise<AttributedRun> {
  if (!run.controlUrl || !run.controlToken) throw new Error('the recording pass needs the test-control protocol (ledgers)');
  const started = Date.now();
  const plan = planCredits(suites, run);
  const prepared = await prepareRun(suites, run);
  const agent = createDispatcher({ connectTimeoutMs: run.http.timeoutMs });
  // The watch's own ledger reads go through their own client: they are not part of the run.
  const ledgerClient = createControlClient({ controlUrl: run.controlUrl, token: run.controlToken, http: { timeoutMs: run.http.timeoutMs } });

  let current: { charge?: CheckCharge; suite: string; suiteWorkspaces?: Set<string> } = { suite: '' };
  const outsideChecks: Record<string, number> = {};
  const watch = new LedgerWatch(
    ledgerClient,
    (ws, entries) => {
      const credits = entries.reduce((s, e) => s + e.credits, 0);
      const c = current.charge;
      if (!c) {
        outsideChecks[current.suite] = (outsideChecks[current.suite] ?? 0) + credits;
        return;
      }
      c.charged += credits;
      if (!current.suiteWorkspaces?.has(ws)) c.chargedElsewhere += credits;
      c.entries.push(...entries);
    },
    () => (opts.ledgerLagMs ? lastAnswered() + opts.ledgerLagMs : 0),
    opts.ledgerLagMs ?? 0,
  );
  /** When the last 2xx answer of the API arrived (a billed call's charge may follow it). */
  const lastAnswered = (): number => {
    for (let i = recorder.records.length - 1; i >= 0; i--) {
      const r = recorder.records[i]!;
      if (r.status !== undefined && r.status >= 200 && r.status < 300 && !r.path.includes('/__control/')) return r.respondedAt ?? 0;
    }
    return 0;
  };
  let seen = 0;
  const discover = (): void => {
    watch.discover(recorder.records.slice(seen));
    seen = recorder.records.length;
  };
  const recorder: RecordingDispatcher = new RecordingDispatcher(agent, {
    // Read a workspace's ledger before it goes: its entries leave with it.
    before: (req) => {
      const ws = req.method === 'DELETE' ? DELETE_WORKSPACE.exec(req.path)?.[1] : undefined;
      if (!ws) return undefined;
      const id = decodeURIComponent(ws);
      discover();
      if (!watch.isLive(id)) return undefined;
      return watch.read(id, true).finally(() => watch.forget(id));
    },
  });
  const retryBudget = new RetryBudget(run.http.retry429.budget);
  const checks: CheckCharge[] = [];
  const suiteWorkspaces = new Set<string>();
  let creditsCharged: number | null = 0;

  try {
    for (const suite of suites) {
      current = { suite: suite.name };
      recorder.group = suite.name;
      recorder.label = `${suite.name}: set-up`;
      const session = await openSession(suite, prepared.run, { dispatcher: recorder, retryBudget, keepLanesOpen: true });
      // The suite's workspaces: its own and its lanes' (SuiteDef.lanes), made by the calls sent at
      // set-up. A lane opens on its own (its checks wait for it), so the set is read again before
      // every collection: a charge in a workspace comes only after the answer that made it.
      const setUp = recorder.records.filter((r) => r.group === suite.name && r.label === `${suite.name}: set-up`);
      const ownWorkspaces = (): void => {
        current.suiteWorkspaces = new Set(setUp.map(workspaceOf).filter((ws): ws is string => ws !== undefined));
        for (const ws of current.suiteWorkspaces) suiteWorkspaces.add(ws);
        // The set-up's calls again: an answer that had not come at the last look has now.
        watch.discover(setUp);
        discover();
      };
      ownWorkspaces();
      await watch.collect();
      for (const check of suite.checks) {
        const charge = emptyCharge(suite, check, run.numRuns, run.seed);
        current.charge = charge;
        recorder.label = check.id;
        const result = await session.run(check);
        ownWorkspaces();
        await watch.collect();
        Object.assign(charge, { outcome: result.outcome, requests: result.requests, durationMs: result.durationMs });
        checks.push(charge);
        current.charge = undefined;
      }
      recorder.label = `${suite.name}: teardown`;
      const summary = await session.close();
      creditsCharged = summary.creditsCharged === null || creditsCharged === null ? null : creditsCharged + summary.creditsCharged;
      ownWorkspaces();
      await watch.collect();
    }
  } finally {
    await recorder.close();
    await ledgerClient.close();
  }
  const chargedAll = [...watch.totals.values()].reduce((a, b) => a + b, 0);
  const chargedSuiteWorkspaces = [...watch.totals].filter(([ws]) => suiteWorkspaces.has(ws)).reduce((a, [, c]) => a + c, 0);
  return { checks, outsideChecks, planned: plan.planned, ceiling: plan.ceiling, chargedSuiteWorkspaces, chargedAll, creditsCharged, records: recorder.records, durationMs: Date.now() - started };
}

function emptyCharge(suite: SuiteDef, check: CheckDef, numRuns: number, seed: number): CheckCharge {
  return {
    checkId: check.id,
    suite: suite.name,
    outcome: 'harnessError',
    // A check may price what the run's seed draws (seedDependent): the run's own seed.
    planned: plannedCredits(check, numRuns, seed),
    maxCredits: maxCredits(check, numRuns, seed),
    charged: 0,
    chargedElsewhere: 0,
    requests: 0,
    durationMs: 0,
    entries: [],
  };
}

/** Checks whose declared (exact) credits differ from what they were charged. */
export function creditMismatches(checks: readonly CheckCharge[]): CheckCharge[] {
  return checks.filter((c) => c.planned !== c.charged);
}

/** Checks charged more than their declared ceiling. */
export function overCeiling(checks: readonly CheckCharge[]): CheckCharge[] {
  return checks.filter((c) => c.charged > c.maxCredits);
}
