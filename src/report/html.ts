/**
 * report.html: one self-contained page (inline CSS and JS, no fonts, scripts or images from
 * anywhere, and a CSP that forbids the network). Verdict and coverage come first (each tile a
 * link to its section), then the failures, open (html-failures.ts), then the run facts, the
 * per-area table, and every clause with filters by outcome and level; each clause row's id is
 * the clause id, so `report.html#IDEM-004` deep-links to it.
 */
import { OUTCOME_LABEL } from '../engine/outcome.ts';
import { OUTCOME_DISPLAY_ORDER as OUTCOMES } from './verdict.ts';
import { LEVELS } from '../catalog/types.ts';
import type { ClauseEntry, RunResult } from './model.ts';
import { html, rawHtml, safeHref, type SafeHtml } from './escape.ts';
import { REPORT_CSP, REPORT_CSS, REPORT_JS } from './html-assets.ts';
import { clauseDetailsHtml } from './html-evidence.ts';
import { FAILURE_ANCHORS, failuresHtml } from './html-failures.ts';

const VERDICT_TITLE = { conformant: 'Conformant', 'not-conformant': 'Not conformant', inconclusive: 'Inconclusive' } as const;

function pct(part: number, whole: number): string {
  return whole === 0 ? '–' : `${Math.round((part / whole) * 100)}%`;
}

function headerHtml(r: RunResult): SafeHtml {
  const { summary: s, meta } = r;
  const c = s.coverage;
  return html`<header class="verdict v-${s.verdict}">
<h1>${VERDICT_TITLE[s.verdict]}${c.full ? ' (full certification)' : s.verdict === 'conformant' ? ' (partial coverage)' : ''}</h1>
<p class="headline">${s.headline}</p>
<p class="headline">Target ${meta.target.baseUrl} — ${meta.suite.name} ${meta.suite.version} — exit code ${s.exitCode}</p>
<nav class="coverage">
<a class="tile" href="#clauses"><b>${c.verified} / ${c.total}</b>clauses verified (${pct(c.verified, c.total)} of the catalog)</a>
<a class="tile" href="#clauses"><b>${c.verified} / ${c.observable}</b>observable clauses verified (${pct(c.verified, c.observable)})</a>
<a class="tile" href="#areas"><b>${c.mustVerified} / ${c.mustObservable}</b>observable MUST clauses verified</a>
<a class="tile t-must" href="#${s.mustFailed.length ? FAILURE_ANCHORS.must : 'failures'}"><b>${s.mustFailed.length}</b>MUST failed</a>
<a class="tile t-should" href="#${s.warnings.length ? FAILURE_ANCHORS.should : 'failures'}"><b>${s.warnings.length}</b>SHOULD warnings</a>
<a class="tile t-harness" href="#${s.harnessErrors.length + meta.runErrors.length ? FAILURE_ANCHORS.harness : 'failures'}"><b>${s.harnessErrors.length + meta.runErrors.length}</b>harness errors</a>
</nav>
</header>`;
}

function creditPlanText(p: RunResult['meta']['creditPlan']): string {
  const limit = p.limit === null ? 'no --max-credits limit' : `limit ${p.limit}`;
  const cut = p.excluded.length > 0 ? `; ${p.excluded.length} checks disabled by the limit (${p.excluded.join(', ')})` : '';
  const ceiling = p.ceiling === undefined ? '' : `, ceiling ${p.ceiling}`;
  return `${p.planned} credits planned${ceiling} (${p.wanted} wanted), ${limit}${cut}`;
}

