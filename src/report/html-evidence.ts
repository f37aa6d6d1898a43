/**
 * HTML for one clause's details: its failures (expandable, with the redacted exchange and a
 * copyable curl command) and what each check said. Built only with the escaping `html`
 * template: every string here may have come from the target.
 */
import { OUTCOME_LABEL } from '../engine/outcome.ts';
import type { ClauseEntry, ReportEvidence, ReportExchange } from './model.ts';
import { html, type SafeHtml } from './escape.ts';

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** Request and response of an exchange as two preformatted blocks. */
export function exchangeHtml(ex: ReportExchange): SafeHtml {
  const req = `${ex.request.method} ${ex.request.url}\n${headerLines(ex.request.headers)}${ex.request.body !== undefined ? `\n\n${ex.request.body}` : ''}`;
  const res = ex.response
    ? `${ex.response.status}\n${headerLines(ex.response.headers)}\n\n${ex.response.text}`
    : undefined;
  return html`<h4>Reproduce with</h4>
<div class="curl"><pre>${ex.curl}</pre><button type="button" class="copy">Copy</button></div>
<h4>Request <span class="note">(exchange ${ex.id}, ${ex.startedAt}, ${ex.durationMs} ms${ex.retries ? `, ${ex.retries} retries` : ''})</span></h4>
<pre>${req}</pre>
${res !== undefined ? html`<h4>Response${ex.response?.truncated ? html` <span class="note">(truncated at ${ex.response.bytes} bytes)</span>` : ''}</h4><pre>${res}</pre>` : ''}
${ex.error ? html`<h4>Transport error</h4><pre>${ex.error.kind}: ${ex.error.message}</pre>` : ''}`;
}

function kv(label: string, value: string | number | undefined): SafeHtml | '' {
  return value === undefined ? '' : html`<dt>${label}</dt><dd>${String(value)}</dd>`;
}

/** One piece of evidence as an expandable block (collapsed). */
export function evidenceHtml(e: ReportEvidence): SafeHtml {
  const times = e.occurrences > 1 ? ` (×${e.occurrences})` : '';
  return html`<details class="evidence">
<summary>${e.message}${times} <span class="note">— ${e.checkId}</span></summary>
<dl class="kv">${kv('expected', e.expected)}${kv('received', e.received)}${kv('scenario', e.scenario)}${kv('counterexample', e.counterexample)}${kv('fast-check seed', e.seed)}${kv('fast-check path', e.path)}</dl>
${e.exchange ? exchangeHtml(e.exchange) : ''}
${(e.context ?? []).map((c, i) => html`<details><summary>Context exchange ${i + 1}: ${c.request.method} ${c.request.url}</summary>${exchangeHtml(c)}</details>`)}
</details>`;
}

/** The cell content under a clause's statement: reason, failures, and the checks that spoke of it. */
export function clauseDetailsHtml(c: ClauseEntry): SafeHtml {
  const checks = c.checks.length
    ? html`<details><summary>${c.checks.length} check${c.checks.length === 1 ? '' : 's'}</summary><ul>${c.checks.map(
        (k) => html`<li><code>${k.checkId}</code> <span class="o o-${k.outcome}">${OUTCOME_LABEL[k.outcome]}</span> ${k.title}${k.reason ? html` <span class="reason">— ${k.reason}</span>` : ''}</li>`,
      )}</ul></details>`
    : '';
  return html`${c.reason ? html`<div class="reason">${c.reason}</div>` : ''}${c.evidence.map(evidenceHtml)}${checks}`;
}
