import { describe, expect, test } from 'vitest';
import { loadCatalog, parseCatalog, isObservable, CatalogError } from '../../src/catalog/load.ts';
import { AREAS, ambiguitiesOf, areaOf } from '../../src/catalog/types.ts';

const catalog = loadCatalog();

describe('clause catalog', () => {
  test('holds well over 100 clauses, every area used', () => {
    expect(catalog.clauses.length).toBeGreaterThan(150);
    const used = new Set(catalog.clauses.map((c) => areaOf(c.id)));
    for (const area of AREAS) expect(used, `area ${area} has no clause`).toContain(area);
  });

  test('ids are unique and numbered within their area without reuse', () => {
    const ids = catalog.clauses.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('every unobservable clause says why, and every ambiguity lists at least two readings', () => {
    for (const c of catalog.clauses) {
      if (!isObservable(c)) expect(c.unobservable!.length, c.id).toBeGreaterThan(20);
      for (const a of ambiguitiesOf(c)) expect(a.accepted.length, c.id).toBeGreaterThanOrEqual(2);
    }
  });

  test('the ambiguities the seed leaves open are recorded', () => {
    const ambiguous = catalog.clauses.filter((c) => ambiguitiesOf(c).length > 0).map((c) => c.id);
    // departed member, paused workspace, archive twice, patch archived, deepObject wire form,
    // failed request's key, create status, malformed path uuid, unknown body properties
    for (const id of ['AUTH-009', 'AUTH-010', 'DEF-016', 'DEF-021', 'DEF-023', 'IDEM-009', 'DEF-012', 'DEF-027', 'DEF-025']) {
      expect(ambiguous).toContain(id);
    }
    // found by the alternative reference variant: unknown query parameters, Idempotency-Key
    // scope, which write's reason, merge-value edges, unknown archive slugs, slugs, changes on
    // their own, and the time bounds the suite assumes (receipts, runs, quotes, the ledger)
    for (const id of ['AUTH-011', 'IDEM-004', 'DEF-017', 'DEF-022', 'DEF-019', 'DEF-005', 'SVC-005', 'OPS-001', 'OPS-004', 'OPS-012', 'BILL-001']) {
      expect(ambiguous).toContain(id);
    }
  });

  test('several open questions of one clause are listed one by one', () => {
    expect(ambiguitiesOf(catalog.get('DEF-022')).length).toBeGreaterThanOrEqual(4);
    expect(ambiguitiesOf(catalog.get('AUTH-009'))).toHaveLength(1);
    expect(ambiguitiesOf(catalog.get('AUTH-001'))).toHaveLength(0);
  });

  test('ids never change meaning (update the snapshot only when a statement is reworded, never re-purposed)', () => {
    const frozen = Object.fromEntries(catalog.clauses.map((c) => [c.id, `${c.level} ${c.ref} | ${c.statement}`]));
    expect(frozen).toMatchSnapshot();
  });
});

describe('catalog loader rejects bad input, naming the file and the place', () => {
  const wrap = (clauses: string) => `version: 1\nclauses:\n${clauses}`;
  const good = `  - id: AUTH-001\n    level: MUST\n    ref: "5"\n    statement: s\n    observe: { keys: k, control: false, ledger: false, mutation: false }\n`;

  test('YAML syntax error gives line and column', () => {
    expect(() => parseCatalog('version: 1\nclauses: [\n', 'x.yaml')).toThrow(/^x\.yaml: line \d+, column \d+/);
  });
  test('a field of the wrong form names the clause and field', () => {
    expect(() => parseCatalog(wrap(good.replace('MUST', 'MAY')), 'x.yaml')).toThrow(/x\.yaml: clauses\[0\] \(AUTH-001\): level/);
  });
  test('a duplicate id is refused', () => {
    expect(() => parseCatalog(wrap(good + good), 'x.yaml')).toThrow(/clauses\[1\].*duplicate id AUTH-001/);
  });
  test('an ambiguity list of one question, or a question with one reading, is refused', () => {
    const q = (n: number) => `{ question: q, accepted: [${Array.from({ length: n }, (_, i) => `r${i}`).join(', ')}] }`;
    expect(() => parseCatalog(wrap(`${good}    ambiguity: [${q(2)}]\n`), 'x.yaml')).toThrow(/clauses\[0\] \(AUTH-001\): ambiguity/);
    expect(() => parseCatalog(wrap(`${good}    ambiguity: ${q(1)}\n`), 'x.yaml')).toThrow(/clauses\[0\] \(AUTH-001\): ambiguity/);
    expect(parseCatalog(wrap(`${good}    ambiguity: [${q(2)}, ${q(3)}]\n`), 'x.yaml').get('AUTH-001').ambiguity).toHaveLength(2);
  });
  test('an unknown area prefix is refused', () => {
    expect(() => parseCatalog(wrap(good.replace('AUTH-001', 'FOO-001')), 'x.yaml')).toThrow(/unknown area prefix "FOO"/);
  });
  test('an unknown clause id in a lookup is an error naming it', () => {
    expect(() => catalog.get('AUTH-999')).toThrow(CatalogError);
    expect(() => catalog.get('AUTH-999')).toThrow(/AUTH-999/);
  });
  test('a missing file names the path', () => {
    expect(() => loadCatalog('/nonexistent/clauses.yaml')).toThrow(/\/nonexistent\/clauses\.yaml: file/);
  });
});
