/**
 * The string formats of specs/openapi.yaml the generators support: values that satisfy them,
 * values that break them, and one fixed example per tag for the minimal values around a
 * violation (minimal.ts).
 *
 * A "break" must be refused by every conformant server, so it is a value that no common
 * parser of the format reads as valid — not only one that ajv-formats (full mode) refuses.
 * Lenient readings that rule candidates out are named next to each list.
 */
import fc from 'fast-check';
import { hexOf } from './strings.ts';

/** What the generators can do with one format. */
export interface FormatSupport {
  valid: fc.Arbitrary<string>;
  invalid: fc.Arbitrary<string>;
  /** A fixed valid value, distinct for distinct tags (see minimal.ts). */
  example(tag: string): string;
  /**
   * The format's edges (edges.ts), fixed: valid values in its less usual written forms, and
   * values one slip away from valid that every common parser refuses (junk before or after,
   * a field one past its range).
   */
  edges: { valid: readonly string[]; invalid: readonly string[] };
}

/*
 * Not used as "not a uuid", because a common parser accepts them:
 * - upper case, "urn:uuid:" and "{...}" braces (ajv-formats, Python uuid.UUID and pydantic,
 *   Postgres, Go google/uuid, .NET Guid.Parse);
 * - 32 hex digits without hyphens (Postgres, Python, pydantic, Go, .NET);
 * - hyphens moved between the digits (Python strips them; Postgres allows one after any four);
 * - one digit short or long in the last group (Java UUID.fromString, which Spring uses for
 *   path and query parameters, accepts short groups; before Java 9 also long ones);
 * - the empty string (Spring converts an empty parameter to null, i.e. not given).
 * What is left fails everywhere: a character that is not hexadecimal, a sixth group, no uuid shape.
 */
const uuid: FormatSupport = {
  valid: fc.uuid(),
  invalid: fc.oneof(
    fc.constantFrom('not-a-uuid', '12345'),
    fc.uuid().map((u) => `g${u.slice(1)}`),
    fc.uuid().map((u) => `${u.slice(0, -1)}z`),
    fc.tuple(fc.uuid(), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 4, maxLength: 4 })).map(([u, g]) => `${u}-${g}`),
  ),
  // Version 4 and variant bits set, so even a validator of uuid4 only (pydantic UUID4) accepts it.
  example: (tag) => {
    const h = hexOf(tag, 20);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(12, 15)}-8${h.slice(15, 18)}-${hexOf(`${tag}/node`, 12)}`;
  },
  edges: {
    valid: ['0f8fad5b-d9cb-469f-a165-70867728950e', 'ffffffff-ffff-4fff-bfff-ffffffffffff'],
    invalid: ['x0f8fad5b-d9cb-469f-a165-70867728950e', '0f8fad5b-d9cb-469f-a165-70867728950ex', 'g0f8fad5-d9cb-469f-a165-70867728950e', '0f8fad5b-d9cb-469f-a165-70867728950e-0000'],
  },
};

// Valid date-times lie in the past: a server may plausibly refuse a decision or an observation
// dated in the future, which the seed neither allows nor forbids.
const DATE_MIN = new Date('2000-01-01T00:00:00.000Z');
const DATE_MAX = new Date('2024-12-31T23:59:59.999Z');
const someDate = fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true });
const two = (n: number): string => String(n).padStart(2, '0');

/*
 * Not used as "not a date-time", because a common parser accepts them: a date alone and a
 * date-time without its offset (pydantic datetime, ISO 8601 local time, Python fromisoformat),
 * an impossible day of a real month such as 2024-02-30 (JavaScript Date rolls it over), a
 * second 60 (a leap second is RFC 3339), digits alone (pydantic reads Unix time), another
 * separator than T (Python 3.11 fromisoformat takes any), and the empty string (Jackson's
 * java.time readers take it as null, i.e. not given). What is left fails everywhere: no
 * date at all, a month 0 or 13, a day 0 or 32, an hour 24 or 25, a minute 60, an offset of
 * 25 hours or 60 minutes. A valid offset stays within the ±18:00 java.time allows.
 */
const dateTime: FormatSupport = {
  valid: fc.oneof(
    someDate.map((d) => d.toISOString()),
    someDate.map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
    someDate.map((d) => d.toISOString().replace(/Z$/, '+00:00')),
  ),
  invalid: fc.oneof(
    fc.constantFrom('not-a-date', 'yesterday', '2024-13-45T25:61:61Z'),
    someDate.map((d) => `${d.getUTCFullYear()}-13-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:00Z`),
    someDate.map((d) => `${d.getUTCFullYear()}-00-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:00Z`),
    someDate.map((d) => `${d.toISOString().slice(0, 10)}T25:${two(d.getUTCMinutes())}:00Z`),
    someDate.map((d) => `${d.toISOString().slice(0, 10)}T${two(d.getUTCHours())}:60:00Z`),
  ),
  example: () => '2024-01-01T00:00:00Z',
  edges: {
    valid: ['2024-01-01T00:00:00Z', '2024-02-29T23:59:59.999Z', '2024-06-30T12:30:00+05:30', '2024-12-31T23:59:59-08:00', '2024-01-31T00:00:00+05:59'],
    invalid: [
      'x2024-01-01T00:00:00Z',
      '2024-01-01T00:00:00Zx',
      '2024-01-01T00:00:61Z',
      '2024-01-01T00:00:00+25:00',
      '2024-01-01T00:00:00+05:60',
      '2024-13-01T00:00:00Z',
      '2024-00-10T00:00:00Z',
      '2024-01-00T00:00:00Z',
      '2024-01-32T00:00:00Z',
      '2024-01-01T24:30:00Z',
      '2024-01-01T00:60:00Z',
    ],
  },
};

/** Supported formats, by name. */
export const FORMATS: Readonly<Record<string, FormatSupport>> = { uuid, 'date-time': dateTime };
