/**
 * Structural shrinking (src/generators/minimize.ts): every candidate is still admitted by the
 * schema (required properties, minItems, minLength; formatted strings are never cut), the largest
 * cuts come first, and the descent ends on a value no candidate of which still fails, saying so,
 * or says the budget ran out.
 */
import { describe, expect, test } from 'vitest';
import { minimize, smallerValues } from '../../src/generators/minimize.ts';
import type { JsonSchema } from '../../src/spec/types.ts';

const schema: JsonSchema = {
  type: 'object',
  required: ['name', 'kinds'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 80 },
    id: { type: 'string', format: 'uuid' },
    note: { type: 'string', maxLength: 1000 },
    kinds: { type: 'array', minItems: 1, items: { type: 'string', enum: ['a', 'b', 'c'] } },
    values: {
      type: 'array',
      items: { type: 'object', required: ['label'], properties: { label: { type: 'string', minLength: 1 }, color: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' }, description: { type: 'string' } } },
    },
  },
};

const big = {
  name: 'a long name of many characters',
  id: '6f1c2f4e-1d2b-4c3a-9e8f-0a1b2c3d4e5f',
  note: 'x'.repeat(900),
  kinds: ['a', 'b', 'c'],
  values: Array.from({ length: 22 }, (_, i) => ({ label: `value ${i}`, description: 'd'.repeat(50), ...(i === 17 ? { color: '#a1b2c3' } : {}) })),
};

/** A server that refuses any enum value carrying a color. */
const refusesColor = async (v: unknown): Promise<boolean> => JSON.stringify(v).includes('"color"');

describe('smallerValues', () => {
  test('keeps what the schema requires and never cuts a formatted or patterned string', () => {
    for (const { value } of smallerValues(schema, big)) {
      const v = value as typeof big;
      expect(typeof v.name).toBe('string');
      expect(v.name.length).toBeGreaterThanOrEqual(1);
      expect(v.kinds.length).toBeGreaterThanOrEqual(1);
      if (v.id !== undefined) expect(v.id).toBe(big.id);
      for (const item of v.values ?? []) {
        expect(typeof item.label).toBe('string');
        if ('color' in item) expect(item.color).toBe('#a1b2c3');
      }
    }
  });

  test('the largest cut first: every optional property at once, then the largest alone', () => {
    const [first, second] = [...smallerValues(schema, big)].slice(0, 2);
    expect(first!.value).toEqual({ name: big.name, kinds: big.kinds });
    expect(Object.keys(second!.value as object)).not.toContain('values');
  });

  test('strings are cut by code points (a surrogate pair is never split)', () => {
    const cuts = [...smallerValues({ type: 'string', minLength: 2 }, '😀😀😀😀')];
    expect(cuts.map((c) => c.value)).toEqual(['😀😀']);
  });
});

describe('minimize', () => {
  test('shrinks to the failing field and the required ones, and says it is minimal', async () => {
    const m = await minimize<unknown>(big, (v) => smallerValues(schema, v), refusesColor, 500);
    expect(m.minimal).toBe(true);
    expect(m.value).toEqual({ name: 'a', kinds: ['a'], values: [{ label: 'v', color: '#a1b2c3' }] });
    expect(m.steps).toBeGreaterThan(0);
  });

  test('says when the budget ran out before the value was minimal', async () => {
    const m = await minimize<unknown>(big, (v) => smallerValues(schema, v), refusesColor, 5);
    expect(m.calls).toBe(5);
    expect(m.minimal).toBe(false);
    expect(await refusesColor(m.value)).toBe(true);
  });

  test('a value no candidate of which fails is returned as it is, minimal', async () => {
    const m = await minimize<unknown>(
      { name: 'n', kinds: ['a'] },
      (v) => smallerValues(schema, v),
      async () => false,
      10,
    );
    expect(m).toEqual({ value: { name: 'n', kinds: ['a'] }, calls: 0, steps: 0, minimal: true });
  });
});
