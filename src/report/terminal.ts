/**
 * The terminal views: a one-screen summary printed at the end of `wgc run`, and a progress
 * line. Untrusted text is sanitised (no ANSI escapes or carriage returns from a server can
 * reach the terminal); colour is the caller's decision.
 */
import { OUTCOME_LABEL, type Outcome } from '../engine/outcome.ts';
import { OUTCOME_DISPLAY_ORDER as OUTCOMES } from './verdict.ts';
import type { RunResult, Verdict } from './model.ts';
import { sanitizeTerminal, truncate } from './escape.ts';
import { evidenceLine } from './evidence.ts';

/** Options of the terminal views. */
export interface TerminalOptions {
  color: boolean;
  /** Failed clauses listed before "and N more". Default 10. */
  maxFailures?: number;
  /** Line width to fit. Default 100. */
  width?: number;
  /** Paths of the written report files, listed at the end. */
  files?: readonly string[];
}

const ANSI = { red: 31, green: 32, yellow: 33, gray: 90, bold: 1 } as const;
type Style = keyof typeof ANSI;

function painter(color: boolean): (style: Style, text: string) => string {
  return (style, text) => (color ? `\u001b[${ANSI[style]}m${text}\u001b[0m` : text);
}

const VERDICT_STYLE: Record<Verdict, Style> = { conformant: 'green', 'not-conformant': 'red', inconclusive: 'yellow' };
const OUTCOME_STYLE: Record<Outcome, Style> = { passed: 'green', failed: 'red', harnessError: 'yellow', notObservable: 'gray', disabled: 'gray' };

/** Word-wraps text to lines of at most `width` characters (long words stay whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** One screen: verdict, coverage, counts, failed clauses with their first evidence, harness errors. */
export function renderTerminalSummary(r: RunResult, options: TerminalOptions): string {
  const paint = painter(options.color);
  const width = options.width ?? 100;
  const max = options.maxFailures ?? 10;
  const s = r.summary;
  const c = s.coverage;
  const clip = (t: string, room: number) => truncate(sanitizeTerminal(t), Math.max(20, room));
  const lines: string[] = [
    '',
    `${paint('bold', paint(VERDICT_STYLE[s.verdict], s.verdict.toUpperCase()))}${c.full ? ' (full certification)' : s.verdict === 'conformant' ? ' (partial coverage)' : ''}  ${paint('gray', `exit ${s.exitCode}`)}`,
    ...wrap(sanitizeTerminal(s.headline), width),
    `coverage: ${c.verified}/${c.total} clauses verified, ${c.verified}/${c.observable} observable, MUST ${c.mustVerified}/${c.mustObservable} observable`,
    OUTCOMES.map((o) => paint(OUTCOME_STYLE[o], `${OUTCOME_LABEL[o]} ${s.counts[o]}`)).join('  '),
    paint('gray', clip(`target ${r.meta.target.baseUrl} · seed ${r.meta.seed}`, width)),
    paint('gray', `${r.meta.requests} requests · credits ${r.meta.creditsCharged ?? 'n/a'} charged of ${r.meta.creditPlan.planned} planned · ${(r.meta.durationMs / 1000).toFixed(1)} s`),
  ];
  const failed = r.clauses.filter((x) => x.outcome === 'failed').sort((a, b) => (a.level === b.level ? 0 : a.level === 'MUST' ? -1 : 1));
  if (failed.length > 0) {
    lines.push('', paint('bold', 'Failed clauses'));
    for (const f of failed.slice(0, max)) {
      const tag = f.level === 'MUST' ? paint('red', 'MUST  ') : paint('yellow', 'SHOULD');
      lines.push(`  ${tag} ${f.id}  ${clip(f.statement, width - 20)}`);
      const first = f.evidence[0];
      if (first) lines.push(paint('gray', `         ${clip(evidenceLine(first), width - 9)}`));
    }
    if (failed.length > max) lines.push(`  …and ${failed.length - max} more (see report.html)`);
  }
  const broken = r.clauses.filter((x) => x.outcome === 'harnessError');
  if (broken.length > 0 || r.meta.runErrors.length > 0) {
    lines.push('', paint('yellow', 'Harness errors (not target failures)'));
    for (const b of broken.slice(0, 3)) lines.push(`  ${b.id}  ${clip(b.reason ?? '', width - 12)}`);
    for (const e of r.meta.runErrors.slice(0, 3)) lines.push(`  run  ${clip(e, width - 7)}`);
    const more = broken.length + r.meta.runErrors.length - Math.min(3, broken.length) - Math.min(3, r.meta.runErrors.length);
    if (more > 0) lines.push(`  …and ${more} more`);
  }
  if (options.files && options.files.length > 0) {
    lines.push('', paint('gray', `reports: ${options.files.map((f) => sanitizeTerminal(f)).join(', ')}`));
  }
  return `${lines.join('\n')}\n`;
}

/** Progress of a run, as the runner knows it. */
export interface Progress {
  done: number;
  total: number;
  failed: number;
  harnessErrors?: number;
  /** The check currently reporting, e.g. "auth/unknown-key". */
  current?: string;
}

/** One progress line, e.g. "[########------------]  12/40 checks  1 failed  auth/unknown-key" (no newline). */
export function renderProgress(p: Progress, options: { color: boolean; width?: number }): string {
  const paint = painter(options.color);
  const bar = 20;
  const ratio = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  const filled = Math.round(ratio * bar);
  const counts = `${String(p.done).padStart(String(p.total).length)}/${p.total} checks`;
  const failed = p.failed > 0 ? paint('red', `${p.failed} failed`) : paint('gray', '0 failed');
  const errors = p.harnessErrors ? `  ${paint('yellow', `${p.harnessErrors} harness errors`)}` : '';
  const head = `[${'#'.repeat(filled)}${'-'.repeat(bar - filled)}]  ${counts}  ${failed}${errors}`;
  const room = (options.width ?? 100) - (bar + 2 + counts.length + 30);
  return p.current ? `${head}  ${paint('gray', truncate(sanitizeTerminal(p.current), Math.max(10, room)))}` : head;
}