function runHtml(r: RunResult): SafeHtml {
  const m = r.meta;
  const rows: [string, string][] = [
    ['Suite', `${m.suite.name} ${m.suite.version}`],
    ['Target', m.target.baseUrl],
    ['Test-control protocol', m.control ? 'used' : 'not used'],
    ['Seed', String(m.seed)],
    ['Started', m.startedAt],
    ['Duration', `${(m.durationMs / 1000).toFixed(1)} s`],
    ['Requests sent', String(m.requests)],
    ['Credits charged', m.creditsCharged === null ? `unknown (no usage ledger); ${m.creditPlan.planned} planned` : `${m.creditsCharged} of ${m.creditPlan.planned} planned`],
    ['Credit plan', creditPlanText(m.creditPlan)],
    ['Shard', m.shard ? `${m.shard.index} of ${m.shard.count}` : m.mergedShards > 0 ? `merged from ${m.mergedShards} shards` : 'unsharded'],
    ['openapi.yaml sha256', m.specHash],
    ['clauses.yaml sha256', m.catalogHash],
  ];
  return html`<section id="run"><h2>Run</h2>
<table><tbody>${rows.map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}</tbody></table>
${m.runErrors.length ? html`<h4>Run errors (the harness broke; the verdict cannot be trusted)</h4><ul>${m.runErrors.map((e) => html`<li>${e}</li>`)}</ul>` : ''}
<details><summary>Configuration (redacted)</summary><pre>${JSON.stringify(m.config, null, 2)}</pre></details>
</section>`;
}

function areasHtml(r: RunResult): SafeHtml {
  return html`<section id="areas"><h2>By area</h2>
<table><thead><tr><th>Area</th><th>Clauses</th><th>Observable</th>${OUTCOMES.map((o) => html`<th class="o-${o}">${OUTCOME_LABEL[o]}</th>`)}</tr></thead>
<tbody>${r.areas.map(
    (a) => html`<tr><td>${a.area}</td><td class="num">${a.total}</td><td class="num">${a.observable}</td>${OUTCOMES.map((o) => html`<td class="num">${a[o]}</td>`)}</tr>`,
  )}</tbody></table></section>`;
}

function clauseRow(c: ClauseEntry): SafeHtml {
  const id = c.seedLink ? html`<a href="${safeHref(c.seedLink)}" title="${c.ref}">${c.id}</a>` : html`<span title="${c.ref}">${c.id}</span>`;
  // The row's id is the clause id itself, so a link can point at report.html#IDEM-004.
  return html`<tr id="${c.id}" data-outcome="${c.outcome}" data-level="${c.level}">
<td>${id}</td><td>${c.level}</td><td>${c.area}</td><td class="o o-${c.outcome}">${OUTCOME_LABEL[c.outcome]}</td>
<td>${c.statement} <span class="note">(seed ${c.ref})</span>${clauseDetailsHtml(c)}</td></tr>`;
}

function clausesHtml(r: RunResult): SafeHtml {
  return html`<section id="clauses"><h2>Clauses</h2>
<div class="filters"><span>Outcome:</span>
${OUTCOMES.map((o) => html`<label><input type="checkbox" data-filter-outcome="${o}" checked> ${OUTCOME_LABEL[o]} (${r.summary.counts[o]})</label>`)}
<label>Level: <select id="filter-level"><option value="all">all</option>${LEVELS.map((l) => html`<option value="${l}">${l}</option>`)}</select></label>
<button type="button" id="filter-problems">Only failures and harness errors</button> <button type="button" id="filter-reset">All</button>
<span class="note">showing <span id="shown-count">${r.clauses.length}</span> of ${r.clauses.length}</span></div>
<table id="clause-table"><thead><tr><th>Clause</th><th>Level</th><th>Area</th><th>Outcome</th><th>Statement and evidence</th></tr></thead>
<tbody>${r.clauses.map(clauseRow)}</tbody></table></section>`;
}

/** The whole report page. */
export function renderHtml(r: RunResult): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${VERDICT_TITLE[r.summary.verdict]} — ${r.meta.target.baseUrl} — wgc report</title>
<style>${rawHtml(REPORT_CSS)}</style></head>
<body>
${headerHtml(r)}
${failuresHtml(r)}
${runHtml(r)}
${areasHtml(r)}
${clausesHtml(r)}
<p class="note">Report format ${r.formatVersion}. SHOULD failures are warnings and do not change the verdict. Exchanges were redacted when captured.</p>
<script>${rawHtml(REPORT_JS)}</script>
</body></html>
`.value;
}
