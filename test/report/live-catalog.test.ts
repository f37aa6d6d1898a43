/**
 * The live catalog read from GET /capabilities in any layout (src/target/live-catalog.ts) and
 * its drift between two runs: removed operations and change kinds are what `wgc diff` calls a
 * regression.
 */
import { describe, expect, test } from 'vitest';
import { catalogDrift, readLiveCatalog, type LiveCatalog } from '../../src/target/live-catalog.ts';

const KNOWN = ['graph.apply_update', 'graph.agent_run', 'crm.read_partner_deal_properties'];

describe('readLiveCatalog', () => {
  test("the reference's layout: an operations array with changeKinds, queries beside it", () => {
    const body = {
      operations: [{ name: 'graph.apply_update', changeKinds: ['account_field', 'workspace_labels'] }, { name: 'graph.agent_run' }, { name: 'acme.own_operation', changeKinds: [{ kind: 'x' }] }],
      queries: [{ name: 'crm.read_partner_deal_properties' }],
    };
    expect(readLiveCatalog(body, KNOWN, 'c')).toEqual({
      operations: ['acme.own_operation', 'crm.read_partner_deal_properties', 'graph.agent_run', 'graph.apply_update'],
      changeKinds: { 'acme.own_operation': ['x'], 'graph.apply_update': ['account_field', 'workspace_labels'] },
      observedBy: 'c',
    });
  });

  test('other layouts: keyed by name with snake_case kinds, or names as plain strings; no kinds is null', () => {
    const keyed = { catalog: { 'graph.apply_update': { allowed_change_kinds: ['account_field'] }, 'graph.agent_run': {} } };
    expect(readLiveCatalog(keyed, KNOWN, 'c')).toMatchObject({ operations: ['graph.agent_run', 'graph.apply_update'], changeKinds: { 'graph.apply_update': ['account_field'] } });
    const plain = { data: { ops: 'graph.agent_run', list: ['graph.apply_update', 'unrelated'] } };
    expect(readLiveCatalog(plain, KNOWN, 'c')).toEqual({ operations: ['graph.agent_run', 'graph.apply_update'], changeKinds: null, observedBy: 'c' });
    expect(readLiveCatalog({ nothing: true }, KNOWN, 'c').operations).toEqual([]);
  });
});

describe('catalogDrift', () => {
  const cat = (operations: string[], changeKinds: Record<string, string[]> | null): LiveCatalog => ({ operations, changeKinds, observedBy: 'c' });

  test('removed and added operations and change kinds', () => {
    const base = cat(['a.one', 'a.two'], { 'a.one': ['k1', 'k2'] });
    const head = cat(['a.one', 'a.three'], { 'a.one': ['k2', 'k3'] });
    expect(catalogDrift(base, head)).toEqual({
      comparable: true,
      removedOperations: ['a.two'],
      addedOperations: ['a.three'],
      removedChangeKinds: ['a.one: k1'],
      addedChangeKinds: ['a.one: k3'],
    });
  });

  test('nothing to compare when a run has no catalog on record; kinds only where both list kinds', () => {
    expect(catalogDrift(undefined, cat(['a'], null)).comparable).toBe(false);
    expect(catalogDrift(cat(['a.one'], { 'a.one': ['k'] }), cat(['a.one'], null))).toMatchObject({ comparable: true, removedChangeKinds: [], addedChangeKinds: [] });
  });
});
