/**
 * The sequences suite's pieces (suites/sequences): the credit plan draws exactly the sequences
 * the property runs (so the plan is exact for any seed), a sequence is priced as the reference
 * charges it, and the model accepts the readings the document allows and holds the server to the
 * one it showed first. The suite itself runs against every variant in the variant and keys-only
 * tests, and its faults (the `sequences` family) in the kill-matrix test.
 */
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../src/engine/check.ts';
import { checkProperty } from '../../src/engine/property.ts';
import { sequenceArb, type Cmd } from '../../suites/sequences/commands.ts';
import { differences, emptyModel, type ModelDef } from '../../suites/sequences/model.ts';
import { drawnSequenceCredits, drawnSequences, sequenceCredits } from '../../suites/sequences/plan.ts';

const def = (over: Partial<ModelDef> = {}): ModelDef => ({
  id: 'd',
  fields: { name: 'n', description: '' },
  entityKinds: ['deal', 'account'],
  reasons: { creation: 'made', latest: 'patched' },
  archived: false,
  written: new Set(),
  values: [
    { label: 'Alpha', slug: 'alpha', archived: false },
    { label: 'Beta', slug: 'beta', archived: false },
  ],
  ...over,
});
const shown = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'n',
  description: '',
  entity_kinds: ['account', 'deal'],
  state: 'live',
  archived_at: null,
  reason: 'patched',
  enum_values: [
    { label: 'Alpha', slug: 'alpha', archived: false, position: 0 },
    { label: 'Beta', slug: 'beta', archived: false, position: 1 },
  ],
  ...over,
});

describe('the sequences credit plan', () => {
  it('draws the very sequences the property runs, for any seed', async () => {
    for (const seed of [1, 20_240_611, 4_000_000_000]) {
      const ran: Cmd[][] = [];
      const ctx = { run: { seed, numRuns: 7 } } as unknown as CheckContext;
      await checkProperty(ctx, { clause: 'DEF-029', arbitrary: sequenceArb, predicate: async (cmds) => void ran.push(cmds) });
      expect(drawnSequences(seed, 7)).toEqual(ran);
    }
  });

  it('prices the draw once per seed and run count: each part of a model check reads the same figures', () => {
    for (const seed of [1, 4_000_000_000]) {
      const credits = drawnSequenceCredits(seed, 7);
      expect(credits).toEqual(drawnSequences(seed, 7).map(sequenceCredits));
      expect(drawnSequenceCredits(seed, 7)).toBe(credits);
      expect(Object.isFrozen(credits)).toBe(true);
    }
    // Another seed or run count is another draw.
    expect(drawnSequenceCredits(2, 7)).toEqual(drawnSequences(2, 7).map(sequenceCredits));
    expect(drawnSequenceCredits(1, 8)).toHaveLength(8);
  });

  it('prices each command as the reference charges it, skipped ones at nothing, and archives what stays live', () => {
    const create: Cmd = { kind: 'create', module: 'customers', kinds: ['account'], cardinality: 'exclusive', labels: ['Alpha', 'Beta'], keyed: true };
    // create 1, merge 2 (read back), replay 0, conflict 0, walk 1, archive 2 (read back); nothing left live.
    expect(
      sequenceCredits([
        create,
        { kind: 'merge', target: 0, from: 0, into: 0 },
        { kind: 'replay', which: 0 },
        { kind: 'conflict', which: 0 },
        { kind: 'walk', includeArchived: false },
        { kind: 'archive', target: 0 },
      ]),
    ).toBe(6);
    // A walk of one definition a page over two live ones: two pages (the last one ends it).
    expect(sequenceCredits([create, create, { kind: 'walk', includeArchived: false, limit: 1 }])).toBe(2 + 2 + 2);
    // A PATCH with no live definition is skipped; the create's definition is archived at the end.
    expect(sequenceCredits([{ kind: 'patch', target: 0, add: [], archive: [] }, create])).toBe(2);
    // A live CRM read and the walk after it 2, crm:read withheld in between 3 (a read once it is
    // back); a compute run 1, 3 with the ladder (a run after the scope came back, one under the
    // admin role); its poll free. Every read in turn: 5, 7 with a definition to trace.
    expect(sequenceCredits([{ kind: 'query', op: 0, withheld: false }])).toBe(2);
    expect(sequenceCredits([{ kind: 'query', op: 1, withheld: true }])).toBe(3);
    expect(
      sequenceCredits([
        { kind: 'compute', ladder: false },
        { kind: 'cpoll', which: 3 },
      ]),
    ).toBe(1);
    expect(sequenceCredits([{ kind: 'compute', ladder: true }])).toBe(3);
    expect(sequenceCredits([{ kind: 'read' }])).toBe(5);
    // No compute run or submission yet: a poll starts or submits one first, a replay too (then free).
    expect(sequenceCredits([{ kind: 'cpoll', which: 0 }])).toBe(1);
    expect(
      sequenceCredits([
        { kind: 'poll', which: 2 },
        { kind: 'resubmit', which: 0 },
        { kind: 'reuse', which: 1 },
      ]),
    ).toBe(1);
  });
});

describe('the model', () => {
  it('compares only what the writes set, entity kinds as a set, either reason, "" or null for text', () => {
    const m = emptyModel();
    expect(differences(def(), shown(), m.readings)).toEqual([]);
    expect(differences(def(), shown({ description: null, reason: 'made', revision: 9 }), m.readings)).toEqual([]);
    expect(differences(def(), shown({ name: 'other' }), m.readings)).toEqual(['name is "other", not "n"']);
    expect(differences(def({ archived: true }), shown(), m.readings)).toHaveLength(2);
    expect(differences(def(), shown({ reason: 'elsewhere' }), m.readings)).toHaveLength(1);
  });

  it('takes the merged-away reading the server shows first and holds it', () => {
    const m = emptyModel();
    const merged = def({
      values: [
        { label: 'Alpha', slug: 'alpha', archived: false, mergedAway: true },
        { label: 'Beta', slug: 'beta', archived: false },
      ],
    });
    const removed = shown({ enum_values: [{ label: 'Beta', slug: 'beta', archived: false }] });
    expect(differences(merged, removed, m.readings)).toEqual([]);
    expect(m.readings.mergedAway).toBe('removed');
    // The same server later shows the value again, live: not the reading it showed.
    expect(differences(merged, shown(), m.readings)).toEqual(['the value merged away (alpha) is kept where an earlier merge left it removed']);
    expect(differences(def(), shown({ enum_values: [...(shown().enum_values as object[]), { label: 'Gamma', slug: 'gamma', archived: false }] }), m.readings)).toEqual([
      'an enum value "gamma" appeared',
    ]);
  });
});
