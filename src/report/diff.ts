/**
 * Compares two run reports clause by clause (`wgc diff BASE HEAD`): what regressed, what was
 * fixed, what appeared or disappeared from the catalog, what changed observability, and how
 * the verdict moved.
 */
import { OUTCOME_LABEL, type Outcome } from '../engine/outcome.ts';
import type { ClauseEntry, RunResult, Verdict } from './model.ts';
import { escapeMarkdown as md, html, truncate } from './escape.ts';
import { catalogDrift, type CatalogDrift } from '../target/live-catalog.ts';

/** One clause whose outcome changed. */
export interface ClauseChange {
  id: string;
  level: ClauseEntry['level'];
  statement: string;
  from: Outcome;
  to: Outcome;
}

/** One clause present on one side only. */
export interface ClausePresence {
  id: string;
  level: ClauseEntry['level'];
  statement: string;
  outcome: Outcome;
}

/** The clause-by-clause difference between two reports. */
export interface ReportDiff {
  /** Failed in HEAD, not failed in BASE (passed → failed, and also not observable → failed). */
  regressed: ClauseChange[];
  /** Failed in BASE, passed in HEAD. */
  fixed: ClauseChange[];
  /** In HEAD's catalog only. */
  appeared: ClausePresence[];
  /** In BASE's catalog only. */
  disappeared: ClausePresence[];
  /** Observed (passed/failed/harness error) on one side, not observable or disabled on the other. */
  observability: ClauseChange[];
  /** Any other outcome change (e.g. passed → harness error, not observable → disabled). */
  otherChanges: ClauseChange[];
  verdict: { from: Verdict; to: Verdict; changed: boolean };
  specChanged: boolean;
  catalogChanged: boolean;
  /** Clauses verified (passed) in BASE and not observable or disabled in HEAD: coverage lost. */
  coverageLost: ClauseChange[];
  /** What changed in the live catalog GET /capabilities served (report meta.liveCatalog). */
  catalog: CatalogDrift;
  /**
   * True when a clause regressed, the verdict got worse, (unless coverage loss is allowed) a
   * clause verified in BASE went unverified in HEAD, or (unless catalog changes are allowed) an
   * operation or change kind of BASE's live catalog is gone from HEAD's: `wgc diff` exits 1.
   */
  hasRegression: boolean;
}

/** How the diff is judged. */
export interface DiffOptions {
  /** Verified → not observable (or disabled) is no regression (`--allow-coverage-loss`). */
  allowCoverageLoss?: boolean;
  /** Operations or change kinds gone from the live catalog are no regression (`--allow-catalog-change`). */
  allowCatalogChange?: boolean;
}

const OBSERVED: readonly Outcome[] = ['passed', 'failed', 'harnessError'];
const VERDICT_RANK: Record<Verdict, number> = { conformant: 0, inconclusive: 1, 'not-conformant': 2 };

/** The clause-by-clause difference from `base` to `head`. */
export function diffReports(base: RunResult, head: RunResult, opts: DiffOptions = {}): ReportDiff {
  const baseById = new Map(base.clauses.map((c) => [c.id, c]));
  const headById = new Map(head.clauses.map((c) => [c.id, c]));
  const d: ReportDiff = {
    regressed: [],
    fixed: [],
    appeared: head.clauses.filter((c) => !baseById.has(c.id)).map(presence),
    disappeared: base.clauses.filter((c) => !headById.has(c.id)).map(presence),
    observability: [],
    otherChanges: [],
    verdict: { from: base.summary.verdict, to: head.summary.verdict, changed: base.summary.verdict !== head.summary.verdict },
    specChanged: base.meta.specHash !== head.meta.specHash,
    catalogChanged: base.meta.catalogHash !== head.meta.catalogHash,
    coverageLost: [],
    catalog: catalogDrift(base.meta.liveCatalog, head.meta.liveCatalog),
    hasRegression: false,
  };
  for (const h of head.clauses) {
    const b = baseById.get(h.id);
    if (!b || b.outcome === h.outcome) continue;
    const change: ClauseChange = { id: h.id, level: h.level, statement: h.statement, from: b.outcome, to: h.outcome };
    if (h.outcome === 'failed') d.regressed.push(change);
    else if (b.outcome === 'failed' && h.outcome === 'passed') d.fixed.push(change);
    if (b.outcome === 'passed' && !OBSERVED.includes(h.outcome)) d.coverageLost.push(change);
    if (OBSERVED.includes(b.outcome) !== OBSERVED.includes(h.outcome)) d.observability.push(change);
    else if (h.outcome !== 'failed' && !(b.outcome === 'failed' && h.outcome === 'passed')) d.otherChanges.push(change);
  }
  const catalogLoss = d.catalog.removedOperations.length + d.catalog.removedChangeKinds.length > 0;
  d.hasRegression =
    d.regressed.length > 0 || VERDICT_RANK[d.verdict.to] > VERDICT_RANK[d.verdict.from] || (!opts.allowCoverageLoss && d.coverageLost.length > 0) || (!opts.allowCatalogChange && catalogLoss);
  return d;
}

