/**
 * The rule register (specs/rules.yaml) against the documents it registers: every numbered rule
 * and table row of the API document and of the control protocol's endpoint table has an entry,
 * every entry names real clauses or says why none, and every clause of the catalog is placed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, test } from 'vitest';
import { loadCatalog } from '../../src/catalog/load.ts';
import { checkRegister, copiedRuns, documentPlaces, loadRules, parseRules, RulesError, type RuleEntry } from '../../src/catalog/rules.ts';

/** Where the two documents live: beside the project (../shared), or WGC_DOCUMENTS_DIR for a copy of it elsewhere. */
const SHARED = process.env.WGC_DOCUMENTS_DIR || fileURLToPath(new URL('../../../shared', import.meta.url));
const DOCUMENTS = [
  { name: 'API document', path: join(SHARED, 'seed/service-api-v1-beta.md'), section: undefined },
  { name: 'control protocol', path: join(SHARED, 'control-protocol.md'), section: 'control' },
] as const;

const register = loadRules();
const clauseIds = loadCatalog().clauses.map((c) => c.id);
const absent = DOCUMENTS.filter((d) => !existsSync(d.path));

if (absent.length > 0) {
  const what = absent.map((d) => `${d.name} (${d.path})`).join(', ');
  if (process.env.CI) {
    test('the documents the register covers are present', () => {
      expect.fail(`missing under CI: ${what}; the rule register cannot be checked for completeness`);
    });
  } else {
    console.warn(`rules.test.ts: rule register completeness not checked, document missing: ${what} (under CI this fails)`);
    test.skip(`rule register completeness: skipped, document missing: ${what}`, () => {});
  }
} else {
  const texts = DOCUMENTS.map((d) => readFileSync(d.path, 'utf8'));
  const derived = DOCUMENTS.flatMap((d, i) => documentPlaces(texts[i]!, d.section === undefined ? {} : { section: d.section }));

  describe('rule register against the documents', () => {
    test('the derivation finds the places of both documents', () => {
      expect(derived.length).toBeGreaterThan(150);
      for (const place of [
        '1.rule.8',
        '2.1.field.slug',
        '2.6.factor.status',
        '2.7.rule.3',
        '4.4.body.name',
        '4.8.rule.3',
        '5.rule.9',
        '5.capability.live-crm-reads',
        '7.status.503',
        '8.billing.7',
        '9.rule.2',
        'control.method.post-keys-keyid-revoke',
      ]) {
        expect(derived).toContain(place);
      }
    });

    test('is complete and consistent with the catalog', () => {
      const problems = checkRegister(register.entries, derived, clauseIds);
      expect(problems.missing, 'document places with no entry in specs/rules.yaml').toEqual([]);
      expect(problems.stale, 'entries whose derived place the documents no longer have').toEqual([]);
      expect(problems.repeated, 'places with more than one entry').toEqual([]);
      expect(problems.unknownClauses, 'clause ids not in specs/clauses.yaml').toEqual([]);
      expect(problems.unplacedClauses, 'catalog clauses named by no entry').toEqual([]);
      expect(problems.undecided, 'entries needing exactly one of clauses and unencoded').toEqual([]);
    });

    test('the check is not vacuous: each kind of damage to the register is found', () => {
      const entries = register.entries;
      const check = (changed: readonly RuleEntry[]) => checkRegister(changed, derived, clauseIds);
      // a rule deleted from the register
      const victim = entries.find((e) => e.place === '5.rule.8')!;
      expect(check(entries.filter((e) => e !== victim)).missing).toEqual(['5.rule.8']);
      // every derived place, deleted one at a time, is missed
      const everyOne = derived.filter((place) => check(entries.filter((e) => e.place !== place)).missing.length !== 1);
      expect(everyOne).toEqual([]);
      // a clause no other entry names, lost with its entry
      const only = entries.find((e) => e.place === '5.rule.9')!;
      const before = new Set(check(entries).unplacedClauses);
      expect(check(entries.filter((e) => e !== only)).unplacedClauses.filter((id) => !before.has(id))).toEqual(['AUTH-013']);
      // a repeated place, an unknown clause, an undecided entry, a place the documents lack
      expect(check([...entries, victim]).repeated).toEqual(['5.rule.8']);
      expect(check([...entries, { ...victim, place: '5.text.extra', clauses: ['AUTH-999'] }]).unknownClauses).toEqual(['5.text.extra: AUTH-999']);
      expect(check([...entries, { place: '5.text.extra', summary: 's', governs: ['every-key'] }]).undecided).toEqual(['5.text.extra']);
      expect(check([...entries, { ...victim, place: '5.rule.10' }]).stale).toEqual(['5.rule.10']);
    });

    test('no summary copies the documents (no run of 8 words in common)', () => {
      const copied = register.entries.flatMap((e) => texts.flatMap((t) => copiedRuns(e.summary, t).map((run) => `${e.place}: "${run}"`)));
      expect(copied).toEqual([]);
      // the comparison itself catches a copied sentence, whatever its case
      expect(copiedRuns('NOTE: a read does not update stored data or refresh matching.', texts[0]!)).not.toEqual([]);
    });
  });
}

