/**
 * The failures section that opens report.html: failed MUST clauses, then SHOULD warnings,
 * then harness errors (and run errors), each open with its evidence (expected and received,
 * the exchange with pretty-printed JSON) and its reproduction (the exact `wgc run` replay and
 * the script replaying every request of the scenario). Built only with the escaping `html`
 * template: every string here may have come from the target.
 */
import type { CheckSummary, ClauseEntry, RunResult } from './model.ts';
import { html, safeHref, type SafeHtml } from './escape.ts';
import { copyBlock, evidenceHtml } from './html-evidence.ts';
import { REPRODUCE_DIR, reproductionFile, reproductionScript, rerunCommand } from './reproduce.ts';

/** Anchors of the failure groups (the header's tiles link to them). */
export const FAILURE_ANCHORS = { must: 'failures-must', should: 'failures-should', harness: 'failures-harness' } as const;

function reproductionHtml(r: RunResult, checks: readonly CheckSummary[], c: ClauseEntry): SafeHtml {
  const ids = [...new Set(c.evidence.map((e) => e.checkId))];
  return html`<h4>Reproduce</h4>
${copyBlock('Replay exactly with the suite', rerunCommand(r.meta, ids))}
${ids.map((id) => {
  const check = checks.find((k) => k.checkId === id);
  const script = check
    ? reproductionScript(
        check,
        r.meta,
        c.evidence.filter((e) => e.checkId === id),
      )
    : undefined;
  if (!script || !check?.scenario) return '';
  return html`<details class="script"><summary>Replay without the suite: a shell script of the ${check.scenario.steps.length} requests of ${id}'s scenario (also <code>${REPRODUCE_DIR}/${reproductionFile(id)}</code>)</summary>${copyBlock('sh', script)}</details>`;
})}`;
}

function failureHtml(r: RunResult, c: ClauseEntry): SafeHtml {
  const seed = c.seedLink ? html` <a href="${safeHref(c.seedLink)}">seed ${c.ref}</a>` : html` <span class="note">seed ${c.ref}</span>`;
  return html`<article class="failure l-${c.level} k-${c.outcome}" id="failure-${c.id}">
<h3><a href="#${c.id}">${c.id}</a> <span class="badge">${c.level}</span> ${c.statement}${seed}</h3>
${c.reason ? html`<p class="reason">${c.reason}</p>` : ''}
${c.evidence.map((e) => evidenceHtml(e, true))}
${
  c.evidence.length > 0
    ? reproductionHtml(r, r.checks, c)
    : c.outcome === 'harnessError'
      ? html`<h4>Rerun</h4>${copyBlock(
          'Rerun the checks',
          rerunCommand(
            r.meta,
            c.checks.filter((k) => k.outcome === 'harnessError').map((k) => k.checkId),
          ),
        )}`
      : ''
}
</article>`;
}

function group(r: RunResult, id: string, title: string, list: readonly ClauseEntry[], extra: SafeHtml | '' = ''): SafeHtml | '' {
  if (list.length === 0 && !extra) return '';
  return html`<section class="group" id="${id}"><h2>${title} (${list.length})</h2>${list.map((c) => failureHtml(r, c))}${extra}</section>`;
}

/** The failures section, or a one-line note that nothing failed. */
export function failuresHtml(r: RunResult): SafeHtml {
  const failed = r.clauses.filter((c) => c.outcome === 'failed');
  const must = failed.filter((c) => c.level === 'MUST');
  const should = failed.filter((c) => c.level !== 'MUST');
  const broken = r.clauses.filter((c) => c.outcome === 'harnessError');
  const runErrors = r.meta.runErrors.length
    ? html`<article class="failure k-harnessError"><h3>Run errors <span class="note">(the harness broke; the verdict cannot be trusted)</span></h3><ul>${r.meta.runErrors.map((e) => html`<li>${e}</li>`)}</ul></article>`
    : '';
  if (failed.length === 0 && broken.length === 0 && !runErrors) {
    return html`<section id="failures"><p class="allclear">No failures, warnings or harness errors.</p></section>`;
  }
  return html`<section id="failures">
${group(r, FAILURE_ANCHORS.must, 'MUST failed', must)}
${group(r, FAILURE_ANCHORS.should, 'SHOULD warnings (do not change the verdict)', should)}
${group(r, FAILURE_ANCHORS.harness, 'Harness errors (not target failures)', broken, runErrors)}
</section>`;
}
