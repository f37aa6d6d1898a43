/**
 * A suite session: the suite's target setup (provisioned workspace and keys with control,
 * matched supplied keys without) and the runner of its checks. Used the same way by the
 * vitest glue (vitest.ts) and the in-process runner (run.ts), so both give the same results.
 */
import { withFlow, type PaceWaits } from '../http/limit.ts';
import type { Dispatcher } from 'undici';
import type { ApiClient, CheckContext, CheckDef, CheckResult, KeyHandle, SuiteDef } from './check.ts';
import { LedgerBook, type LedgerService } from './ledger.ts';
import { conclude, harnessReason, uniform, type Conclusion } from './conclude.ts';
import { AmbientEnvelope } from './ambient.ts';
import { judged, Tally, withTally } from './judged.ts';
import { hasControl, type RunContext } from './context.ts';
import { CHECK_NOT_SELECTED, idleReason, maxCredits, planCredits, plannedCredits } from './credits.ts';
import type { ScenarioStep } from './check.ts';
import type { Exchange } from '../http/exchange.ts';
import { Disabled, NotObservable, type Evidence } from './finding.ts';
import { StopWatch } from './stop.ts';
import { createHttpClient, createDispatcher, type HttpClient } from '../http/client.ts';
import { SecretRegistry } from '../http/redact.ts';
import { RetryBudget } from '../http/retry.ts';
import { createControlClient, type ControlClient } from '../control/client.ts';
import type { ControlApi } from '../control/types.ts';
import { introspectKeys } from '../target/introspect.ts';
import { matchCast } from '../target/cast.ts';
import { provisionSuite } from '../target/provision.ts';

export interface SuiteSession {
  readonly suite: SuiteDef;
  /** Runs one check (calls are serialised) and returns its result; never throws. */
  run(check: CheckDef): Promise<CheckResult>;
  /** Requests this session sent (API and control). */
  readonly requestCount: number;
  /**
   * Reads the workspace's ledger total, deletes the provisioned workspace and closes
   * connections. Throws if teardown failed (a harness problem: the workspace leaked).
   */
  close(): Promise<SessionSummary>;
}

/** What a session reports about itself when it closes. */
export interface SessionSummary {
  suite: string;
  /** Requests the session sent (API and control). */
  requests: number;
  /**
   * Credits charged per the usage ledgers: in the suite's workspace and in the workspaces its
   * checks created (through the control protocol); null without a ledger.
   */
  creditsCharged: number | null;
  /** When the session opened (epoch ms). */
  openedAt: number;
  /** From opening the session (provisioning) to the end of its teardown. */
  durationMs: number;
  /** The run's pace when the session closed (rate-limit waits so far; src/http/limit.ts); set by the vitest glue. */
  paceWaits?: PaceWaits;
  /** 429 retries taken from the run's budget when the session closed (the sessions share it); set by the vitest glue. */
  retriesSpent?: number;
}

export interface SessionDeps {
  /** The run's keep-alive Agent; default: one per session. */
  dispatcher?: Dispatcher;
  /** The run-wide 429 retry budget; default: one per session of run.http.retry429.budget. */
  retryBudget?: RetryBudget;
  /**
   * Keep every lane open until the session closes, instead of closing each once its last check
   * is done: for the recording pass (src/bench/attribute.ts), which reads the ledgers between
   * checks and must not see a lane's teardown overlap the next check.
   */
  keepLanesOpen?: boolean;
}

const NO_CONTROL = 'needs the test-control protocol; this target has none (give controlUrl in the profile and WGC_CONTROL_TOKEN)';

/** What the session knows about keys and the workspace once set up. */
interface Setup {
  keys: Map<string, KeyHandle>;
  unmatched: Map<string, string>;
  workspaceId?: string;
  teardown?: () => Promise<void>;
  /** Set when setting up failed: every check becomes a harness error with this reason. */
  broken?: string;
  /** Set when the run had stopped before the session opened: nothing was set up, no check runs. */
  stopped?: string;
}

/**
 * Opens the session for one suite: provisions (with control) or introspects and matches keys
 * (without). With control, each of the suite's lanes (SuiteDef.lanes) gets a session of its own
 * (its own workspace, cast and usage ledger), opened side by side with the suite's: each check
 * runs in its lane's session, so the lanes' checks run side by side, each lane's in order.
 */
