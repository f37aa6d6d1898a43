import { describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { buildRunResult } from '../../src/report/build.ts';
import { renderHtml } from '../../src/report/html.ts';
import { REPORT_CSS, REPORT_JS } from '../../src/report/html-assets.ts';
import { prettyBody } from '../../src/report/html-evidence.ts';
import { renderJunit } from '../../src/report/junit.ts';
import { cutAtWord, inlineCode, renderMarkdown } from '../../src/report/markdown.ts';
import { renderProgress, renderTerminalSummary } from '../../src/report/terminal.ts';
import type { RunResult } from '../../src/report/model.ts';
import { check, exchange, fixtureCatalog, fixtureMeta, mixedResults, passingResults } from './fixtures/results.ts';
import { checkXml } from './xml-check.ts';

const catalog = fixtureCatalog();
const mixed = (): RunResult => buildRunResult(mixedResults(), catalog, fixtureMeta());

/** A run whose every string field is hostile: clause evidence, reasons, config, target. */
function hostileRun(): RunResult {
  const nasty = '</td></tr><script>alert(1)</script>]]><![CDATA[ & "q" \'a\' \u0000\u0001\u001b[2J\u0008 \uFFFE \uD800 \u2028\u2029 | `x` *y* [z](javascript:alert(1))';
  const results = [
    check(
      'auth/no-credential',
      { 'AUTH-001': 'failed' },
      {
        title: nasty,
        findings: [
          {
            clause: 'AUTH-001',
            message: nasty,
            expected: nasty,
            received: nasty,
            scenario: nasty,
            counterexample: nasty,
            exchange: exchange('GET', `/me?q=${nasty}`, 500, nasty, { headers: { 'x-evil': nasty } }),
          },
        ],
      },
    ),
    check('auth/www-authenticate', { 'AUTH-003': 'failed' }, { findings: [{ clause: 'AUTH-003', message: nasty }] }),
    check('idempotency/replay', { 'IDEM-001': 'harnessError' }, { reason: nasty }),
    check('pagination/limit', { 'PAGE-001': 'notObservable' }, { reason: nasty }),
  ];
  return buildRunResult(results, catalog, fixtureMeta({ targetBaseUrl: `https://evil.test/${nasty}`, runErrors: [nasty], config: { note: nasty } }));
}

describe('HTML', () => {
  test('verdict and coverage come first, then the failures (MUST, SHOULD, harness errors), open; areas and filters follow', () => {
    const page = renderHtml(mixed());
    const body = page.slice(page.indexOf('<body>'));
    expect(body.indexOf('Not conformant')).toBeLessThan(body.indexOf('id="failures"'));
    expect(body.indexOf('clauses verified')).toBeLessThan(body.indexOf('id="failures"'));
    expect(body.indexOf('id="failures"')).toBeLessThan(body.indexOf('id="run"'));
    const must = body.indexOf('id="failures-must"');
    const should = body.indexOf('id="failures-should"');
    const harness = body.indexOf('id="failures-harness"');
    expect(must).toBeGreaterThan(0);
    expect(must).toBeLessThan(should);
    expect(should).toBeLessThan(harness);
    expect(harness).toBeLessThan(body.indexOf('id="areas"'));
    for (const id of ['AUTH-001', 'ERR-001', 'DEF-001']) expect(body.indexOf(`id="failure-${id}"`)).toBeLessThan(should);
    expect(body.indexOf('id="failure-AUTH-003"')).toBeGreaterThan(should);
    expect(body.indexOf('id="failure-IDEM-002"')).toBeGreaterThan(harness);
    // Every failure is open, and the tiles link to their sections.
    expect(page.match(/<details class="evidence" open>/g)).toHaveLength(4);
    expect(page).not.toMatch(/<details class="evidence">/);
    expect(page).toContain('<a class="tile t-must" href="#failures-must"><b>3</b>MUST failed</a>');
    expect(page).toContain('<a class="tile t-should" href="#failures-should">');
    expect(page).toContain('<a class="tile t-harness" href="#failures-harness">');
    expect(page).toContain('data-filter-outcome="failed"');
    expect(page).toContain('<select id="filter-level">');
    expect(page).toContain('<button type="button" class="copy">Copy</button>');
    // Clause rows are anchored by the clause id itself (report.html#AUTH-001).
    expect(page).toMatch(/<tr id="AUTH-001" data-outcome="failed" data-level="MUST">/);
    expect(page).toContain('wgc run --base-url https://api.example.test --seed 424242 --check auth/no-credential');
  });

  test('JSON bodies are pretty-printed; other bodies are shown as they came', () => {
    const page = renderHtml(mixed());
    expect(page).toContain('{\n  &quot;items&quot;: [],\n  &quot;next_cursor&quot;: null\n}'.replace(/\\n/g, '\n'));
    expect(prettyBody('not json {')).toBe('not json {');
    expect(prettyBody('[1,2]')).toBe('[\n  1,\n  2\n]');
  });

  test('one self-contained file: nothing loaded from anywhere, a CSP allowing only its own inline blocks', () => {
    const page = renderHtml(mixed());
    expect(page).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    expect(page).not.toMatch(/<script[^>]*\bsrc=/i);
    expect(page).not.toMatch(/@import|url\(/i);
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page)![1]!.replace(/&#39;/g, "'");
    expect(csp).toContain(`script-src ${hash(REPORT_JS)}`);
    expect(csp).toContain(`style-src ${hash(REPORT_CSS)}`);
    expect(csp).toContain("default-src 'none'");
    expect(page).toContain(`<style>${REPORT_CSS}</style>`);
    expect(page).toContain(`<script>${REPORT_JS}</script>`);
    expect(page.match(/<script>/g)).toHaveLength(1);
    // The inline script at least parses.
    expect(() => new Function(REPORT_JS)).not.toThrow();
  });

  test('a <script> from a server body is escaped everywhere it appears', () => {
    const page = renderHtml(mixed());
    expect(page).not.toContain("<script>alert('pwned')</script>");
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;');
    // The only script element is the report's own.
    expect(page.match(/<script/gi)).toHaveLength(1);
  });

  test('hostile strings in every field cannot open elements, break attributes or smuggle links', () => {
    const page = renderHtml(hostileRun());
    expect(page.match(/<script/gi)).toHaveLength(1);
    expect(page).not.toContain('</td></tr><script>');
    expect(page).not.toMatch(/href="javascript:/i);
    expect(page).not.toContain('\u0000');
    expect(page).not.toContain('\u001b');
    // Control characters are shown, not dropped.
    expect(page).toContain('\\u001b[2J');
  });
});

describe('JUnit', () => {
  test('one testcase per clause: failures for MUST and (as warnings) SHOULD, skipped, errors', () => {
    const xml = renderJunit(mixed());
    const { problems, elements } = checkXml(xml);
    expect(problems).toEqual([]);
    const cases = elements.filter((e) => e.name === 'testcase');
    expect(cases).toHaveLength(12);
    expect(cases[0]!.attrs).toMatchObject({ classname: 'DEF' });
    expect(cases.map((c) => c.attrs.name!.split(' ')[0]).sort()).toEqual(catalog.clauses.map((c) => c.id).sort());
    for (const c of cases) expect(c.attrs.name!.startsWith(`${c.attrs.classname}-`)).toBe(true);
    const failures = elements.filter((e) => e.name === 'failure');
    expect(failures.map((f) => f.attrs.type).sort()).toEqual(['MUST', 'MUST', 'MUST', 'warning']);
    expect(failures.find((f) => f.attrs.type === 'warning')!.attrs.message).toMatch(/^SHOULD \(warning\): no WWW-Authenticate/);
    expect(failures.find((f) => f.attrs.message!.startsWith('a name longer'))!.text).toContain('fast-check: { seed: 1337, path: "3:1:0" }');
    expect(failures[0]!.text).toContain('Reproduce with:\ncurl ');
    const errors = elements.filter((e) => e.name === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.attrs.type).toBe('harnessError');
    const skipped = elements.filter((e) => e.name === 'skipped').map((s) => s.attrs.message);
    expect(skipped).toContain('disabled: disabled by --read-only');
    expect(skipped).toContain('not observable: The order of charging and responding is internal to the service.');
    const root = elements[0]!;
    expect(root.attrs).toMatchObject({ tests: '12', failures: '4', errors: '1' });
    expect(elements.filter((e) => e.name === 'testsuite').reduce((n, e) => n + Number(e.attrs.skipped), 0)).toBe(4);
  });

  test('well-formed with hostile strings everywhere (control characters stripped)', () => {
    const xml = renderJunit(hostileRun());
    const { problems, elements } = checkXml(xml);
    expect(problems).toEqual([]);
    const failure = elements.find((e) => e.name === 'failure')!;
    expect(failure.text).toContain('</td></tr><script>alert(1)</script>]]><![CDATA[ & "q"');
    expect(failure.text).not.toMatch(/[\u0000\u0001\u0008]/);
  });
});

describe('Markdown summary', () => {
  test('verdict with coverage beside it, the report link, failed clauses with their first finding in code, the rerun command; fits one screen', () => {
    const md = renderMarkdown(mixed());
    expect(md.split('\n')[0]).toBe('## ❌ wgc: not-conformant — 3 of 12 clauses verified (3 of 11 observable; MUST 2 of 8)');
    expect(md).toContain('· [full report](%WGC_REPORT_URL%)');
    expect(md).toContain('**Coverage:** 3 of 12 catalog clauses verified, 3 of 11 observable; MUST: 2 of 8 observable verified.');
    expect(md).toContain(
      '| [AUTH-001](%WGC_REPORT_URL%#AUTH-001) | MUST | A request without a credential is refused with 401 and the error envelope. | ` a request without a credential was answered 200 (GET https://api.example.test/api/v1/definitions → 200) ` |',
    );
    expect(md).toContain('| SHOULD (warning) |');
    expect(md).toContain('wgc run --base-url https://api.example.test --seed 424242\n');
    expect(md).toContain('wgc run --base-url https://api.example.test --seed 424242 --check auth/no-credential --check errors/envelope --check definitions/name-bounds --check auth/www-authenticate');
    expect(md.split('\n').length).toBeLessThan(45);
    expect(renderMarkdown(mixed(), { reportUrl: 'https://ci.example.test/r/report.html' })).toContain('[AUTH-001](https://ci.example.test/r/report.html#AUTH-001)');
  });

  test('a long finding is cut at a word boundary inside its code span, never mid-URL into a broken link', () => {
    const url = 'https://api.example.test/api/v1/definitions?cursor=abcdefghijklmnopqrstuvwxyz0123456789';
    const long = `the listing went on ${'and on '.repeat(40)}at ${url} with \`ticks\` and | pipes`;
    const results = [check('auth/no-credential', { 'AUTH-001': 'failed' }, { findings: [{ clause: 'AUTH-001', message: long }] })];
    const md = renderMarkdown(buildRunResult(results, catalog, fixtureMeta()));
    const row = md.split('\n').find((l) => l.startsWith('| [AUTH-001]'))!;
    const cell = row.split(' | ').at(-1)!;
    expect(cell).toMatch(/^` the listing went on (and on )+and on …  ?` \|$|^` the listing went on (and on )*and …  ?` \|$|^` .* … ` \|$/);
    expect(cell).not.toContain('https://');
    expect(cutAtWord('one two three four', 12)).toBe('one two …');
    expect(cutAtWord('short', 12)).toBe('short');
    expect(inlineCode('a `b` | c')).toBe('`` a `b` \\| c ``');
  });

  test('a partial conformant run never gets the plain check mark', () => {
    const partial = renderMarkdown(buildRunResult([check('auth/no-credential', { 'AUTH-001': 'passed' })], catalog, fixtureMeta()));
    expect(partial.split('\n')[0]).toMatch(/^## 🟡 wgc: conformant on 1 of 12 clauses only — partial coverage/);
    expect(partial).not.toContain('✅');
  });

  test('a clean run says so, with full certification', () => {
    const md = renderMarkdown(buildRunResult(passingResults(), catalog, fixtureMeta()));
    expect(md.split('\n')[0]).toMatch(/^## ✅ wgc: conformant \(full certification\) — /);
    expect(md).not.toContain('### Failed clauses');
  });

  test('hostile strings cannot add HTML, break the table or inject links', () => {
    const md = renderMarkdown(hostileRun());
    // Server text is either escaped or inside a code span (where Markdown renders nothing: no HTML, no links).
    const spans = /(`+) [^\n]*? \1/g;
    const fenced = /^(`{3,})sh\n[\s\S]*?\n\1$/m;
    expect(md).toMatch(fenced);
    const outside = md.replace(fenced, '').replace(spans, '');
    expect(md.match(spans)!.length).toBeGreaterThanOrEqual(3);
    expect(outside).not.toMatch(/<script|<\/td>/i);
    expect(outside).not.toContain('](javascript:');
    for (const span of md.match(spans)!) expect(span.replace(/\\\|/g, '')).not.toContain('|');
    for (const row of md.split('\n').filter((l) => l.startsWith('| [AUTH-'))) {
      expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(6);
    }
  });
});

describe('terminal', () => {
  test('summary fits one screen, without colour when asked', () => {
    const out = renderTerminalSummary(mixed(), { color: false, files: ['out/report.html'] });
    expect(out).not.toContain('\u001b');
    expect(out).toContain('NOT-CONFORMANT');
    expect(out).toContain('coverage: 3/12 clauses verified, 3/11 observable, MUST 2/8 observable');
    expect(out).toContain('  MUST   AUTH-001');
    expect(out).toContain('  SHOULD AUTH-003');
    expect(out).toContain('IDEM-002  TypeError');
    expect(out.split('\n').length).toBeLessThan(30);
    expect(renderTerminalSummary(mixed(), { color: true })).toContain('\u001b[31m');
  });

  test('server text cannot send escape sequences to the terminal', () => {
    const out = renderTerminalSummary(hostileRun(), { color: false });
    expect(out).not.toMatch(/[\u0000-\u0009\u000B-\u001F]/);
    expect(out).toContain('\\u001b[2J');
  });

  test('progress line', () => {
    expect(renderProgress({ done: 12, total: 40, failed: 1, current: 'auth/unknown-key' }, { color: false })).toBe('[######--------------]  12/40 checks  1 failed  auth/unknown-key');
    expect(renderProgress({ done: 40, total: 40, failed: 0, harnessErrors: 2 }, { color: false })).toBe('[####################]  40/40 checks  0 failed  2 harness errors');
  });
});
