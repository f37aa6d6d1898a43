/**
 * HTML for evidence: a failure's expected and received values, the redacted exchange (JSON
 * bodies pretty-printed) and its curl command with a Copy button; and a clause's row details
 * in the catalog table. Built only with the escaping `html` template: every string here may
 * have come from the target.
 */
import { OUTCOME_LABEL } from '../engine/outcome.ts';
import type { ClauseEntry, ReportEvidence, ReportExchange } from './model.ts';
import { html, type SafeHtml } from './escape.ts';
import { shrunkText } from './evidence.ts';

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** A body as shown: JSON pretty-printed (two-space indent), anything else as it came. */
export function prettyBody(text: string): string {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return text;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return text;
  }
}

/** A copyable block: a toolbar with the Copy button above the text (never over it). */
export function copyBlock(label: string, text: string): SafeHtml {
  return html`<div class="copyable"><div class="bar"><span>${label}</span><button type="button" class="copy">Copy</button></div><pre>${text}</pre></div>`;
}

/** Request and response of an exchange as preformatted blocks, with its curl command. */
export function exchangeHtml(ex: ReportExchange): SafeHtml {
  const req = `${ex.request.method} ${ex.request.url}\n${headerLines(ex.request.headers)}${ex.request.body !== undefined ? `\n\n${prettyBody(ex.request.body)}` : ''}`;
  const res = ex.response ? `${ex.response.status}\n${headerLines(ex.response.headers)}\n\n${prettyBody(ex.response.text)}` : undefined;
  return html`<div class="exchange"><div>
<h4>Request <span class="note">(exchange ${ex.id}, ${ex.startedAt}, ${ex.durationMs} ms${ex.retries ? `, ${ex.retries} retries` : ''})</span></h4>
<pre class="req">${req}</pre></div>
${res !== undefined ? html`<div><h4>Response${ex.response?.truncated ? html` <span class="note">(truncated at ${ex.response.bytes} bytes)</span>` : ''}</h4><pre class="res">${res}</pre></div>` : ''}
${ex.error ? html`<div><h4>Transport error</h4><pre>${ex.error.kind}: ${ex.error.message}</pre></div>` : ''}
</div>
${copyBlock('This request as curl', ex.curl)}`;
}

function kv(label: string, value: string | number | undefined): SafeHtml | '' {
  return value === undefined ? '' : html`<dt>${label}</dt><dd><pre>${prettyBody(String(value))}</pre></dd>`;
}

/** One piece of evidence as an expandable block (open in the failures section). */
export function evidenceHtml(e: ReportEvidence, open = false): SafeHtml {
  const times = e.occurrences > 1 ? ` (×${e.occurrences})` : '';
  return html`<details class="evidence"${open ? html` open` : ''}>
<summary>${e.message}${times} <span class="note">— ${e.checkId}</span></summary>
<dl class="kv">${kv('expected', e.expected)}${kv('received', e.received)}${kv('scenario', e.scenario)}${kv('counterexample', e.counterexample)}${kv('shrinking', e.shrunk ? `${shrunkText(e.shrunk)}; first generated: ${e.shrunk.original}` : undefined)}${kv('fast-check seed', e.seed)}${kv('fast-check path', e.path)}</dl>
${e.exchange ? exchangeHtml(e.exchange) : ''}
${(e.context ?? []).map((c, i) => html`<details><summary>Context exchange ${i + 1}: ${c.request.method} ${c.request.url}</summary>${exchangeHtml(c)}</details>`)}
</details>`;
}

/** The cell content under a clause's statement: reason, a link to its failure, and the checks that spoke of it. */
export function clauseDetailsHtml(c: ClauseEntry): SafeHtml {
  const checks = c.checks.length
    ? html`<details><summary>${c.checks.length} check${c.checks.length === 1 ? '' : 's'}</summary><ul>${c.checks.map(
        (k) => html`<li><code>${k.checkId}</code> <span class="o o-${k.outcome}">${OUTCOME_LABEL[k.outcome]}</span> ${k.title}${k.reason ? html` <span class="reason">— ${k.reason}</span>` : ''}</li>`,
      )}</ul></details>`
    : '';
  const failure =
    c.outcome === 'failed' || c.outcome === 'harnessError'
      ? html`<div><a href="#failure-${c.id}">${c.evidence.length ? `${c.evidence.length} finding${c.evidence.length === 1 ? '' : 's'}, reproduction` : 'details'} ↑</a></div>`
      : '';
  return html`${c.outcome !== 'harnessError' && c.reason ? html`<div class="reason">${c.reason}</div>` : ''}${failure}${checks}`;
}