export async function openSession(suite: SuiteDef, run: RunContext, deps: SessionDeps = {}): Promise<SuiteSession> {
  const selected = run.suites.length === 0 || run.suites.includes(suite.name);
  const declared = selected && hasControl(run) ? (suite.lanes ?? []).filter((l) => l.length > 0) : [];
  const ids = new Set(suite.checks.map((c) => c.id));
  const stray = declared.flat().filter((c) => !ids.has(c.id));
  if (stray.length > 0) throw new Error(`suite ${suite.name}: lanes name checks the suite does not list: ${stray.map((c) => c.id).join(', ')}`);
  // Under --check only the lanes holding a selected check are opened (each provisions a
  // workspace and a cast); the checks of the others are concluded in the suite's own session
  // (disabled, not selected) without a request.
  const picked = run.checks && run.checks.length > 0 ? new Set(run.checks) : undefined;
  const lanes = picked ? declared.filter((l) => l.some((c) => picked.has(c.id))) : declared;
  if (lanes.length === 0) return openLane(suite, run, deps);
  const started = Date.now();
  // The lanes share the suite's keep-alive Agent (one, as before lanes) and its share of the
  // run's 429 retries (one budget for the suite).
  const ownDispatcher = deps.dispatcher ? undefined : createDispatcher({ connectTimeoutMs: run.http.timeoutMs });
  const shared: SessionDeps = { dispatcher: deps.dispatcher ?? ownDispatcher!, retryBudget: deps.retryBudget ?? new RetryBudget(run.http.retry429.budget) };
  // Each lane's checks start once its own workspace and cast are ready, not once every lane's
  // are: against a distant target the provisioning of a suite's lanes is several round trips,
  // and the run's longest lanes need not wait for the suite's others.
  const opening = [openLane(suite, run, shared), ...lanes.map(() => openLane(suite, run, shared))];
  for (const o of opening) o.catch(() => undefined);
  const laneOf = new Map<string, number>();
  lanes.forEach((lane, i) => lane.forEach((c) => laneOf.set(c.id, i)));
  /** The sessions opened so far (for the request count). */
  const open: SuiteSession[] = [];
  for (const o of opening)
    void o.then(
      (session) => void open.push(session),
      () => undefined,
    );
  // A lane is closed (its ledger read, its workspace deleted) once its last check is done, not
  // with the last lane: the teardowns of a suite's lanes do not all go at once.
  const left = lanes.map((lane) => lane.length);
  const closing: (Promise<SessionSummary> | undefined)[] = lanes.map(() => undefined);
  const closeLane = (i: number): Promise<SessionSummary> => {
    if (!closing[i]) {
      closing[i] = opening[i + 1]!.then((session) => session.close());
      closing[i]!.catch(() => undefined);
    }
    return closing[i]!;
  };
  return {
    suite,
    get requestCount() {
      return open.reduce((t, s) => t + s.requestCount, 0);
    },
    run(check) {
      const i = laneOf.get(check.id);
      // A lane that could not open rejects its checks' runs (the suite's close reports why).
      if (i === undefined) return opening[0]!.then((session) => session.run(check));
      const result = opening[i + 1]!.then((session) => session.run(check));
      void result.then(
        () => {
          if (--left[i]! === 0 && !deps.keepLanesOpen) void closeLane(i);
        },
        () => undefined,
      );
      return result;
    },
    async close() {
      // Every lane that opened is closed (its workspace deleted), whatever the others did.
      const opened = await Promise.allSettled(opening);
      const closed = await Promise.allSettled([opening[0]!.then((session) => session.close()), ...lanes.map((_, i) => closeLane(i))]);
      if (ownDispatcher && !ownDispatcher.closed) await ownDispatcher.close();
      const broke = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (broke) throw broke.reason;
      const failed = closed.find((c): c is PromiseRejectedResult => c.status === 'rejected');
      if (failed) throw failed.reason;
      const summaries = closed.map((c) => (c as PromiseFulfilledResult<SessionSummary>).value);
      const credits = summaries.map((s) => s.creditsCharged);
      return {
        suite: suite.name,
        requests: summaries.reduce((t, s) => t + s.requests, 0),
        creditsCharged: credits.includes(null) ? null : (credits as number[]).reduce((a, b) => a + b, 0),
        openedAt: started,
        durationMs: Date.now() - started,
      };
    },
  };
}

