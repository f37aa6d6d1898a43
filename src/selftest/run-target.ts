/**
 * One self-test run: a fresh embedded reference (conformant, or with the given faults), every
 * suite run against it in-process, the server closed, and the check results reduced to the
 * clause outcomes the kill matrix needs. Clause outcomes come from the report builder (the one
 * place that maps check outcomes to clause outcomes), so the self-test sees exactly what
 * `wgc run` would report.
 */
import type { Catalog } from '../catalog/load.ts';
import type { CheckResult, SuiteDef } from '../engine/check.ts';
import { controlledRunContext } from '../engine/context.ts';
import { runSuitesInProcess } from '../engine/run.ts';
import { startReference } from '../reference/index.ts';
import { buildRunResult } from '../report/build.ts';
import { DEFAULT_SPEC_PATH, hashFile } from '../report/meta.ts';
import type { RunResult } from '../report/model.ts';
import type { CheckHarnessError, ClauseFailure, TargetRunSummary } from './model.ts';

/** What every run of one self-test shares. */
export interface TargetRunOptions {
  suites: readonly SuiteDef[];
  catalog: Catalog;
  seed: number;
  numRuns: number;
  /** Suites run in parallel against one reference (hides the checks' waits: polls, ledger settling). */
  suiteConcurrency: number;
  /** Per-request time limit in ms. */
  timeoutMs?: number;
  /** Only these checks run; the others are disabled, as by --check. */
  checks?: readonly string[];
}

/** Longest first-finding message kept in a summary. */
const MESSAGE_MAX = 240;

let specHash: string | undefined;

/** Starts a reference with `faults`, runs every suite against it, closes it, and summarises. */
export async function runTarget(faults: readonly string[], opts: TargetRunOptions): Promise<TargetRunSummary> {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const ref = await startReference({ faults });
  try {
    const base = controlledRunContext(ref, { seed: opts.seed, numRuns: opts.numRuns, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) });
    const run = opts.checks ? { ...base, checks: [...opts.checks] } : base;
    const out = await runSuitesInProcess(opts.suites, run, { concurrency: opts.suiteConcurrency });
    specHash ??= hashFile(DEFAULT_SPEC_PATH);
    const result = buildRunResult(out.results, opts.catalog, {
      specHash,
      targetBaseUrl: ref.baseUrl,
      control: true,
      config: { selftest: true, faults: [...faults] },
      seed: opts.seed,
      startedAt: new Date(started).toISOString(),
      durationMs: out.durationMs,
      requests: out.requests,
      creditsCharged: out.creditsCharged,
      runErrors: out.runErrors,
    });
    const used = process.cpuUsage(cpu);
    return summarise(result, out.results, faults, { durationMs: Date.now() - started, cpuMs: Math.round((used.user + used.system) / 1000) });
  } finally {
    await ref.close();
  }
}

/** Reduces a run's report to what the kill matrix needs (small enough to send between processes). */
export function summarise(result: RunResult, checks: readonly CheckResult[], faults: readonly string[], time: { durationMs: number; cpuMs: number }): TargetRunSummary {
  const outcomes: TargetRunSummary['outcomes'] = {};
  const reasons: TargetRunSummary['reasons'] = {};
  const failures: ClauseFailure[] = [];
  for (const c of result.clauses) {
    if (!c.observable || c.checks.length === 0) continue;
    outcomes[c.id] = c.outcome;
    if (c.reason !== undefined) reasons[c.id] = shorten(c.reason);
    if (c.outcome === 'failed') {
      const f: ClauseFailure = { clause: c.id, checks: c.checks.filter((k) => k.outcome === 'failed').map((k) => k.checkId) };
      const first = c.evidence[0]?.message;
      if (first !== undefined) f.message = shorten(first);
      failures.push(f);
    }
  }
  // Per check, not per clause: a harness error stays visible even when another check failed the clause.
  const harnessErrors: CheckHarnessError[] = checks
    .filter((r) => Object.values(r.clauses).includes('harnessError'))
    .map((r) => ({
      check: r.checkId,
      clauses: Object.keys(r.clauses)
        .filter((id) => r.clauses[id] === 'harnessError')
        .sort(),
      reason: shorten(r.reason ?? 'no reason given'),
    }))
    .sort((a, b) => a.check.localeCompare(b.check));
  return { faults: [...faults], ...time, requests: result.meta.requests, outcomes, reasons, failures, harnessErrors, runErrors: [...result.meta.runErrors] };
}

function shorten(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MESSAGE_MAX ? `${one.slice(0, MESSAGE_MAX - 1)}…` : one;
}
