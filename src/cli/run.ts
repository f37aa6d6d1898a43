/**
 * `wgc run`: resolve the config, pick the target (the embedded reference when no --base-url),
 * plan credits, run the suites through vitest, and hand the results to src/report. Exit code:
 * 0 conformant, 1 a MUST clause failed, 2 usage or harness error (the report's verdict).
 */
import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalog, CatalogError } from '../catalog/load.ts';
import { ConfigError, redactConfig, renderConfigReference, resolveConfig, type Config } from '../config/index.ts';
import { describeProfile } from '../config/resolve.ts';
import type { CheckResult, SuiteDef } from '../engine/check.ts';
import { Stopper } from './stopper.ts';
import { uniform } from '../engine/conclude.ts';
import { hasControl, retryBudgetFor, type RunContext } from '../engine/context.ts';
import { describeCreditPlan, planCredits, withCreditPlan } from '../engine/credits.ts';
import { figuresOf, type SuiteOutline } from '../engine/outline.ts';
import { isDeepStrictEqual } from 'node:util';
import { discoverSuites, loadSuiteDefs, SuiteLoadError } from '../engine/discover.ts';
import { runContextFor } from '../engine/context.ts';
import type { RunObserver } from '../engine/phases.ts';
import { insecureReason } from '../http/transport.ts';
import type { RunMetaInput } from '../report/meta.ts';
import type { Pace } from '../report/model.ts';
import type { SessionSummary } from '../engine/session.ts';
import type { PaceWaits } from '../http/limit.ts';
import { createControlClient } from '../control/client.ts';
import { RunGate } from '../engine/gate.ts';
import { PrewarmedWorker, takeEarlyWorker, warmModules } from '../engine/prewarm.ts';
import { shardFiles } from '../engine/shard.ts';
import { SOURCE_EXT } from '../vocabulary.ts';
import type { PreparedRun } from '../engine/run.ts';
import type { VitestRun } from '../engine/launch.ts';
import type { WgcReporter } from '../../reporters/wgc-reporter.ts';
import type { CliIo } from '../report/io.ts';
import { createHttpClient } from '../http/client.ts';
import { SecretRegistry } from '../http/redact.ts';
import { baseUrlProblem, preflight, type PreflightResult } from '../target/preflight.ts';
import { castShare, castShortfall } from '../target/cast-share.ts';
import { choosePace, describePace, measureRoundTrip, type PaceChoice } from '../target/pace.ts';

/** What vitest gave back for the run. */
type Launched = VitestRun<WgcReporter>;

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEFAULT_SUITES_DIR = join(PACKAGE_ROOT, 'suites');

export const RUN_USAGE = `usage: wgc run [options]

Runs the conformance suites against a target (default: the embedded reference target) and
writes report.json, report.html, junit.xml and summary.md into --out.

Options (flag, environment variable; precedence: defaults < --target profile < env < flags):
${renderConfigReference()}

Exit codes: 0 conformant · 1 not conformant (a MUST clause failed) · 2 usage or harness error.
`;

export type { RunObserver, RunPhase } from '../engine/phases.ts';
export { runContextFor } from '../engine/context.ts';

/**
 * What a run needs only once the preflight has passed: the run preparation and the report
 * writers (and, imported where used, vitest's node API). Imported on first use, so the first
 * request of a run is not kept waiting for them (start-up to the first request is measured in
 * test/package/pack.test.ts).
 */
async function reporting() {
  const [build, meta, write, terminal, verdict] = await Promise.all([
    import('../report/build.ts'),
    import('../report/meta.ts'),
    import('../report/write.ts'),
    import('../report/terminal.ts'),
    import('../report/verdict.ts'),
  ]);
  return {
    buildRunResult: build.buildRunResult,
    hashFile: meta.hashFile,
    DEFAULT_SPEC_PATH: meta.DEFAULT_SPEC_PATH,
    writeReports: write.writeReports,
    renderTerminalSummary: terminal.renderTerminalSummary,
    exitCodeOf: verdict.exitCodeOf,
    requireCoverage: verdict.requireCoverage,
  };
}