/** Opens one lane of a suite: the suite's workspace and cast, and the runner of the checks given to it, one after another. */
async function openLane(suite: SuiteDef, run: RunContext, deps: SessionDeps): Promise<SuiteSession> {
  const opened = Date.now();
  /** The lane's requests, from provisioning to teardown, are one flow of the run's pace (src/http/limit.ts). */
  const flow = {};
  const secrets = new SecretRegistry();
  if (run.controlToken) secrets.add(run.controlToken, 'control_token');
  for (const k of run.keys) secrets.add(k.secret, k.name);
  const selected = run.suites.length === 0 || run.suites.includes(suite.name);
  const ownDispatcher = deps.dispatcher || !selected ? undefined : createDispatcher({ connectTimeoutMs: run.http.timeoutMs });
  const dispatcher = deps.dispatcher ?? ownDispatcher;
  const api: HttpClient | undefined = dispatcher
    ? createHttpClient({
        baseUrl: run.baseUrl,
        timeoutMs: run.http.timeoutMs,
        maxResponseBytes: run.http.maxResponseBytes,
        allowInsecureHttp: run.http.allowInsecureHttp,
        retry429: { ...run.http.retry429, budget: deps.retryBudget ?? new RetryBudget(run.http.retry429.budget) },
        secrets,
        dispatcher,
        idPrefix: suite.name,
      })
    : undefined;
  // The scenario being recorded (provisioning, then each check in turn; checks run one at a time).
  const setupSteps: ScenarioStep[] = [];
  let recording: { steps: ScenarioStep[]; phase: ScenarioStep['phase'] } | undefined = { steps: setupSteps, phase: 'setup' };
  const record = (via: ScenarioStep['via'], base: string, ex: Exchange): void => {
    if (!recording) return;
    const { json: _parsed, ...response } = ex.response ?? {};
    recording.steps.push({ via, phase: recording.phase, base, exchange: ex.response ? { ...ex, response: response as Exchange['response'] & object } : ex });
  };
  const control: ControlClient | undefined =
    dispatcher && hasControl(run)
      ? createControlClient({ controlUrl: run.controlUrl!, token: run.controlToken!, http: { ...run.http, dispatcher, secrets, onExchange: (ex) => record('control', run.controlUrl!, ex) } })
      : undefined;

  // Checks that create workspaces of their own spend credits there too: their ledgers are
  // read just before the check deletes them (the ledger goes with the workspace), and at close.
  const created: CreatedWorkspaces = { live: new Set(), charged: 0 };
  const checkControl = control ? countingControl(control, created) : undefined;

  const setup: Setup = { keys: new Map(), unmatched: new Map() };
  const stop = new StopWatch(run.stop);
  /** Checks a stop refused a request of (see go in execute). */
  const cut = new Set<string>();
  const stoppedAtOpen = selected ? stop.reason() : undefined;
  if (stoppedAtOpen) {
    setup.stopped = stoppedAtOpen;
  } else if (api && control) {
    try {
      const p = await withFlow(flow, () => provisionSuite(suite, control, run.prefix, run.workspaceCredits !== undefined ? { credits: run.workspaceCredits } : {}));
      // Relabel the new secrets after their cast names: curl then says $WGC_KEY_<CAST>.
      for (const k of p.keys.values()) secrets.add(k.secret, k.name);
      Object.assign(setup, { keys: p.keys, workspaceId: p.workspaceId, teardown: p.teardown });
    } catch (e) {
      // The message names the suite, the step and the control answer; a stack adds nothing.
      setup.broken = secrets.redact(e instanceof Error ? e.message : String(e));
    }
  } else if (api) {
    const introspected = run.introspected ?? (await introspectKeys(api, run.keys));
    const match = matchCast(suite.cast, run.keys, introspected, run.roles);
    setup.keys = match.keys;
    setup.unmatched = match.unmatched;
    for (const k of introspected) if (k.ok && k.workspaceId && !setup.workspaceId) setup.workspaceId = k.workspaceId;
  }
  recording = undefined;
  /** The usage ledger's book (with control): fed by every API call of the session's checks. */
  const book =
    control && setup.workspaceId
      ? new LedgerBook({
          ledger: {
            charged: async () => (await control.usage(setup.workspaceId!)).charged,
            entries: async () => (await control.usage(setup.workspaceId!)).entries,
            usage: () => control.usage(setup.workspaceId!),
          },
          run: { patience: run.patience ?? 1 },
        })
      : undefined;

  const excluded = new Set(run.creditPlan?.excluded ?? (run.maxCredits !== undefined ? planCredits([suite], run).excluded : []));
  let queue: Promise<unknown> = Promise.resolve();
  /** Credits the checks that passed are planned to charge in the suite's workspace (see close). */
  let passedCredits = 0;

  async function runCheck(check: CheckDef): Promise<CheckResult> {
    const started = Date.now();
    const before = (api?.requestCount ?? 0) + (control?.requestCount ?? 0);
    const planned = run.creditPlan?.planned?.[check.id] ?? plannedCredits(check, run.numRuns, run.seed);
    let conclusion: Conclusion;
    const idle = idleReason(suite, check, run);
    const stopped = selected ? (setup.stopped ?? stop.reason()) : undefined;
    if (!selected) conclusion = uniform(check, 'disabled', idle!);
    else if (stopped) conclusion = uniform(check, 'disabled', `not run: ${stopped} before the check started`);
    else if (setup.broken) conclusion = uniform(check, 'harnessError', setup.broken);
    else if (idle === CHECK_NOT_SELECTED) conclusion = uniform(check, 'disabled', CHECK_NOT_SELECTED);
    else if (idle === '--read-only') conclusion = uniform(check, 'disabled', 'disabled by --read-only: the check sends mutations');
    else if (idle) conclusion = uniform(check, 'notObservable', NO_CONTROL);
    else if (excluded.has(check.id)) conclusion = uniform(check, 'disabled', `would exceed --max-credits ${run.maxCredits} (may be charged up to ${maxCredits(check, run.numRuns, run.seed)} credits)`);
    else conclusion = await execute(check);
    const steps = recording?.steps;
    recording = undefined;
    const result: CheckResult = {
      checkId: check.id,
      suite: suite.name,
      title: check.title,
      ...conclusion,
      requests: (api?.requestCount ?? 0) + (control?.requestCount ?? 0) - before,
      plannedCredits: planned,
      durationMs: Date.now() - started,
      seed: run.seed,
      // Only a failure needs its reproduction; the set-up comes first.
      ...(steps && conclusion.findings.length > 0 ? { scenario: [...setupSteps, ...steps] } : {}),
    };
    // Defence in depth: whatever a check put into its findings or reason, no secret leaves.
    return JSON.parse(secrets.redact(JSON.stringify(result))) as CheckResult;
  }

  async function execute(check: CheckDef): Promise<Conclusion> {
    const cleanups: (() => Promise<void>)[] = [];
    const soft: Evidence[] = [];
    const ambient = new AmbientEnvelope(check);
    recording = { steps: [], phase: 'check' };
    /** Refuses the check's next request once the run stops (the check ends disabled); its clean-up still runs. */
    let checking = true;
    const go = (): void => {
      if (!checking) return;
      const why = stop.reason();
      if (!why) return;
      cut.add(check.id);
      throw new Disabled(`stopped: ${why} while the check ran`);
    };
    const observed: ApiClient = {
      async send(req) {
        go();
        const answered = book?.sent(req);
        const ex = await api!.send(req);
        answered?.(ex);
        record('api', api!.baseUrl, ex);
        ambient.observe(ex);
        return ex;
      },
    };
    const unobserved = new Map<string, string>();
    const notes: NonNullable<CheckResult['observed']> = {};
    const ctx = makeContext(run, observed, book, checkControl && guarded(checkControl, go), setup, cleanups, soft, secrets, go, unobserved, notes);
    let thrown: unknown;
    const tally = new Tally();
    try {
      await withTally(tally, () => check.run(ctx));
    } catch (e) {
      thrown = e ?? new Error('the check threw undefined');
    }
    checking = false;
    const conclusion: Conclusion = { ...ambient.merge(conclude(check, thrown, soft, unobserved, tally.counts)), ...(Object.keys(notes).length > 0 ? { observed: notes } : {}) };
    const failures: string[] = [];
    if (recording) recording.phase = 'cleanup';
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (e) {
        failures.push(harnessReason(e));
      }
    }
    if (failures.length === 0) return conclusion;
    const note = `cleanup failed: ${failures.join('; ')}`;
    // A failed cleanup does not undo a real finding, but a pass it followed is not trusted.
    if (conclusion.outcome === 'failed') return { ...conclusion, reason: conclusion.reason ? `${conclusion.reason}; ${note}` : note };
    return { ...uniform(check, 'harnessError', note), findings: conclusion.findings };
  }

  return {
    suite,
    get requestCount() {
      return (api?.requestCount ?? 0) + (control?.requestCount ?? 0);
    },
    run(check) {
      const next = withFlow(flow, () =>
        queue.then(async () => {
          const result = await runCheck(check);
          // A check cut short by a stop did not spend its plan: the ledger is not waited for it.
          if (result.outcome === 'passed' && !cut.has(check.id)) passedCredits += result.plannedCredits;
          return result;
        }),
      );
      queue = next.catch(() => undefined);
      return next;
    },
    close() {
      return withFlow(flow, closeLane);
    },
  };

  /** Reads the ledger, deletes the workspace and closes the clients, once the lane's checks are done. */
  async function closeLane(): Promise<SessionSummary> {
    await queue;
    let creditsCharged: number | null = null;
    try {
      // Read before teardown: the ledger goes with the workspace.
      if (control && setup.teardown && setup.workspaceId) {
        creditsCharged = (await book?.landed(passedCredits - created.charged)) ?? null;
        // Workspaces a check created and left (its clean-up failed) are counted as they stand.
        for (const ws of created.live)
          created.charged += await control.usage(ws).then(
            (u) => u.charged,
            () => 0,
          );
        if (creditsCharged !== null) creditsCharged += created.charged;
      }
      await setup.teardown?.();
      return { suite: suite.name, requests: (api?.requestCount ?? 0) + (control?.requestCount ?? 0), creditsCharged, openedAt: opened, durationMs: Date.now() - opened };
    } finally {
      await api?.close();
      await control?.close();
      if (ownDispatcher && !ownDispatcher.closed) await ownDispatcher.close();
    }
  }
}