describe('rule register entries', () => {
  const openapi = parse(readFileSync(new URL('../../specs/openapi.yaml', import.meta.url), 'utf8')) as { paths: Record<string, object>; 'x-wgc-operations': Record<string, unknown> };
  const control = parse(readFileSync(new URL('../../specs/control-openapi.yaml', import.meta.url), 'utf8')) as { paths: Record<string, object> };
  const operations = (paths: Record<string, object>, prefix: string) => Object.entries(paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${prefix}${m.toUpperCase()} ${path}`));
  const known = new Set([...operations(openapi.paths, ''), ...operations(control.paths, 'control:'), ...Object.keys(openapi['x-wgc-operations']).map((op) => `op:${op}`)]);

  test('every endpoint and operation an entry governs is one the specs describe', () => {
    const unknown = register.entries.flatMap((e) => e.governs.filter((g) => /^(control:|op:|[A-Z]+ )/.test(g) && !known.has(g)).map((g) => `${e.place}: ${g}`));
    expect(unknown).toEqual([]);
  });

  test('the loader rejects bad input, naming the file and the entry', () => {
    expect(() => parseRules('version: 1\nrules: [\n', 'r.yaml')).toThrow(/^r\.yaml: line \d+, column \d+/);
    expect(() => parseRules('version: 1\nrules:\n  - place: 5.rule.1\n    summary: s\n    governs: [everything]\n', 'r.yaml')).toThrow(RulesError);
    expect(() => parseRules('version: 1\nrules:\n  - place: Five\n    summary: s\n    governs: [every-key]\n', 'r.yaml')).toThrow(/rules\[0\] \(Five\): place/);
  });
});

describe('documentPlaces', () => {
  const md = [
    '# Title',
    '',
    '## 1. Part',
    '',
    'Rules that hold:',
    '',
    '1. First.',
    '2. Second.',
    '',
    '| Capability | Needs |',
    '|---|---|',
    '| Definition list | graph:read |',
    '',
    '3. Third, after the table.',
    '',
    '### 1.2 Sub (note)',
    '',
    '| Body field | Type |',
    '|---|---|',
    '| fromSlug | string |',
    '| `a_b` / c | x |',
    '',
    'Factor object:',
    '',
    '| Field | Type |',
    '|---|---|',
    '| criterion | string |',
    '',
    'Billing:',
    '',
    '1. Costs one.',
    '',
    '```',
    '1. not a rule',
    '| not | a row |',
    '```',
  ].join('\n');

  test('names list items and table rows by section, kind and number or first cell', () => {
    expect(documentPlaces(md)).toEqual(['1.rule.1', '1.rule.2', '1.capability.definition-list', '1.rule.3', '1.2.body.fromslug', '1.2.body.a-b-c', '1.2.factor.criterion', '1.2.billing.1']);
  });

  test('a fixed section replaces the headings', () => {
    expect(documentPlaces('## Endpoints\n\n| Method and path | Effect |\n|---|---|\n| POST /keys/{keyId}/revoke | revoked |\n', { section: 'control' })).toEqual([
      'control.method.post-keys-keyid-revoke',
    ]);
  });

  test('a place derived twice, or a rule before any numbered heading, throws', () => {
    expect(() => documentPlaces('## 1. A\n\n| F | T |\n|---|---|\n| x | 1 |\n| X | 2 |\n')).toThrow(/1\.f\.x derived twice/);
    expect(() => documentPlaces('# Title\n\n1. Orphan.\n')).toThrow(/before any numbered heading/);
  });
});
