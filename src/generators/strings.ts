/**
 * Printable strings of chosen lengths. Lengths are counted in characters (code points), as
 * JSON Schema counts them. Random text is ASCII (its shrinking stays short); the length edges
 * (edges.ts) pad with é, a letter beyond ASCII that is one code point and one UTF-16 unit, so a
 * server that counts UTF-8 bytes is caught at every bound. Characters outside the Basic
 * Multilingual Plane (one code point, two UTF-16 units) are never produced: how they count is
 * left open (clause catalog, interpretation of the length bounds).
 *
 * Printable strings begin and end with a letter or a digit: a server may trim surrounding
 * whitespace (which would move a length across its bound), refuse a blank name, or derive a
 * slug from a label (which would be empty for punctuation alone). Spaces and punctuation
 * appear inside only.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { CHEAP_LENGTH, COMPACT_SLACK, UNBOUNDED_LENGTH } from './options.ts';

/** Printable ASCII, space included (0x20-0x7E). Letters beyond ASCII come at the length edges (edges.ts). */
export const PRINTABLE: fc.Arbitrary<string> = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));

/** Visible ASCII, no space (0x21-0x7E). */
export const VISIBLE: fc.Arbitrary<string> = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));

const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const isAlnum = (c: string): boolean => /[0-9A-Za-z]/.test(c);
/** A letter or digit standing in for `c` (deterministic, so generation stays a pure map). */
const alnumFor = (c: string): string => (isAlnum(c) ? c : ALNUM[c.charCodeAt(0) % ALNUM.length]!);

/** Cuts or repeats `text` (non-empty) to exactly `length` characters; with `edged`, the first and last are letters or digits. */
function fit(text: string, length: number, edged: boolean): string {
  const s = text.repeat(Math.ceil(length / text.length)).slice(0, length);
  if (!edged || s.length === 0) return s;
  if (s.length === 1) return alnumFor(s);
  return alnumFor(s[0]!) + s.slice(1, -1) + alnumFor(s.at(-1)!);
}

/** Random text to cut to length: short enough to be cheap, long enough to vary (see SIZE POLICY). */
function texts(unit: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.string({ unit, minLength: 1, maxLength: CHEAP_LENGTH });
}

/**
 * A string of exactly `length` characters drawn from `unit`; past CHEAP_LENGTH a random text
 * repeats. Printable text (the default unit) begins and ends with a letter or a digit.
 */
export function stringOfLength(length: number, unit: fc.Arbitrary<string> = PRINTABLE): fc.Arbitrary<string> {
  if (length === 0) return fc.constant('');
  return texts(unit).map((text) => fit(text, length, unit === PRINTABLE));
}

/**
 * A length in [min, max], biased to the bounds themselves: min, max, a length just above
 * min, or anywhere in between. `compact` keeps it within COMPACT_SLACK of min.
 */
export function lengthIn(min: number, max: number | undefined, compact = false): fc.Arbitrary<number> {
  const hi = max ?? min + UNBOUNDED_LENGTH;
  if (compact) return fc.integer({ min, max: Math.min(hi, min + COMPACT_SLACK) });
  return fc.oneof(fc.constant(min), fc.constant(hi), fc.integer({ min, max: Math.min(hi, min + 16) }), fc.integer({ min, max: hi }));
}

/**
 * A printable string whose length is in [min, max], biased to the bounds. The length and the
 * text are drawn independently (no `chain`), so no arbitrary is built while generating.
 * Printable text (the default unit) begins and ends with a letter or a digit.
 */
export function boundedString(min: number, max: number | undefined, compact = false, unit: fc.Arbitrary<string> = PRINTABLE): fc.Arbitrary<string> {
  const edged = unit === PRINTABLE;
  return fc.tuple(lengthIn(min, max, compact), texts(unit)).map(([length, text]) => (length === 0 ? '' : fit(text, length, edged)));
}

/**
 * A fixed lowercase alphanumeric string for `tag` with a length in [min, max]: "w" and the tag,
 * padded with leading "w"s up to min (tags hold no "w", so distinct tags stay distinct, also
 * ignoring case), cut to its last `max` characters when longer. Used by minimal.ts.
 */
export function textFor(tag: string, min: number, max: number | undefined): string {
  let s = `w${tag}`;
  if (s.length < min) s = 'w'.repeat(min - s.length) + s;
  if (max !== undefined && s.length > max) s = s.slice(s.length - max);
  return s;
}

/** `length` lowercase hexadecimal digits derived from `tag` (sha-256, repeated when longer than 64). */
export function hexOf(tag: string, length: number): string {
  const h = createHash('sha256').update(tag).digest('hex');
  return h.repeat(Math.ceil(length / h.length)).slice(0, length);
}
