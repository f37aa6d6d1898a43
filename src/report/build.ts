/**
 * Builds the canonical RunResult from the check results of a run (in any order, from any
 * number of workers or shards) and the clause catalog. Pure: the same inputs give the same
 * report, which is what makes a merged sharded run identical to an unsharded one.
 */
import type { CheckResult } from '../engine/check.ts';
import { OUTCOMES, worst, type Outcome } from '../engine/outcome.ts';
import type { Clause } from '../catalog/types.ts';
import { AREAS, areaOf } from '../catalog/types.ts';
import { isObservable, type Catalog } from '../catalog/load.ts';
import { FORMAT_VERSION, type AreaCounts, type CheckSummary, type ClauseCheck, type ClauseEntry, type ReportEvidence, type RunMeta, type RunResult } from './model.ts';
import { suiteInfo, type RunMetaInput } from './meta.ts';
import { redactConfig } from './redact.ts';
import { dedupeEvidence, toReportEvidence } from './evidence.ts';
import { emptyCounts, summarize } from './verdict.ts';
import { seedLinker } from './seed-link.ts';
import { reportScenario } from './scenario.ts';

/** Reason given to an observable clause that no executed check named. */
export const NO_CHECK_RAN = 'no check ran for this clause';

/** The run's report: clause outcomes by precedence, evidence, per-area counts, verdict and coverage. */
export function buildRunResult(results: readonly CheckResult[], catalog: Catalog, meta: RunMetaInput): RunResult {
  const sorted = [...results].sort(compareResults);
  const runErrors = [...(meta.runErrors ?? []), ...unknownClauseErrors(sorted, catalog)];
  const link = seedLinker(meta.seedDoc);

  const clauses = catalog.clauses.map((clause) => clauseEntry(clause, sorted, meta.disabledClauses ?? {}, link(clause.ref)));
  const runMeta: RunMeta = {
    suite: meta.suite ?? suiteInfo(),
    specHash: meta.specHash,
    catalogHash: catalog.hash,
    target: { baseUrl: meta.targetBaseUrl },
    control: meta.control,
    config: redactConfig(meta.config),
    seed: meta.seed,
    startedAt: meta.startedAt,
    durationMs: meta.durationMs,
    requests: meta.requests ?? sum(sorted, (r) => r.requests),
    creditsCharged: meta.creditsCharged,
    creditPlan: creditPlanOf(meta, sorted),
    ...(meta.pace ? { pace: meta.pace } : {}),
    liveCatalog: sorted.find((r) => r.observed?.liveCatalog)?.observed?.liveCatalog ?? null,
    shard: meta.shard ?? null,
    mergedShards: 0,
    runErrors,
  };
  return {
    formatVersion: FORMAT_VERSION,
    meta: runMeta,
    summary: summarize(clauses, runErrors),
    areas: areaCounts(clauses),
    clauses,
    checks: sorted.map(checkSummary),
  };
}

function clauseEntry(clause: Clause, results: readonly CheckResult[], disabled: Record<string, string>, seedLink: string | null): ClauseEntry {
  const speaking = results.filter((r) => Object.hasOwn(r.clauses, clause.id));
  const checks: ClauseCheck[] = speaking.map((r) => {
    const c: ClauseCheck = { checkId: r.checkId, title: r.title, outcome: r.clauses[clause.id]! };
    // Why this clause got no verdict (a verdict needs none): its own note where the check judged
    // others (a check with many clauses lists them all in its reason, which would otherwise
    // repeat in every clause's entry).
    const reason = c.outcome === 'passed' || c.outcome === 'failed' ? undefined : (r.notJudged?.[clause.id] ?? r.reason);
    if (reason !== undefined) c.reason = reason;
    return c;
  });
  const evidence: ReportEvidence[] = dedupeEvidence(results.flatMap((r) => r.findings.filter((f) => f.clause === clause.id).map((f) => toReportEvidence(f, r.checkId))));
  const base = {
    id: clause.id,
    level: clause.level,
    area: areaOf(clause.id),
    ref: clause.ref,
    seedLink,
    statement: clause.statement,
    observable: isObservable(clause),
    checks,
    evidence,
  };
  if (!isObservable(clause)) return { ...base, outcome: 'notObservable', reason: clause.unobservable! };
  if (checks.length === 0) {
    const off = disabled[clause.id];
    return off !== undefined ? { ...base, outcome: 'disabled', reason: off } : { ...base, outcome: 'notObservable', reason: NO_CHECK_RAN };
  }
  const outcome = checks.map((c) => c.outcome).reduce<Outcome>(worst, 'disabled');
  if (outcome === 'passed' || outcome === 'failed') return { ...base, outcome };
  const reasons = [...new Set(checks.filter((c) => c.outcome === outcome).map((c) => c.reason ?? `${c.checkId}: no reason given`))];
  return { ...base, outcome, reason: reasons.join('; ') };
}