function presence(c: ClauseEntry): ClausePresence {
  return { id: c.id, level: c.level, statement: c.statement, outcome: c.outcome };
}

const label = (o: Outcome) => OUTCOME_LABEL[o];

/** The diff as plain text (for a terminal; untrusted text is kept on one line). */
export function renderDiffText(d: ReportDiff): string {
  const one = (t: string) => truncate(t.replace(/[\u0000-\u001F\u007F-\u009F]/g, ' '), 90);
  const out: string[] = [`verdict: ${d.verdict.from}${d.verdict.changed ? ` -> ${d.verdict.to}` : ' (unchanged)'}`];
  if (d.specChanged) out.push('note: openapi.yaml differs between the runs');
  if (d.catalogChanged) out.push('note: the clause catalog differs between the runs');
  const changes = (title: string, list: ClauseChange[]) => {
    if (list.length === 0) return;
    out.push('', `${title} (${list.length}):`);
    for (const c of list) out.push(`  ${c.id} [${c.level}] ${label(c.from)} -> ${label(c.to)}  ${one(c.statement)}`);
  };
  const presences = (title: string, list: ClausePresence[]) => {
    if (list.length === 0) return;
    out.push('', `${title} (${list.length}):`);
    for (const c of list) out.push(`  ${c.id} [${c.level}] ${label(c.outcome)}  ${one(c.statement)}`);
  };
  changes('Regressed', d.regressed);
  changes('Coverage lost: verified before, not now (a regression unless --allow-coverage-loss)', d.coverageLost);
  changes('Fixed', d.fixed);
  changes('Observability changed', d.observability);
  changes('Other changes', d.otherChanges);
  presences('Appeared', d.appeared);
  presences('Disappeared', d.disappeared);
  if (out.length === 1 + Number(d.specChanged) + Number(d.catalogChanged)) out.push('no clause changed');
  // Names come from the target: control characters out, one line each, long lists kept.
  out.push('', ...catalogLines(d.catalog).map((l) => truncate(l.replace(/[\u0000-\u001F\u007F-\u009F]/g, ' '), 2000)));
  return `${out.join('\n')}\n`;
}

/** The diff as Markdown (for pull-request comments and step summaries). */
export function renderDiffMarkdown(d: ReportDiff): string {
  const out: string[] = [`## wgc diff: ${d.hasRegression ? '❌ regression' : '✅ no regression'}`, '', `**Verdict:** ${d.verdict.from}${d.verdict.changed ? ` → ${d.verdict.to}` : ' (unchanged)'}`];
  if (d.specChanged) out.push('', '_openapi.yaml differs between the runs._');
  if (d.catalogChanged) out.push('', '_The clause catalog differs between the runs._');
  const table = (title: string, rows: string[]) => {
    if (rows.length === 0) return;
    out.push('', `### ${title} (${rows.length})`, '', '| Clause | Level | Change | Statement |', '|---|---|---|---|', ...rows);
  };
  const change = (c: ClauseChange) => `| ${md(c.id)} | ${c.level} | ${label(c.from)} → ${label(c.to)} | ${md(truncate(c.statement, 100))} |`;
  const pres = (c: ClausePresence) => `| ${md(c.id)} | ${c.level} | ${label(c.outcome)} | ${md(truncate(c.statement, 100))} |`;
  table('Regressed', d.regressed.map(change));
  table('Coverage lost: verified before, not now', d.coverageLost.map(change));
  table('Fixed', d.fixed.map(change));
  table('Observability changed', d.observability.map(change));
  table('Other changes', d.otherChanges.map(change));
  table('Appeared', d.appeared.map(pres));
  table('Disappeared', d.disappeared.map(pres));
  out.push('', '### Live catalog (GET /capabilities)', '', ...catalogLines(d.catalog).map((l) => `- ${md(l)}`));
  return `${out.join('\n')}\n`;
}

