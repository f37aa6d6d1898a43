/** The rules by which a listing answer agrees with the same request's answers around it (suites/auth/listing-agreement.ts). */
import { describe, expect, it } from 'vitest';
import { listingDisagreement } from '../../suites/auth/listing-agreement.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const item = (n: number, extra: Record<string, unknown> = {}) => ({ id: id(n), name: `d${n}`, ...extra });
const page = (items: unknown[], nextCursor: string | null = null) => ({ items, nextCursor });

describe('listingDisagreement', () => {
  it('agrees with identical answers', () => {
    const p = page([item(1), item(2)]);
    expect(listingDisagreement(p, p, p)).toBeUndefined();
  });

  it('tolerates items created, edited or archived by others between the requests', () => {
    // 3 created before the middle answer and archived after it; 2 edited twice; 4 created after.
    const before = page([item(1), item(2, { description: 'a' })]);
    const middle = page([item(1), item(2, { description: 'b' }), item(3)]);
    const after = page([item(1), item(2, { description: 'c' }), item(4)]);
    expect(listingDisagreement(middle, before, after)).toBeUndefined();
  });

  it('finds an item listed alike before and after missing from the middle answer', () => {
    const p = page([item(1), item(2)]);
    expect(listingDisagreement(page([item(2)]), p, p)).toMatch(/missing/);
  });

  it('finds an item listed alike before and after listed differently in the middle', () => {
    const p = page([item(1), item(2)]);
    expect(listingDisagreement(page([item(1), item(2, { name: 'other' })]), p, p)).toMatch(/differently/);
  });

  it("finds another workspace's listing (nothing in common)", () => {
    const p = page([item(1), item(2)]);
    expect(listingDisagreement(page([item(7), item(8)]), p, p)).toMatch(/missing/);
  });

  it('compares a page with more to follow only as far as it reaches', () => {
    // Another client inserted item 0 before the middle answer; item 3 fell off its page of three.
    const around = page([item(1), item(2), item(3)], id(3));
    const middle = page([item(0), item(1), item(2)], id(2));
    expect(listingDisagreement(middle, around, around)).toBeUndefined();
    expect(listingDisagreement(page([item(0), item(2), item(3)], id(3)), around, around)).toMatch(/item .*1.* missing/);
  });

  it('does not apply to answers that are not collection envelopes', () => {
    expect(listingDisagreement({ error: 1 }, page([]), page([]))).toBeNull();
  });
});