/** Clause ids a check or finding names that the catalog does not hold: the harness is wrong. */
function unknownClauseErrors(results: readonly CheckResult[], catalog: Catalog): string[] {
  const errors = new Set<string>();
  for (const r of results) {
    for (const id of Object.keys(r.clauses)) {
      if (!catalog.byId.has(id)) errors.add(`check ${r.checkId} names unknown clause ${id}`);
    }
    for (const f of r.findings) {
      if (!catalog.byId.has(f.clause)) errors.add(`check ${r.checkId} reported a finding for unknown clause ${f.clause}`);
      else if (!Object.hasOwn(r.clauses, f.clause)) errors.add(`check ${r.checkId} reported a finding for clause ${f.clause} it does not name`);
    }
  }
  return [...errors];
}

function areaCounts(clauses: readonly ClauseEntry[]): AreaCounts[] {
  const byArea = new Map<string, AreaCounts>();
  for (const c of clauses) {
    let a = byArea.get(c.area);
    if (!a) byArea.set(c.area, (a = { area: c.area, total: 0, observable: 0, ...emptyCounts() }));
    a.total += 1;
    if (c.observable) a.observable += 1;
    a[c.outcome] += 1;
  }
  const rank = (area: string) => {
    const i = (AREAS as readonly string[]).indexOf(area);
    return i < 0 ? AREAS.length : i;
  };
  return [...byArea.values()].sort((x, y) => rank(x.area) - rank(y.area) || x.area.localeCompare(y.area));
}

function checkSummary(r: CheckResult): CheckSummary {
  const s: CheckSummary = {
    checkId: r.checkId,
    suite: r.suite,
    title: r.title,
    outcome: r.outcome,
    clauses: Object.fromEntries(
      Object.keys(r.clauses)
        .sort()
        .map((k) => [k, r.clauses[k]!]),
    ),
    findings: r.findings.length,
    requests: r.requests,
    plannedCredits: r.plannedCredits,
    durationMs: r.durationMs,
    seed: r.seed,
  };
  if (r.reason !== undefined) s.reason = r.reason;
  // What the check judged, per clause: a pass stands on these counts (src/engine/judged.ts).
  if (r.judged)
    s.judged = Object.fromEntries(
      Object.keys(r.judged)
        .sort()
        .map((k) => [k, r.judged![k]!]),
    );
  if (r.scenario && r.scenario.length > 0 && r.findings.length > 0) s.scenario = reportScenario(r.scenario, r.findings);
  return s;
}

/** Deterministic order: by check id, then by outcome precedence, then by content. */
function compareResults(a: CheckResult, b: CheckResult): number {
  if (a.checkId !== b.checkId) return a.checkId < b.checkId ? -1 : 1;
  const byOutcome = OUTCOMES.indexOf(a.outcome) - OUTCOMES.indexOf(b.outcome);
  if (byOutcome !== 0) return byOutcome;
  const ja = JSON.stringify(a);
  const jb = JSON.stringify(b);
  return ja < jb ? -1 : ja > jb ? 1 : 0;
}

function creditPlanOf(meta: RunMetaInput, results: readonly CheckResult[]): RunMeta['creditPlan'] {
  const planned = meta.creditPlan?.planned ?? sum(results, (r) => r.plannedCredits);
  return {
    planned,
    ceiling: meta.creditPlan?.ceiling ?? planned,
    wanted: meta.creditPlan?.wanted ?? planned,
    limit: meta.creditPlan?.limit ?? null,
    excluded: [...(meta.creditPlan?.excluded ?? [])].sort(),
  };
}

function sum<T>(list: readonly T[], f: (t: T) => number): number {
  return list.reduce((acc, t) => acc + f(t), 0);
}