/** Where a run sends its requests. */
export interface Target {
  baseUrl: string;
  controlUrl?: string;
  controlToken?: string;
  close?: () => Promise<void>;
  label: string;
  /** What the report names as the target: the base URL, or "embedded reference target" (its port changes every run, so shards of one run still merge). */
  identity: string;
}

async function openTarget(config: Config): Promise<Target> {
  if (config.baseUrl) {
    const t: Target = { baseUrl: config.baseUrl, label: config.baseUrl, identity: config.baseUrl };
    if (config.controlUrl && config.controlToken) Object.assign(t, { controlUrl: config.controlUrl, controlToken: config.controlToken });
    return t;
  }
  // Imported lazily: a run against a real target never loads the reference implementation.
  const { startReference } = await import('../reference/index.ts');
  const ref = await startReference();
  return {
    baseUrl: ref.baseUrl,
    controlUrl: ref.controlUrl,
    controlToken: ref.controlToken,
    close: () => ref.close(),
    label: `embedded reference target at ${ref.baseUrl}`,
    identity: 'embedded reference target',
  };
}

/** Runs `wgc run`; returns the exit code. Only this module and main.ts see env and argv. */
export async function runCommand(argv: string[], env: NodeJS.ProcessEnv, io: CliIo & { isTTY?: boolean }, observer: RunObserver = {}): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(RUN_USAGE);
    return 0;
  }
  let resolved;
  try {
    resolved = resolveConfig({ argv, env, readFile: (p) => readFileSync(p, 'utf8') });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.err(`${e.problems.map((p) => `wgc run: ${p}`).join('\n')}\nsee wgc run --help\n`);
    return 2;
  }
  const { config, seedWasRandom } = resolved;
  const started = Date.now();
  // Refuse insecure transport once, up front, instead of in every request of every check.
  for (const [flag, url] of [
    ['--base-url', config.baseUrl],
    ['--control-url', config.controlUrl],
  ] as const) {
    const why = url ? insecureReason(new URL(url), config.allowInsecureHttp) : undefined;
    if (why) {
      io.err(`wgc run: ${flag}: ${why}\n`);
      return 2;
    }
  }
  const prefixed = config.baseUrl ? baseUrlProblem(config.baseUrl) : undefined;
  if (prefixed) {
    io.err(`wgc run: --base-url: ${prefixed}\n`);
    return 2;
  }
  // Refuse what can only fail after the whole run, before anything is sent.
  if (config.certify && config.shard) {
    io.err('wgc run: --certify with --shard: a bundle certifies one complete run; certify the merged shards with `wgc merge --certify` instead\n');
    return 2;
  }
  if (config.certify && existsSync(join(resolve(config.out), 'certification'))) {
    io.err(`wgc run: --certify: ${join(resolve(config.out), 'certification')} already exists; a bundle is never overwritten (choose another --out or remove it)\n`);
    return 2;
  }
  // The signing key is read now, so a bad key file stops the run before anything is sent.
  let signingKey: KeyObject | undefined;
  if (config.signKey !== undefined) {
    const from = resolved.sources.signKey === 'env' ? 'WGC_SIGN_KEY' : '--sign-key';
    if (!config.certify) {
      io.err(`wgc run: ${from} without --certify: only a certification bundle is signed (add --certify)\n`);
      return 2;
    }
    const { KeyFileError, readSigningKey } = await import('../report/signature.ts');
    try {
      signingKey = readSigningKey(config.signKey);
    } catch (e) {
      if (!(e instanceof KeyFileError)) throw e;
      io.err(`wgc run: ${from}: ${e.message}\n`);
      return 2;
    }
  }
  observer.phase?.('configured');

  let files: { name: string; testFile: string; indexFile: string }[];
  const suitesDir = resolve(config.suitesDir ?? DEFAULT_SUITES_DIR);
  try {
    files = await discoverSuites(suitesDir);
  } catch (e) {
    if (e instanceof SuiteLoadError) {
      io.err(`wgc run: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const unknown = config.suites.filter((s) => !files.some((f) => f.name === s));
  if (unknown.length > 0) {
    io.err(`wgc run: --suite: unknown suite ${unknown.map((s) => `"${s}"`).join(', ')}; available: ${files.map((f) => f.name).join(', ')}\n`);
    return 2;
  }

  io.out(`seed ${config.seed}${seedWasRandom ? ` (random; replay with --seed ${config.seed})` : ''}\n`);
  const profileLine = describeProfile(resolved);
  if (profileLine) io.out(`${profileLine}\n`);
  // The suite files --suite selects (--check narrows them further below).
  const suiteFiles = config.suites.length === 0 ? files : files.filter((f) => config.suites.includes(f.name));
  // Vitest's node API is the heaviest import of a run (0.3 s on the 2-core host), and its worker
  // takes as long again to start and import the suites. A run without --check starts vitest
  // first, gated (src/engine/gate.ts): the worker starts on the other core while this thread
  // starts the embedded reference, runs the preflight, loads the definitions and prints the plan,
  // and no suite sends anything before the gate opens. The pace (src/target/pace.ts) is not
  // known when vitest starts: the worker keeps it (RunContext.suitesSideBySide).
  const gate = config.checks.length === 0 ? new RunGate() : undefined;
  // Signals and the time budget are this run's from here on: before vitest, whose logger and vite
  // server install signal handlers of their own (the stopper removes those that come after it).
  const stopper = new Stopper({
    started,
    graceMs: config.graceMs,
    say: (line) => io.err(`${line}\n`),
    ...(config.maxDurationMs !== undefined ? { maxDurationMs: config.maxDurationMs } : {}),
    ...(observer.exit ? { exit: observer.exit } : {}),
  });
  // The worker thread, started before vitest is even imported (src/engine/prewarm.ts): it loads
  // vitest's runtime and the suites' modules on the other core while this thread starts vitest.
  // The command's entry starts it as it starts (every suite of the package); a run of other
  // suites starts one for them, and a run that does not gate vitest (--check) needs none.
  const early = takeEarlyWorker();
  const usable = gate && SOURCE_EXT === '.js';
  const ownSuites = suitesDir !== resolve(DEFAULT_SUITES_DIR);
  if (early && (!usable || ownSuites)) await early.dispose();
  const prewarmed = usable ? (early && !ownSuites ? early : new PrewarmedWorker(warmModules(shardFiles(suiteFiles, config.shard ?? undefined)))) : undefined;
  if (prewarmed) prewarmed.onAdopted = () => observer.phase?.('workerAdopted');
  // With the control protocol (the embedded reference has it) the run needs of the definitions
  // only their outline and plan, which that thread works out too (src/engine/outline.ts).
  const withControl = !config.baseUrl || Boolean(config.controlUrl && config.controlToken);
  const figures = figuresOf(runContextFor(config, { baseUrl: 'http://outline.invalid', ...(withControl ? { controlUrl: 'http://outline.invalid/control', controlToken: 'outline' } : {}) }));
  const outlining = prewarmed && withControl ? prewarmed.outline(files, PACKAGE_ROOT, figures) : undefined;
  const launching = Promise.all([import('../engine/launch.ts'), import('../../reporters/wgc-reporter.ts')]);
  launching.catch(() => undefined);
  let target: Target | undefined;
  let running: Promise<Launched> | undefined;
  // Set by refuse (below), read by the progress callbacks: declared before them, since vitest's
  // heartbeat may call them as soon as it starts.
  let refused = false;
  /** Refuses the run before any suite started: a gated vitest run winds down first. */
  const refuse = async <T>(why: string, then: () => T | Promise<T>): Promise<T> => {
    refused = true;
    gate?.abort(why);
    await running?.catch(() => undefined);
    gate?.close();
    stopper.dispose();
    return then();
  };
  try {
    /** No suite runs: CI still gets a report saying why, and the run is inconclusive (exit 2). */
    const abort = async (opened: Target, runErrors: string[]): Promise<number> => {
      const { buildRunResult, hashFile, DEFAULT_SPEC_PATH, writeReports, renderTerminalSummary } = await reporting();
      const catalog = loadCatalog();
      const meta: RunMetaInput = {
        specHash: hashFile(DEFAULT_SPEC_PATH),
        targetBaseUrl: opened.identity,
        control: false,
        config: { ...redactConfig(config), target: opened.label },
        seed: config.seed,
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        creditsCharged: null,
        runErrors,
      };
      const result = buildRunResult([], catalog, meta);
      const written = await writeReports(result, resolve(config.out));
      io.out(renderTerminalSummary(result, { color: io.isTTY ?? false, files: written }));
      return 2;
    };
    /** The preflight's verdict on a target: the exit code of a run that must not go on, or undefined. */
    const judgePreflight = async (opened: Target, found: Preflighted): Promise<number | undefined> => {
      if (found.controlProblem) {
        const problem = found.controlProblem;
        io.err(`wgc run: --control-url: ${problem}\n`);
        return refuse('the test-control protocol is unusable', () => abort(opened, [`the test-control protocol at --control-url is unusable, so no suite ran: ${problem}`]));
      }
      io.out(`target ${opened.label}${opened.controlUrl && opened.controlToken ? ' (with test-control protocol)' : ' (no test-control protocol)'}\n`);
      if (found.problems.length === 0) return undefined;
      for (const p of found.problems) io.err(`wgc run: ${p}\n`);
      return refuse('the preflight failed', () =>
        abort(
          opened,
          found.problems.map((p) => `preflight: ${p}; no suite ran`),
        ),
      );
    };

    // The preflight's requests are free (GET /me, seed part 8), and a target that cannot be
    // reached, is not the API or refuses a key is named before the suites are loaded. The control
    // protocol's GET / (free too) goes beside it: against a distant target the two cost one round
    // trip, not two. A remote target's preflight goes out beside vitest's import (its answers are
    // waits, not work for this thread), and vitest starts only once it has passed.
    let found: Preflighted | undefined;
    if (config.baseUrl) {
      target = await openTarget(config);
      observer.phase?.('targetOpen');
      const checking = preflightTarget(config, target);
      checking.catch(() => undefined);
      found = await checking;
      const ended = await judgePreflight(target, found);
      if (ended !== undefined) return ended;
    }

    const [{ runSuitesWithVitest }, { WgcReporter }] = await launching;
    const collector = new WgcReporter();
    let runStarted!: () => void;
    const vitestStarted = new Promise<void>((resolve) => (runStarted = resolve));
    let knowTotal!: (n: number) => void;
    const totals = new Promise<number>((resolve) => (knowTotal = resolve));
    const launch = (selected: readonly { testFile: string }[], context: RunContext | { gate: string }, totalChecks: number | Promise<number>, concurrency: number): Promise<Launched> =>
      runSuitesWithVitest({
        collector,
        onRunStart: () => {
          observer.phase?.('vitestLaunched');
          runStarted();
        },
        root: PACKAGE_ROOT,
        ...(prewarmed ? { prewarmed } : {}),
        files: selected.map((f) => f.testFile),
        run: context,
        concurrency,
        ...(config.shard ? { shard: config.shard } : {}),
        // A refused run (below) says why, not what its suites did when the gate was aborted.
        ...(config.quiet ? {} : { onProgress: (line: string) => refused || io.err(`${line}\n`) }),
        ...(config.quiet || !io.isTTY ? {} : { onLive: (text: string) => refused || io.err(`\r\x1b[2K${text.slice(0, 200)}`) }),
        totalChecks,
      });
    // Without --check the files vitest runs do not depend on the definitions: it starts now, every
    // suite of the shard at once (each waits in the worker for the gate, then for its place).
    if (gate) {
      running = launch(suiteFiles, { gate: gate.name }, totals, Math.max(1, shardFiles(suiteFiles, config.shard ?? undefined).length));
      running.catch(() => undefined);
    }
    // Once vitest has started its worker, little of its start-up is left for this thread: the
    // embedded reference starts then, and the round trip is measured then, so that vitest's
    // start never stretches a sample.
    const settled = running
      ? Promise.race([
          vitestStarted,
          running.then(
            () => undefined,
            () => undefined,
          ),
        ])
      : Promise.resolve();
    if (!target || !found) {
      await settled;
      target = await openTarget(config);
      observer.phase?.('targetOpen');
      found = await preflightTarget(config, target);
      const ended = await judgePreflight(target, found);
      if (ended !== undefined) return ended;
    }
    await settled;
    const roundTripMs = await found.roundTrip();
    const opened = target;
    const run = found.run;
    const pre = found;
    if (pre.introspected) run.introspected = pre.introspected;
    observer.phase?.('preflightDone');

    // The pace: from the round trip the preflight measured, unless set by hand (src/target/pace.ts).
    const pace = choosePace(roundTripMs, suiteFiles.length, {
      ...(resolved.sources.concurrency !== 'default' ? { concurrency: config.concurrency } : {}),
      ...(resolved.sources.maxInFlight !== 'default' ? { maxInFlight: config.maxInFlight } : {}),
    });

    // The worker's outline stands for the definitions where it was worked out for this run's
    // figures; otherwise (no control: keys to match against the casts; an outline that failed)
    // this thread loads them, as it always did.
    const outlined = await outlining;
    const outline = outlined && !('error' in outlined) && hasControl(run) && isDeepStrictEqual(outlined.figures, figuresOf(run)) ? outlined : undefined;
    let defs: SuiteDef[] | undefined;
    let catalog;
    try {
      catalog = loadCatalog();
      if (!outline) defs = await loadSuiteDefs(files, PACKAGE_ROOT);
    } catch (e) {
      if (!(e instanceof SuiteLoadError || e instanceof CatalogError)) {
        await refuse('the suite definitions did not load', () => undefined);
        throw e;
      }
      const message = e.message;
      return refuse(message, () => {
        io.err(`wgc run: ${message}\n`);
        return 2;
      });
    }
    const suites: readonly SuiteOutline[] = outline ? outline.suites : defs!;
    if (outline) observer.phase?.('suitesOutlined');
    const unknownChecks = config.checks.filter((id) => !suites.some((d) => d.checks.some((c) => c.id === id)));
    if (unknownChecks.length > 0) {
      return refuse('unknown --check', () => {
        io.err(`wgc run: --check: unknown check ${unknownChecks.map((s) => `"${s}"`).join(', ')}; list them with wgc clauses, or see report.json's checks\n`);
        return 2;
      });
    }
    // Without control, the supplied keys must fill enough of the casts for the run to be worth a
    // verdict (src/target/cast-share.ts), over every selected suite, so that each shard decides
    // alike. A run narrowed by --check (a replay) uses few cast members: it needs only one.
    if (!hasControl(run) && defs) {
      const chosenSuites = defs.filter((s) => (config.suites.length === 0 || config.suites.includes(s.name)) && (config.checks.length === 0 || s.checks.some((c) => config.checks.includes(c.id))));
      const introspected = run.introspected ?? [];
      const share = castShare(chosenSuites, run.keys, introspected, run.roles);
      if (share.total > 0) io.out(`keys fill ${share.matched} of ${share.total} cast members of the selected suites\n`);
      const minShare = config.checks.length > 0 ? 0 : config.minCastShare;
      const short = castShortfall(share, introspected, { ...(run.roles ? { roles: run.roles } : {}), minShare });
      if (short && !config.allowPartial) {
        return refuse('the keys fill too few cast members', () => {
          io.err(`wgc run: ${short.summary}:\n${short.details.map((d) => `  ${d}\n`).join('')}`);
          return abort(opened, [`keys: ${short.summary}; no suite ran`, ...short.details.map((d) => `keys: ${d}`)]);
        });
      }
      if (short) io.out(`--allow-partial: ${short.summary}; running anyway\n`);
    }
    observer.phase?.('suitesLoaded');
    run.http = {
      ...run.http,
      maxInFlight: pace.maxInFlight,
      retry429: { ...run.http.retry429, budget: retryBudgetFor(pace.maxInFlight) },
      ...(pace.slowMs !== undefined ? { slowMs: pace.slowMs } : {}),
    };
    // The plan is printed before anything billable is sent (the preflight's GET /me is free).
    const plan = outline ? outline.plan : planCredits(defs!, run);
    io.out(`${describeCreditPlan(plan)}\n${describePace(pace)}\n`);
    let prepared: PreparedRun;
    try {
      // With control nothing is introspected: the plan goes with the context (engine/run.ts prepareRun).
      if (outline) prepared = { run: withCreditPlan(run, plan), plan, requests: 0 };
      else {
        const { prepareRun } = await import('../engine/run.ts');
        prepared = await prepareRun(defs!, run, { plan });
      }
    } catch (e) {
      return refuse('the run preparation failed', () => {
        throw e;
      });
    }

    // --check narrows the suites to those holding a selected check.
    const checkSuites = new Set(suites.filter((s) => s.checks.some((c) => config.checks.includes(c.id))).map((s) => s.name));
    const selected = suiteFiles.filter((f) => config.checks.length === 0 || checkSuites.has(f.name));
    const chosen = (s: SuiteOutline, id: string): boolean => (config.suites.length === 0 || config.suites.includes(s.name)) && (config.checks.length === 0 || config.checks.includes(id));
    const totalChecks = shardFiles(selected, config.shard ?? undefined)
      .flatMap((f) => suites.filter((s) => s.name === f.name))
      .reduce((n, s) => n + s.checks.filter((c) => chosen(s, c.id)).length, 0);
    knowTotal(totalChecks);
    observer.phase?.('vitestStart');
    // Every session of the run (one vitest worker) draws 429 retries from one budget, the run's
    // (runRetryBudget, src/engine/context.ts): the whole run never waits on more 429s than that.
    const context: RunContext = { ...prepared.run, stop: stopper.plan, suitesSideBySide: pace.concurrency };
    // A signal before the suites start: none starts (their sessions would not hear it).
    if (stopper.cancelledBy) {
      const why = `the run was cancelled (${stopper.cancelledBy}) before any suite started`;
      return refuse(why, () => abort(opened, [`${why}; no suite ran`]));
    }
    if (gate) gate.open(context);
    else running = launch(selected, context, totalChecks, pace.concurrency);
    let vt: Launched;
    let forcedBy: string | undefined;
    try {
      const ended = await Promise.race([running!.then((v) => ({ v })), stopper.forced.then((why) => ({ why }))]);
      if ('v' in ended) vt = ended.v;
      else {
        // The suites did not end in time: report what finished; the rest did not run.
        forcedBy = ended.why;
        running!.catch(() => undefined);
        const results = collector.results();
        vt = { results, runErrors: collector.runErrors(), requests: results.reduce((n, r) => n + r.requests, 0), creditsCharged: null, reporter: collector, sessions: [], files: [] };
      }
    } finally {
      gate?.close();
      stopper.dispose();
    }
    const cancelled = stopper.cancelledBy ? `the run was cancelled (${stopper.cancelledBy})` : undefined;
    const shortBy = forcedBy ?? cancelled;
    const missing = shortBy ? unfinished(suites, chosen, vt.results, `not run: ${shortBy}`, config.seed) : [];
    vt.results.push(...missing);
    if (cancelled) vt.runErrors.push(`${cancelled}: the report holds the checks that finished; the others are disabled (not run or stopped)`);
    if (forcedBy) vt.runErrors.push(`${forcedBy}: the suites were still running, ${missing.length} check${missing.length === 1 ? '' : 's'} never reported (disabled, not run)`);
    observer.vitest?.(vt);
    observer.phase?.('vitestDone');
    const cut = vt.results.filter((r) => r.outcome === 'disabled' && /^(not run|stopped): the (time budget|run was cancelled)/.test(r.reason ?? '')).length;

    // Clauses only unselected suites speak of are "disabled by --suite", not "no check ran".
    const ran = new Set(suites.flatMap((s) => s.checks.filter((c) => chosen(s, c.id)).flatMap((c) => c.clauses)));
    const disabledClauses: Record<string, string> = {};
    for (const s of suites)
      for (const c of s.checks)
        for (const id of c.clauses)
          if (!ran.has(id))
            disabledClauses[id] =
              config.checks.length > 0 && (config.suites.length === 0 || config.suites.includes(s.name)) ? 'check not selected (--check)' : `suite ${s.name} not selected (--suite)`;

    const { buildRunResult, hashFile, DEFAULT_SPEC_PATH, writeReports, renderTerminalSummary, exitCodeOf, requireCoverage } = await reporting();
    const meta: RunMetaInput = {
      specHash: hashFile(DEFAULT_SPEC_PATH),
      targetBaseUrl: opened.identity,
      control: hasControl(run),
      config: { ...redactConfig(config), target: opened.label },
      seed: config.seed,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      requests: pre.requests + prepared.requests + vt.requests,
      creditsCharged: vt.creditsCharged,
      creditPlan: { planned: plan.planned, ceiling: plan.ceiling, wanted: plan.wanted, limit: plan.limit, excluded: plan.excluded },
      pace: paceRecord(pace, vt.sessions, { retryBudget: context.http.retry429.budget, roundTripSamples: pre.roundTripSamples }),
      runErrors: vt.runErrors,
      disabledClauses,
      ...(config.shard ? { shard: config.shard } : {}),
    };
    // Clause links point at the seed's sections: the copy shipped beside the suite unless --seed-url.
    const seedDoc = (await import('../report/seed-link.ts')).bundledSeedDocument(PACKAGE_ROOT, config.seedUrl);
    if (seedDoc) meta.seedDoc = seedDoc;
    const built = buildRunResult(vt.results, catalog, meta);
    const result = { ...built, summary: requireCoverage(built.summary, config.requireCoverage) };
    const out = resolve(config.out);
    if (config.shard) {
      const path = await vt.reporter.writePartial(out, config.shard, meta);
      io.out(`shard ${config.shard.index}/${config.shard.count}: wrote ${path}; combine the shards with wgc merge\n`);
      return exitCodeOf(result.summary.verdict);
    }
    const written = await writeReports(result, out);
    const listed = [...written];
    if (config.allureResults) {
      const dir = resolve(config.allureResults);
      const { writeAllureResults } = await import('../../reporters/allure-results.ts');
      await writeAllureResults(result, dir);
      listed.push(dir);
    }
    if (config.certify) {
      const bundle = join(out, 'certification');
      const { writeCertificationBundle } = await import('../report/certify.ts');
      await writeCertificationBundle(result, bundle, { specPath: DEFAULT_SPEC_PATH, catalogPath: catalog.path, reports: written, ...(signingKey ? { signWith: signingKey } : {}) });
      listed.push(bundle);
    }
    io.out(renderTerminalSummary(result, { color: io.isTTY ?? false, files: listed }));
    if (signingKey) {
      const { fingerprintOf } = await import('../report/signature.ts');
      io.out(`certification bundle signed by ${fingerprintOf(signingKey)} (MANIFEST.sig; check it with wgc verify-bundle DIR --public-key FILE)\n`);
    }
    if (cut > 0)
      io.out(
        `coverage cut: ${cut} check${cut === 1 ? '' : 's'} did not run to the end because ${cancelled ?? `the time budget (${stopper.plan.budget}) ran out`}; their clauses are reported disabled\n`,
      );
    observer.phase?.('reported');
    if (forcedBy) (observer.exit ?? process.exit)(cancelled ? 2 : result.summary.exitCode);
    // A cancelled run is inconclusive whatever it saw before the signal (exit 2).
    return cancelled ? 2 : result.summary.exitCode;
  } finally {
    // A run that ended before it opened the gate (an exception) winds its vitest run down first.
    if (gate && !gate.decided) await refuse('the run did not start', () => undefined);
    // A thread vitest never adopted (a run refused before it started) is stopped.
    await prewarmed?.dispose();
    stopper.dispose();
    await target?.close?.();
  }
}

