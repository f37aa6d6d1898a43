/**
 * The live catalog's change kinds (part 9 rule 2) are found in any layout: under a key spelt like
 * "change kinds", or as the list under the operation's entry that names person_field (the one
 * kind 4.8 shows), whatever it is called; in an array of operation objects or keyed by name.
 */
import { describe, expect, test } from 'vitest';
import { changeKindEntries, readLiveCatalog } from '../../src/target/live-catalog.ts';

const OP = 'graph.apply_update';
const KNOWN = [OP, 'graph.propose_update'];

describe('changeKindEntries', () => {
  test('an array of operation objects with changeKinds objects: kinds, fields and the argument names of their notes', () => {
    const body = {
      operations: [
        { name: 'graph.propose_update', changeKinds: [{ kind: 'person_field' }] },
        {
          name: OP,
          changeKinds: [
            { kind: 'person_field', fields: ['title'], notes: 'target_label, person_id, field, after' },
            { kind: 'label', fields: [], notes: 'definition_id, entity_kind (account|contact), entityId, value_slug' },
          ],
        },
      ],
    };
    const entries = changeKindEntries(body, OP);
    expect(entries.map((e) => e.kind)).toEqual(['person_field', 'label']);
    expect(entries[0]!.fields).toEqual(['title']);
    expect(entries[1]!.words).toEqual(expect.arrayContaining(['definition_id', 'entity_kind', 'entityId', 'value_slug']));
    expect(readLiveCatalog(body, KNOWN, 'x').changeKinds).toEqual({ [OP]: ['label', 'person_field'], 'graph.propose_update': ['person_field'] });
  });

  test('a catalog keyed by operation name, its list under a key of its own that names person_field', () => {
    const body = { operationsByName: { [OP]: { params: [], editKinds: [{ name: 'person_field' }, { name: 'account_field', allowedFields: ['domain', 'industry'] }] } } };
    const entries = changeKindEntries(body, OP);
    expect(entries.map((e) => e.kind)).toEqual(['person_field', 'account_field']);
    expect(entries[1]!.fields).toEqual(['domain', 'industry']);
    expect(readLiveCatalog(body, KNOWN, 'x').changeKinds).toEqual({ [OP]: ['account_field', 'person_field'] });
  });

  test('kinds as plain strings, nested one level down', () => {
    const body = { ops: [{ id: OP, edits: { allowed: ['person_field', 'label'] } }] };
    expect(changeKindEntries(body, OP)).toEqual([
      { kind: 'person_field', fields: null, words: [] },
      { kind: 'label', fields: null, words: [] },
    ]);
  });

  test('nothing when the operation lists no change kinds, or another operation holds them', () => {
    expect(changeKindEntries({ operations: [{ name: OP, arguments: ['customer_id'] }] }, OP)).toEqual([]);
    expect(changeKindEntries({ operations: [{ name: 'graph.propose_update', changeKinds: ['person_field'] }] }, OP)).toEqual([]);
    expect(changeKindEntries('not a catalog', OP)).toEqual([]);
  });
});
