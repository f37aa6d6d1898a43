/**
 * The named faults: every observable MUST clause of the catalog has at least one, every clause
 * a fault names exists, names are stable kebab-case, and each fault is checked at exactly one
 * place in src/reference.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isObservable, loadCatalog } from '../../src/catalog/load.ts';
import { FAULTS, startReference } from '../../src/reference/index.ts';
import { BILLED_ERRORS, BILLED_FREE_ROUTES, RELAXED_ISSUES, RELAXED_SCOPES, SEQUENCE_FAULTS } from '../../src/reference/faults.ts';

const catalog = loadCatalog();
const dir = fileURLToPath(new URL('../../src/reference/', import.meta.url));

describe('faults', () => {
  it('cover every observable MUST clause', () => {
    const covered = new Set(FAULTS.flatMap((f) => f.clauses));
    const missing = catalog.clauses.filter((c) => c.level === 'MUST' && isObservable(c) && !covered.has(c.id)).map((c) => c.id);
    expect(missing).toEqual([]);
  });

  it('name only clauses of the catalog', () => {
    for (const f of FAULTS) for (const id of f.clauses) expect(catalog.byId.has(id), `${f.name}: ${id}`).toBe(true);
  });

  it('have unique kebab-case names, at least one clause and a description', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.clauses.length).toBeGreaterThan(0);
      expect(f.description.length).toBeGreaterThan(10);
    }
  });

  it('are each checked at exactly one place', () => {
    const code = readdirSync(dir)
      .filter((n) => n.endsWith('.ts') && n !== 'faults.ts')
      .map((n) => readFileSync(dir + n, 'utf8'))
      .join('\n');
    const tables = new Set([...Object.keys(RELAXED_ISSUES), ...Object.keys(RELAXED_SCOPES), ...Object.keys(BILLED_FREE_ROUTES), ...Object.keys(BILLED_ERRORS)]);
    for (const f of [...FAULTS, ...SEQUENCE_FAULTS]) {
      const uses = code.split(`'${f.name}'`).length - 1 + (tables.has(f.name) ? 1 : 0);
      expect(uses, f.name).toBe(1);
    }
    const used = [...code.matchAll(/faults\.has\('([a-z0-9-]+)'\)/g)].map((m) => m[1]);
    const known = new Set([...FAULTS, ...SEQUENCE_FAULTS].map((f) => f.name));
    for (const name of used) expect(known.has(name!), name).toBe(true);
    for (const name of tables) expect(known.has(name), name).toBe(true);
  });

  it('can each be switched on', async () => {
    for (const f of [...FAULTS, ...SEQUENCE_FAULTS]) {
      const r = await startReference({ faults: [f.name] });
      expect(r.faults).toEqual([f.name]);
      await r.close();
    }
  });
});
