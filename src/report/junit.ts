/**
 * junit.xml: one <testsuite> per area, one <testcase> per clause (name starts with the clause
 * id, classname is the area).
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
import { evidenceLine } from './evidence.ts';

function evidenceText(e: ReportEvidence): string {
  const lines = [`${e.clause}: ${e.message}${e.occurrences > 1 ? ` (x${e.occurrences})` : ''} [check ${e.checkId}]`];
  if (e.expected !== undefined) lines.push(`expected: ${e.expected}`);
  if (e.received !== undefined) lines.push(`received: ${e.received}`);
  if (e.scenario !== undefined) lines.push(`scenario: ${e.scenario}`);
  if (e.counterexample !== undefined) lines.push(`counterexample: ${e.counterexample}`);
  if (e.seed !== undefined) lines.push(`fast-check: { seed: ${e.seed}${e.path !== undefined ? `, path: "${e.path}"` : ''} }`);
  if (e.exchange) {
    const res = e.exchange.response;
    if (res) lines.push(`response: ${res.status} ${truncate(res.text, 2000)}`);
    if (e.exchange.error) lines.push(`transport error: ${e.exchange.error.kind}: ${e.exchange.error.message}`);
    lines.push('Reproduce with:', e.exchange.curl);
  }
  return lines.join('\n');
}

function testcase(c: ClauseEntry): string {
  const name = `${c.id} [${c.level}] ${c.statement}`;
  const open = `    <testcase name="${x(name)}" classname="${x(c.area)}" time="0">`;
  const props = `\n      <properties><property name="clause" value="${x(c.id)}"/><property name="level" value="${x(c.level)}"/><property name="ref" value="${x(c.ref)}"/><property name="outcome" value="${x(c.outcome)}"/></properties>`;
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
  return `${open}${props}${body}\n    </testcase>`;
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
    ['specHash', m.specHash],
    ['catalogHash', m.catalogHash],
    ...m.runErrors.map((e, i): [string, string] => [`runError.${i + 1}`, e]),
  ];
  // Run facts go into each testsuite's <properties> (the place the JUnit schema allows them).
  const runProps = `    <properties>${props.map(([k, v]) => `<property name="${x(k)}" value="${x(v)}"/>`).join('')}</properties>`;
  const suites = [...byArea.entries()].map(([area, list]) => {
    const head = `  <testsuite name="${x(area)}" tests="${list.length}" failures="${count(list, failures)}" errors="${count(list, errors)}" skipped="${count(list, skipped)}" time="0" timestamp="${x(m.startedAt)}">`;
    return [head, runProps, ...list.map(testcase), '  </testsuite>'].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${x(`wgc conformance: ${m.target.baseUrl}`)}" tests="${all.length}" failures="${count(all, failures)}" errors="${count(all, errors)}" skipped="${count(all, skipped)}" time="${(m.durationMs / 1000).toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