/** Workspaces the checks created and have not deleted, and what was charged in those they deleted. */
interface CreatedWorkspaces {
  live: Set<string>;
  charged: number;
}

/** The control client as checks see it: workspaces they create are tallied in `created`. */
function countingControl(control: ControlApi, created: CreatedWorkspaces): ControlApi {
  return {
    ...control,
    async createWorkspace(credits, members) {
      const out = await control.createWorkspace(credits, members);
      created.live.add(out.workspaceId);
      return out;
    },
    async deleteWorkspace(ws) {
      if (created.live.delete(ws))
        created.charged += await control.usage(ws).then(
          (u) => u.charged,
          () => 0,
        );
      return control.deleteWorkspace(ws);
    },
  };
}

/** The control client with `go` asked before every call (the check's control requests stop with the run too). */
function guarded(control: ControlApi, go: () => void): ControlApi {
  return new Proxy(control, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        go();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function makeContext(
  run: RunContext,
  api: ApiClient,
  book: LedgerBook | undefined,
  control: ControlApi | undefined,
  setup: Setup,
  cleanups: (() => Promise<void>)[],
  soft: Evidence[],
  secrets: SecretRegistry,
  go: () => void,
  unobserved: Map<string, string>,
  notes: NonNullable<CheckResult['observed']>,
): CheckContext {
  const ledger = book?.service((e) => soft.push(e), go);
  return {
    run: { prefix: run.prefix, seed: run.seed, numRuns: run.numRuns, readOnly: run.readOnly, hasControl: control !== undefined, sharedWorkspace: control === undefined, patience: run.patience ?? 1 },
    api,
    key(castName: string): KeyHandle {
      const k = setup.keys.get(castName);
      if (k) return k;
      const why = setup.unmatched.get(castName);
      if (why) throw new NotObservable(`cast "${castName}" ${why}`);
      throw new Error(`the check asked for key "${castName}", which is not in its suite's cast`);
    },
    get control(): ControlApi {
      if (!control) throw new NotObservable(NO_CONTROL);
      return control;
    },
    get workspaceId(): string {
      if (!setup.workspaceId) throw new NotObservable('the workspace id is unknown: no supplied key could be introspected with GET /me');
      return setup.workspaceId;
    },
    get ledger(): LedgerService {
      if (!ledger) throw new NotObservable(`needs the usage ledger: ${NO_CONTROL}`);
      return ledger;
    },
    cleanup(fn) {
      cleanups.push(fn);
    },
    softFail(evidence) {
      soft.push(evidence);
    },
    unobserved(clause, reason) {
      if (!unobserved.has(clause)) unobserved.set(clause, reason);
    },
    judged(clause, n = 1) {
      judged(clause, n);
    },
    note(observed) {
      if (observed.liveCatalog && !notes.liveCatalog) notes.liveCatalog = observed.liveCatalog;
    },
    fixtures: run.fixtures ?? {},
    registerSecret(secret, label) {
      secrets.add(secret, label);
    },
  };
}
