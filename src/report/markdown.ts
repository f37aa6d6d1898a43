/**
 * summary.md for CI step summaries ($GITHUB_STEP_SUMMARY): fits one screen. Verdict and
 * coverage, counts, then the failed clauses with their first evidence line; the full detail
 * is in report.html. Untrusted text is escaped for Markdown (and the HTML it may contain).
 */
import { OUTCOME_LABEL } from '../engine/outcome.ts';
import { OUTCOME_DISPLAY_ORDER as OUTCOMES } from './verdict.ts';
import type { ClauseEntry, RunResult } from './model.ts';
import { escapeMarkdown as md, truncate } from './escape.ts';
import { evidenceLine } from './evidence.ts';

/** Options of the Markdown summary. */
export interface MarkdownOptions {
  /** Failed clauses listed before "and N more". Default 15. */
  maxRows?: number;
}

/** The heading's mark: a plain check only for a full certification, never for partial coverage. */
const ICON = { conformant: '✅', partial: '🟡', 'not-conformant': '❌', inconclusive: '⚠️' } as const;

function failureRow(c: ClauseEntry): string {
  const first = c.evidence[0];
  const line = first ? evidenceLine(first) : (c.reason ?? '');
  return `| ${md(c.id)} | ${c.level === 'MUST' ? 'MUST' : 'SHOULD (warning)'} | ${md(truncate(c.statement, 100))} | ${md(truncate(line, 140))} |`;
}

/** summary.md text. */
export function renderMarkdown(r: RunResult, options: MarkdownOptions = {}): string {
  const max = options.maxRows ?? 15;
  const s = r.summary;
  const c = s.coverage;
  const out: string[] = [
    s.verdict === 'conformant' && !c.full
      ? `## ${ICON.partial} wgc: conformant on ${c.verified} of ${c.total} clauses only (partial coverage: ${c.mustObservable - c.mustVerified} observable MUST clauses not verified)`
      : `## ${ICON[s.verdict]} wgc: ${s.verdict}${c.full ? ' (full certification)' : ''}`,
    '',
    md(s.headline),
    '',
    `**Coverage:** ${c.verified} of ${c.total} catalog clauses verified, ${c.verified} of ${c.observable} observable; MUST: ${c.mustVerified} of ${c.mustObservable} observable verified.  `,
    `**Target:** ${md(r.meta.target.baseUrl)} · **suite** ${md(r.meta.suite.version)} · **seed** ${r.meta.seed} · **exit code** ${s.exitCode}`,
    '',
    `| ${OUTCOMES.map((o) => OUTCOME_LABEL[o]).join(' | ')} |`,
    `|${OUTCOMES.map(() => '---:').join('|')}|`,
    `| ${OUTCOMES.map((o) => s.counts[o]).join(' | ')} |`,
  ];
  const failed = r.clauses.filter((x) => x.outcome === 'failed').sort((a, b) => (a.level === b.level ? 0 : a.level === 'MUST' ? -1 : 1));
  if (failed.length > 0) {
    out.push('', '### Failed clauses', '', '| Clause | Level | Statement | First evidence |', '|---|---|---|---|');
    out.push(...failed.slice(0, max).map(failureRow));
    if (failed.length > max) out.push('', `…and ${failed.length - max} more; see report.html.`);
  }
  const broken = r.clauses.filter((x) => x.outcome === 'harnessError');
  if (broken.length > 0 || r.meta.runErrors.length > 0) {
    out.push('', '### Harness errors (not target failures)', '');
    out.push(...broken.slice(0, 5).map((x) => `- ${md(x.id)}: ${md(truncate(x.reason ?? '', 140))}`));
    out.push(...r.meta.runErrors.slice(0, 5).map((e) => `- run: ${md(truncate(e, 140))}`));
    const more = broken.length + r.meta.runErrors.length - Math.min(5, broken.length) - Math.min(5, r.meta.runErrors.length);
    if (more > 0) out.push(`- …and ${more} more`);
  }
  return `${out.join('\n')}\n`;
}
