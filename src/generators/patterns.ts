/**
 * The regular expressions of specs/openapi.yaml the generators know how to satisfy and to
 * break. A pattern not listed here makes the generators throw: producing strings for a
 * pattern we do not understand would silently yield invalid "valid" data.
 */
import fc from 'fast-check';
import { boundedString, hexOf, stringOfLength, textFor, VISIBLE } from './strings.ts';

/** What the generators can do with one pattern. Lengths are the schema's minLength/maxLength. */
export interface PatternSupport {
  /** Strings that match, with a length in [min, max]. */
  valid(min: number, max: number | undefined, compact: boolean): fc.Arbitrary<string>;
  /** A matching string of exactly `length` characters, or undefined when no such string exists. */
  ofLength(length: number): fc.Arbitrary<string> | undefined;
  /** Strings that do not match, with a length in [min, max] (so only the pattern fails). */
  invalid(min: number, max: number | undefined): fc.Arbitrary<string>;
  /** A fixed matching string with a length in [min, max], distinct for distinct tags (see minimal.ts). */
  example(tag: string, min: number, max: number | undefined): string;
  /**
   * The pattern's edges (edges.ts), fixed: strings just inside it (its lengths, its alphabet's
   * ends, either case where both are allowed) and just outside it (one character short or
   * long, one character out of its alphabet), each refused by every conformant server.
   */
  edges: { valid: readonly string[]; invalid: readonly string[] };
}

const HEX_LOWER = fc.constantFrom(...'0123456789abcdef');
const HEX_ANY = fc.constantFrom(...'0123456789abcdefABCDEF');

/** A non-matching candidate and its length, so candidates outside a schema's length bounds can be dropped. */
type Candidate = readonly [length: number, arbitrary: fc.Arbitrary<string>];

function within(min: number, max: number | undefined, candidates: readonly Candidate[]): fc.Arbitrary<string> {
  const kept = candidates.filter(([length]) => length >= min && (max === undefined || length <= max)).map(([, arb]) => arb);
  if (kept.length === 0) throw new Error(`no non-matching string fits lengths ${min}..${max ?? 'unbounded'}`);
  return fc.oneof(...kept);
}

function fixedLength(length: number, make: () => fc.Arbitrary<string>): PatternSupport['valid'] {
  return (min, max) => {
    if (length < min || (max !== undefined && length > max)) throw new Error(`the pattern only matches ${length} characters, outside ${min}..${max}`);
    return make();
  };
}

/** Color: "#" and six hexadecimal digits, either case. */
const color: PatternSupport = {
  valid: fixedLength(7, () => fc.string({ unit: HEX_ANY, minLength: 6, maxLength: 6 }).map((h) => `#${h}`)),
  ofLength: (length) => (length === 7 ? fc.string({ unit: HEX_ANY, minLength: 6, maxLength: 6 }).map((h) => `#${h}`) : undefined),
  invalid: (min, max) =>
    within(min, max, [
      [6, fc.constantFrom('#12345', '#abcde')],
      [8, fc.constantFrom('#1234567', '#abcdef0')],
      [7, fc.constantFrom('#GGGGGG', '#12345z', '#-12345')],
      [6, fc.constantFrom('123456', 'abcdef')],
      [3, fc.constant('red')],
      [0, fc.constant('')],
    ]),
  example: (tag) => `#${hexOf(tag, 6)}`,
  edges: { valid: ['#000000', '#FFFFFF', '#ffffff', '#a0B9c8'], invalid: ['#12345', '#1234567', '123456', '#12345g', '#GGGGGG'] },
};

/** Content hash: exactly 64 lowercase hexadecimal characters. */
const contentHash: PatternSupport = {
  valid: fixedLength(64, () => fc.string({ unit: HEX_LOWER, minLength: 64, maxLength: 64 })),
  ofLength: (length) => (length === 64 ? fc.string({ unit: HEX_LOWER, minLength: 64, maxLength: 64 }) : undefined),
  invalid: (min, max) => {
    const hex = (n: number): fc.Arbitrary<string> => fc.string({ unit: HEX_LOWER, minLength: n, maxLength: n });
    return within(min, max, [
      [64, hex(63).map((h) => `F${h}`)], // an uppercase digit
      [63, hex(63)],
      [65, hex(65)],
      [64, hex(63).map((h) => `g${h}`)],
      [71, hex(64).map((h) => `sha256:${h}`)],
    ]);
  },
  example: (tag) => hexOf(tag, 64),
  edges: {
    valid: ['0'.repeat(64), 'f'.repeat(64), hexOf('edge', 64)],
    invalid: [`A${hexOf('edge', 63)}`, `${hexOf('edge', 63)}F`, hexOf('edge', 63), hexOf('edge', 65), `g${hexOf('edge', 63)}`],
  },
};

/** Visible ASCII without spaces, at least one character (the Idempotency-Key header). */
const visibleAscii: PatternSupport = {
  valid: (min, max, compact) => boundedString(Math.max(min, 1), max, compact, VISIBLE),
  ofLength: (length) => (length >= 1 ? stringOfLength(length, VISIBLE) : undefined),
  invalid: (min, max) => {
    // Short inner parts keep the value inside [min, max] for any min <= 3 <= max.
    const part = fc.string({ unit: VISIBLE, minLength: 1, maxLength: 1 });
    return within(min, max, [
      [3, fc.tuple(part, part).map(([a, b]) => `${a} ${b}`)], // a space
      [3, fc.tuple(part, part).map(([a, b]) => `${a}\u00e9${b}`)], // not ASCII
      [3, fc.tuple(part, part).map(([a, b]) => `${a}\t${b}`)], // a control character
    ]);
  },
  example: (tag, min, max) => textFor(tag, Math.max(min, 1), max),
  edges: { valid: ['!', '~', '!~0aZ'], invalid: ['a b', ' ab', 'ab ', 'a\u00e9b', 'a\tb'] },
};

/** Supported patterns, keyed by their exact source text in the document. */
export const PATTERNS: Readonly<Record<string, PatternSupport>> = {
  '^#[0-9a-fA-F]{6}$': color,
  '^[0-9a-f]{64}$': contentHash,
  '^[\\x21-\\x7E]+$': visibleAscii,
};