/** Results for the chosen checks that never reported one (a run cut short): disabled, with the reason. */
function unfinished(suites: readonly SuiteOutline[], chosen: (s: SuiteOutline, id: string) => boolean, results: readonly CheckResult[], reason: string, seed: number): CheckResult[] {
  const have = new Set(results.map((r) => r.checkId));
  return suites.flatMap((s) =>
    s.checks
      .filter((c) => chosen(s, c.id) && !have.has(c.id))
      .map((c) => ({ checkId: c.id, suite: s.name, title: c.title, ...uniform(c, 'disabled', reason), requests: 0, plannedCredits: 0, durationMs: 0, seed })),
  );
}

/** The pace as the report records it: as chosen, with the rate-limit waits the sessions saw (they share one pace, so the last word is the whole run's). */
function paceRecord(pace: PaceChoice, sessions: readonly SessionSummary[], run: { retryBudget: number; roundTripSamples: number }): Pace {
  const waits = sessions.map((s) => s.paceWaits).filter((w) => w !== undefined);
  const last = waits.reduce<PaceWaits | undefined>((a, w) => (a === undefined || w.count >= a.count ? w : a), undefined);
  // The sessions draw from one budget: the last to close saw every retry taken.
  const retries = Math.max(0, ...sessions.map((s) => s.retriesSpent ?? 0));
  return {
    roundTripMs: pace.roundTripMs,
    concurrency: pace.concurrency,
    maxInFlight: pace.maxInFlight,
    chosen: pace.chosen,
    rateLimitWaits: last?.count ?? 0,
    rateLimitWaitedMs: last?.totalMs ?? 0,
    ratePerMinute: last?.perMinute ?? null,
    retryBudget: run.retryBudget,
    retries,
    roundTripSamples: run.roundTripSamples,
  };
}

