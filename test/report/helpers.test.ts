import { describe, expect, test } from 'vitest';
import { escapeHtml, escapeMarkdown, escapeXml, html, safeHref, sanitizeTerminal } from '../../src/report/escape.ts';
import { headingSlug, sectionAnchors, seedLinker, seedSection } from '../../src/report/seed-link.ts';
import { formatTestName, parseTestName } from '../../src/report/test-name.ts';
import { parseCheckResult } from '../../src/report/check-result.ts';
import { check } from './fixtures/results.ts';

describe('escaping', () => {
  test('the html template escapes values and keeps nested templates', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${['<a>', 1]}${null}${undefined}</p>`.value).toBe('<p title="&quot;x&quot;"><b>&lt;i&gt;</b>&lt;a&gt;1</p>');
    expect(escapeHtml("a'b\u0007")).toBe('a&#39;b\\u0007');
  });

  test('XML escaping drops characters XML cannot carry, keeps the rest', () => {
    expect(escapeXml('a\u0000b\u001bc\td\ne\uFFFE\uD800f😀 <&>"\'')).toBe('abc\td\nef😀 &lt;&amp;&gt;&quot;&apos;');
  });

  test('Markdown escaping neutralises HTML, emphasis, links and table pipes on one line', () => {
    expect(escapeMarkdown('<b>*x*</b> [l](u) | `c`\nnext')).toBe('&lt;b&gt;\\*x\\*&lt;/b&gt; \\[l\\]\\(u\\) \\| \\`c\\` next');
  });

  test('terminal text shows control characters instead of interpreting them', () => {
    expect(sanitizeTerminal('a\u001b[2Jb\rc\nd')).toBe('a\\u001b[2Jb\\u000dc d');
    expect(sanitizeTerminal('a\nb', true)).toBe('a\nb');
  });

  test('only http(s) and relative links survive', () => {
    expect(safeHref('https://x.test/a#b')).toBe('https://x.test/a#b');
    expect(safeHref('seed.md#5-authentication')).toBe('seed.md#5-authentication');
    expect(safeHref('javascript:alert(1)')).toBe('#');
    expect(safeHref(' java\nscript:alert(1)')).toBe('#');
    expect(safeHref('data:text/html,x')).toBe('#');
  });
});

describe('seed links', () => {
  const seed = '# Title\n\n## 5. Authentication\n\n### 4.4 POST /definitions\n\n### 2.6 Decision trace (optional object on every definition write)\n';

  test('section numbers and GitHub anchors', () => {
    expect(seedSection('4.4 table: name')).toBe('4.4');
    expect(seedSection('5 rule 4')).toBe('5');
    expect(seedSection('permission table')).toBeNull();
    expect(headingSlug('4.4 POST /definitions')).toBe('44-post-definitions');
    expect(sectionAnchors(seed).get('2.6')).toBe('26-decision-trace-optional-object-on-every-definition-write');
  });

  test('links fall back to the parent section, then to the document', () => {
    const link = seedLinker({ url: 'https://x.test/seed.md', markdown: seed });
    expect(link('5.9 rule 2')).toBe('https://x.test/seed.md#5-authentication');
    expect(link('4.4 table: name')).toBe('https://x.test/seed.md#44-post-definitions');
    expect(link('9 rule 1')).toBe('https://x.test/seed.md');
    expect(seedLinker(undefined)('5 rule 1')).toBeNull();
  });
});

describe('test names', () => {
  test('check id is the first word, clause ids are in the trailing brackets', () => {
    expect(parseTestName('auth/unknown-key refuses an unknown key [AUTH-002, AUTH-003]')).toEqual({
      checkId: 'auth/unknown-key',
      suite: 'auth',
      title: 'refuses an unknown key',
      clauses: ['AUTH-002', 'AUTH-003'],
    });
    expect(parseTestName('a plain test [not ids]').clauses).toEqual([]);
    const name = formatTestName('idempotency/replay', 'replays [the] first response', ['IDEM-001']);
    expect(parseTestName(name)).toMatchObject({ checkId: 'idempotency/replay', title: 'replays [the] first response', clauses: ['IDEM-001'] });
  });
});

describe('CheckResult validation', () => {
  test('accepts a CheckResult, names the problem of a malformed one', () => {
    const r = check('auth/x', { 'AUTH-001': 'passed' });
    expect(parseCheckResult(r)).toEqual({ ok: true, result: r });
    expect(parseCheckResult({ ...r, clauses: { 'AUTH-001': 'great' } })).toMatchObject({ ok: false, problem: expect.stringMatching(/^clauses\.AUTH-001: /) });
  });
});