/**
 * The diff as one self-contained HTML page (for a release gate's artifacts): the verdict, each
 * group of clause changes as a table, and the live catalog's drift beside them. Every string is
 * escaped (it may come from the target).
 */
export function renderDiffHtml(d: ReportDiff): string {
  const changeRows = (list: ClauseChange[]) =>
    list.map((c) => html`<tr><td><code>${c.id}</code></td><td>${c.level}</td><td>${label(c.from)} → ${label(c.to)}</td><td>${truncate(c.statement, 200)}</td></tr>`);
  const presenceRows = (list: ClausePresence[]) => list.map((c) => html`<tr><td><code>${c.id}</code></td><td>${c.level}</td><td>${label(c.outcome)}</td><td>${truncate(c.statement, 200)}</td></tr>`);
  const section = (title: string, rows: ReturnType<typeof changeRows>) =>
    rows.length === 0
      ? ''
      : html`<section><h2>${title} (${rows.length})</h2><table><thead><tr><th>Clause</th><th>Level</th><th>Change</th><th>Statement</th></tr></thead><tbody>${rows}</tbody></table></section>`;
  const catalogRemoved = d.catalog.removedOperations.length + d.catalog.removedChangeKinds.length > 0;
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>wgc diff</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}.bad{color:#b00020}.good{color:#0a6b2d}</style>
</head><body>
<h1 class="${d.hasRegression ? 'bad' : 'good'}">wgc diff: ${d.hasRegression ? 'regression' : 'no regression'}</h1>
<p><strong>Verdict:</strong> ${d.verdict.from}${d.verdict.changed ? ` → ${d.verdict.to}` : ' (unchanged)'}</p>
${d.specChanged ? html`<p><em>openapi.yaml differs between the runs.</em></p>` : ''}
${d.catalogChanged ? html`<p><em>The clause catalog differs between the runs.</em></p>` : ''}
${section('Regressed', changeRows(d.regressed))}
${section('Coverage lost: verified before, not now', changeRows(d.coverageLost))}
${section('Fixed', changeRows(d.fixed))}
${section('Observability changed', changeRows(d.observability))}
${section('Other changes', changeRows(d.otherChanges))}
${section('Appeared', presenceRows(d.appeared))}
${section('Disappeared', presenceRows(d.disappeared))}
<section id="live-catalog"><h2 class="${catalogRemoved ? 'bad' : ''}">Live catalog (GET /capabilities)</h2><ul>${catalogLines(d.catalog).map((l) => html`<li>${l}</li>`)}</ul></section>
</body></html>
`;
  return body.toString();
}

/** The live catalog's drift as lines: removed first (a regression unless allowed), then news. */
function catalogLines(c: CatalogDrift): string[] {
  if (!c.comparable) return ['live catalog: not compared (a run has none on record: no check could read GET /capabilities, or the report predates it)'];
  const lines: string[] = [];
  const list = (title: string, xs: string[]) => {
    if (xs.length > 0) lines.push(`${title} (${xs.length}): ${xs.join(', ')}`);
  };
  list('live catalog: operations removed (a regression unless --allow-catalog-change)', c.removedOperations);
  list('live catalog: change kinds removed (a regression unless --allow-catalog-change)', c.removedChangeKinds);
  list('live catalog: operations added (news)', c.addedOperations);
  list('live catalog: change kinds added (news)', c.addedChangeKinds);
  if (lines.length === 0) lines.push('live catalog: unchanged');
  return lines;
}