/** What the preflight of a target found, with the client that measures its round trip. */
interface Preflighted extends PreflightResult {
  /** The run's context for this target. */
  run: RunContext;
  /** Set when --control-url does not speak the test-control protocol (the run must not go on). */
  controlProblem?: string;
  /** Requests the preflight sent (the round trip's included once measured). */
  readonly requests: number;
  /** Of those, the round trip's samples. */
  readonly roundTripSamples: number;
  /** The round trip (src/target/pace.ts), measured once, when nothing else holds this thread; closes the client. null after problems. */
  roundTrip(): Promise<number | null>;
}

/**
 * The preflight (src/target/preflight.ts) through a client of its own, with the run's bounds,
 * secrets redacted, beside the control protocol's GET /; the round trip is measured later, by
 * `roundTrip()`.
 */
async function preflightTarget(config: Config, target: Target): Promise<Preflighted> {
  const run = runContextFor(config, target);
  const secrets = new SecretRegistry();
  for (const k of run.keys) secrets.add(k.secret, k.name);
  const api = createHttpClient({ baseUrl: run.baseUrl, ...run.http, secrets, idPrefix: 'preflight' });
  let closed = false;
  let samples = 0;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await api.close();
  };
  try {
    const keys = hasControl(run) ? [] : run.keys;
    const [controlProblem, out] = await Promise.all([checkControlProtocol(target, config), preflight(api, keys)]);
    const problems = out.problems.map((p) => secrets.redact(p));
    if (controlProblem || problems.length > 0) await close();
    return {
      ...out,
      problems,
      run,
      ...(controlProblem ? { controlProblem } : {}),
      get requests() {
        return api.requestCount;
      },
      get roundTripSamples() {
        return samples;
      },
      async roundTrip() {
        if (closed) return null;
        const before = api.requestCount;
        try {
          return await measureRoundTrip(api);
        } finally {
          samples = api.requestCount - before;
          await close();
        }
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Asks the control URL which protocol it speaks (GET {control_url}/) before the run, so a wrong
 * URL or token is one clear usage error instead of provisioning failures in every suite.
 */
async function checkControlProtocol(target: Target, config: Config): Promise<string | undefined> {
  if (!target.controlUrl || !target.controlToken) return undefined;
  const control = createControlClient({ controlUrl: target.controlUrl, token: target.controlToken, http: { timeoutMs: config.timeoutMs, allowInsecureHttp: config.allowInsecureHttp } });
  try {
    const info = await control.info();
    if (info.protocol !== 'wg-control' || info.version !== 1) {
      return `${target.controlUrl} speaks ${JSON.stringify(info.protocol)} version ${JSON.stringify(info.version)}; this suite needs wg-control version 1`;
    }
    return undefined;
  } catch (e) {
    return `${target.controlUrl} does not answer GET / as the wg-control protocol (${(e as Error).message})`;
  } finally {
    await control.close();
  }
}
