/**
 * summary.md for CI step summaries ($GITHUB_STEP_SUMMARY): fits one screen. The verdict with
 * its coverage beside it (a plain ✅ only for a full certification), a link to the full
 * report, the counts, the failed clauses with their first finding (whole, or cut at a word
 * boundary, inside inline code so nothing in it is auto-linked or rendered), the command that
 * reruns the run and each failing check with the same seed, and the harness errors.
 *
 * The link to report.html is the placeholder REPORT_URL_PLACEHOLDER until the CI job replaces
 * it with where it published the report (examples/github-actions, examples/gitlab-ci).
 */
import { OUTCOME_LABEL } from '../engine/outcome.ts';
import { OUTCOME_DISPLAY_ORDER as OUTCOMES } from './verdict.ts';
import type { ClauseEntry, RunResult } from './model.ts';
import { escapeMarkdown as md, truncate } from './escape.ts';
import { evidenceLine } from './evidence.ts';
import { rerunCommand } from './reproduce.ts';

/** Stands for the URL of the published report.html; CI jobs replace it (sed) once they know it. */
export const REPORT_URL_PLACEHOLDER = '%WGC_REPORT_URL%';

/** Options of the Markdown summary. */
export interface MarkdownOptions {
  /** Failed clauses listed before "and N more". Default 15. */
  maxRows?: number;
  /** Longest first finding shown before it is cut at a word boundary. Default 240. */
  maxFinding?: number;
  /** Where report.html is published. Default: REPORT_URL_PLACEHOLDER. */
  reportUrl?: string;
}

/** The heading's mark: a plain check only for a full certification, never for partial coverage. */
const ICON = { conformant: '✅', partial: '🟡', 'not-conformant': '❌', inconclusive: '⚠️' } as const;

/** Text cut at the last word boundary before `max` characters, marked with an ellipsis. */
export function cutAtWord(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return one;
  const head = one.slice(0, max);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:]+$/, '')} …`;
}

/**
 * Untrusted text as one inline code span for a table cell: no HTML, links or emphasis are
 * rendered inside it; the delimiter is longer than any run of backticks in the text, pipes are
 * escaped for the table, control characters become spaces.
 */
export function inlineCode(text: string): string {
  const clean = text.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g, ' ').replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...clean.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence} ${clean} ${fence}`;
}

function failureRow(c: ClauseEntry, maxFinding: number, reportUrl: string): string {
  const first = c.evidence[0];
  const line = first ? evidenceLine(first) : (c.reason ?? '');
  const more = c.evidence.length > 1 ? ` (+${c.evidence.length - 1} more)` : '';
  return `| [${md(c.id)}](${reportUrl}#${encodeURIComponent(c.id)}) | ${c.level === 'MUST' ? 'MUST' : 'SHOULD (warning)'} | ${md(truncate(c.statement, 100))} | ${inlineCode(cutAtWord(line, maxFinding))}${more} |`;
}

function headline(r: RunResult): string {
  const s = r.summary;
  const c = s.coverage;
  const coverage = `${c.verified} of ${c.total} clauses verified (${c.verified} of ${c.observable} observable; MUST ${c.mustVerified} of ${c.mustObservable})`;
  if (s.verdict === 'conformant' && c.full) return `## ${ICON.conformant} wgc: conformant (full certification) — ${coverage}`;
  if (s.verdict === 'conformant')
    return `## ${ICON.partial} wgc: conformant on ${c.verified} of ${c.total} clauses only — partial coverage: ${c.mustObservable - c.mustVerified} observable MUST clauses not verified`;
  return `## ${ICON[s.verdict]} wgc: ${s.verdict} — ${coverage}`;
}

/** summary.md text. */
export function renderMarkdown(r: RunResult, options: MarkdownOptions = {}): string {
  const max = options.maxRows ?? 15;
  const maxFinding = options.maxFinding ?? 240;
  const url = options.reportUrl ?? REPORT_URL_PLACEHOLDER;
  const s = r.summary;
  const c = s.coverage;
  const out: string[] = [
    headline(r),
    '',
    `${md(s.headline)} · [full report](${url})`,
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
    out.push('', '### Failed clauses', '', '| Clause | Level | Statement | First finding |', '|---|---|---|---|');
    out.push(...failed.slice(0, max).map((x) => failureRow(x, maxFinding, url)));
    if (failed.length > max) out.push('', `…and ${failed.length - max} more; see the [full report](${url}).`);
  }
  const broken = r.clauses.filter((x) => x.outcome === 'harnessError');
  if (broken.length > 0 || r.meta.runErrors.length > 0) {
    out.push('', '### Harness errors (not target failures)', '');
    out.push(...broken.slice(0, 5).map((x) => `- ${md(x.id)}: ${inlineCode(cutAtWord(x.reason ?? '', 140))}`));
    out.push(...r.meta.runErrors.slice(0, 5).map((e) => `- run: ${inlineCode(cutAtWord(e, 140))}`));
    const more = broken.length + r.meta.runErrors.length - Math.min(5, broken.length) - Math.min(5, r.meta.runErrors.length);
    if (more > 0) out.push(`- …and ${more} more`);
  }
  const failing = [...new Set(failed.flatMap((x) => x.evidence.map((e) => e.checkId)))];
  const commands = [rerunCommand(r.meta), ...(failing.length > 0 ? ['# only the failing checks:', rerunCommand(r.meta, failing.slice(0, 10))] : [])].map((l) =>
    l.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g, ' '),
  );
  // The fence is longer than any run of backticks in the commands (a target URL may hold some).
  const fence = '`'.repeat(Math.max(3, ...commands.flatMap((l) => [...l.matchAll(/`+/g)].map((m) => m[0].length + 1))));
  out.push('', '**Rerun** (same seed, same requests):', '', `${fence}sh`, ...commands, fence);
  return `${out.join('\n')}\n`;
}
