/**
 * junit.xml: one <testsuite> per area, one <testcase> per clause (name starts with the clause
 * id, classname is the area), valid against the Jenkins/Surefire junit-4.xsd (stored in
 * test/report/schemas/): run facts are <properties> of each <testsuite> (the only place the
 * schema allows them), a clause's seed reference, outcome and checks are its <system-out>, and
 * its `time` is the time of the checks that spoke of it.
 *
 * - failed MUST clause   → <failure type="MUST">
 * - failed SHOULD clause → <failure type="warning"> (visible in every CI viewer, tagged as a
 *   warning; the verdict and exit code, not the failure count, decide conformance)
 * - notObservable/disabled → <skipped message="reason">
 * - harnessError → <error type="harnessError"> (never a target failure)
 *
 * Every string is XML-escaped, characters XML cannot carry are dropped.
 */
import { OUTCOME_LABEL } from '../engine/outcome.ts';
import type { ClauseEntry, ReportEvidence, RunResult } from './model.ts';
import { escapeXml as x, truncate } from './escape.ts';
import { evidenceLine, shrunkText } from './evidence.ts';
import { REPRODUCE_DIR, reproductionFile, rerunCommand } from './reproduce.ts';

function evidenceText(e: ReportEvidence): string {
  const lines = [`${e.clause}: ${e.message}${e.occurrences > 1 ? ` (x${e.occurrences})` : ''} [check ${e.checkId}]`];
  if (e.expected !== undefined) lines.push(`expected: ${e.expected}`);
  if (e.received !== undefined) lines.push(`received: ${e.received}`);
  if (e.scenario !== undefined) lines.push(`scenario: ${e.scenario}`);
  if (e.counterexample !== undefined) lines.push(`counterexample: ${e.counterexample}`);
  if (e.shrunk !== undefined) lines.push(`${shrunkText(e.shrunk)}; first generated: ${e.shrunk.original}`);
  if (e.seed !== undefined) lines.push(`fast-check: { seed: ${e.seed}${e.path !== undefined ? `, path: "${e.path}"` : ''} }`);
  if (e.exchange) {
    const res = e.exchange.response;
    if (res) lines.push(`response: ${res.status} ${truncate(res.text, 2000)}`);
    if (e.exchange.error) lines.push(`transport error: ${e.exchange.error.kind}: ${e.exchange.error.message}`);
    lines.push('Reproduce with:', e.exchange.curl);
  }
  return lines.join('\n');
}

/** Seconds with millisecond precision, as JUnit writes them. */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Milliseconds of the checks that spoke of each clause (a check verifying two clauses counts for both). */
function clauseTimes(r: RunResult): Map<string, number> {
  const times = new Map<string, number>();
  for (const k of r.checks) for (const id of Object.keys(k.clauses)) times.set(id, (times.get(id) ?? 0) + k.durationMs);
  return times;
}

function testcase(r: RunResult, c: ClauseEntry, ms: number): string {
  const name = `${c.id} [${c.level}] ${c.statement}`;
  const open = `    <testcase name="${x(name)}" classname="${x(c.area)}" time="${seconds(ms)}">`;
  const checks = c.checks.map((k) => `${k.checkId} (${OUTCOME_LABEL[k.outcome]})`).join(', ');
  const out = [`clause ${c.id} (${c.level}), seed ${c.ref}${c.seedLink ? ` <${c.seedLink}>` : ''}: ${OUTCOME_LABEL[c.outcome]}`, checks ? `checks: ${checks}` : ''];
  if (c.evidence.length > 0) {
    const ids = [...new Set(c.evidence.map((e) => e.checkId))];
    const scripted = ids.filter((id) => r.checks.some((k) => k.checkId === id && k.scenario));
    out.push(`replay: ${rerunCommand(r.meta, ids)}`, ...scripted.map((id) => `reproduction script: ${REPRODUCE_DIR}/${reproductionFile(id)}`));
  }
  const systemOut = `\n      <system-out>${x(out.filter(Boolean).join('\n'))}</system-out>`;
  let body = '';
  switch (c.outcome) {
    case 'failed': {
      const first = c.evidence[0];
      const message = first ? evidenceLine(first) : 'failed';
      const type = c.level === 'MUST' ? 'MUST' : 'warning';
      const prefix = c.level === 'MUST' ? '' : 'SHOULD (warning): ';
      body = `\n      <failure type="${type}" message="${x(truncate(prefix + message, 500))}">${x(c.evidence.map(evidenceText).join('\n\n'))}</failure>`;
      break;
    }
    case 'harnessError':
      body = `\n      <error type="harnessError" message="${x(truncate(c.reason ?? 'harness error', 500))}">${x(c.reason ?? '')}</error>`;
      break;
    case 'notObservable':
    case 'disabled':
      body = `\n      <skipped message="${x(`${OUTCOME_LABEL[c.outcome]}: ${c.reason ?? ''}`)}"/>`;
      break;
    case 'passed':
      break;
  }
  return `${open}${body}${systemOut}\n    </testcase>`;
}

/** junit.xml text. */
export function renderJunit(r: RunResult): string {
  // Areas in the report's order (the catalog's area order), clauses in catalog order.
  const byArea = new Map<string, ClauseEntry[]>(r.areas.map((a) => [a.area, r.clauses.filter((c) => c.area === a.area)]));
  const count = (list: readonly ClauseEntry[], pred: (c: ClauseEntry) => boolean) => list.filter(pred).length;
  const all = r.clauses;
  const failures = (c: ClauseEntry) => c.outcome === 'failed';
  const errors = (c: ClauseEntry) => c.outcome === 'harnessError';
  const skipped = (c: ClauseEntry) => c.outcome === 'notObservable' || c.outcome === 'disabled';
  const m = r.meta;
  const props: [string, string][] = [
    ['verdict', r.summary.verdict],
    ['headline', r.summary.headline],
    ['suite', `${m.suite.name} ${m.suite.version}`],
    ['target', m.target.baseUrl],
    ['seed', String(m.seed)],
    ['rerun', rerunCommand(m)],
    ['specHash', m.specHash],
    ['catalogHash', m.catalogHash],
    ...m.runErrors.map((e, i): [string, string] => [`runError.${i + 1}`, e]),
  ];
  // Run facts go into each testsuite's <properties> (the place the JUnit schema allows them).
  const runProps = `    <properties>${props.map(([k, v]) => `<property name="${x(k)}" value="${x(v)}"/>`).join('')}</properties>`;
  const times = clauseTimes(r);
  const suites = [...byArea.entries()].map(([area, list]) => {
    // The area's time: each check that spoke of its clauses, once.
    const ids = new Set(list.map((c) => c.id));
    const areaMs = r.checks.filter((k) => Object.keys(k.clauses).some((id) => ids.has(id))).reduce((n, k) => n + k.durationMs, 0);
    const head = `  <testsuite name="${x(area)}" tests="${list.length}" failures="${count(list, failures)}" errors="${count(list, errors)}" skipped="${count(list, skipped)}" time="${seconds(areaMs)}" timestamp="${x(m.startedAt)}">`;
    return [head, runProps, ...list.map((c) => testcase(r, c, times.get(c.id) ?? 0)), '  </testsuite>'].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    // junit-4.xsd has no "skipped" on <testsuites>: the skipped counts are on each <testsuite>.
    `<testsuites name="${x(`wgc conformance: ${m.target.baseUrl}`)}" tests="${all.length}" failures="${count(all, failures)}" errors="${count(all, errors)}" time="${seconds(m.durationMs)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
